// Many threads, and two connections, writing one SQLite store at once.

#include <gtest/gtest.h>

#include <atomic>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "storage/store.h"
#include "tests/storage/store_test_util.h"
#include "tests/testing/temp_dir.h"

namespace hpt::storage {
namespace {

using testing::FindMetric;
using testing::MakeExperiment;
using testing::MakeTrial;
using testing::Obs;

constexpr int kThreads = 8;
constexpr int kWrites = 150;

std::string TrialName(int i) { return "t" + std::to_string(i); }

// Each writer owns one trial and writes kWrites single observations through
// `stores[i % stores.size()]`, while a reader lists trials the whole time.
void RunWriters(const std::vector<Store*>& stores) {
  std::atomic<int> failures{0};
  std::atomic<bool> done{false};
  std::vector<std::thread> threads;
  for (int i = 0; i < kThreads; ++i) {
    threads.emplace_back([&, i] {
      Store& store = *stores[i % stores.size()];
      for (int step = 1; step <= kWrites; ++step) {
        if (!store
                 .AddObservations(
                     "e", TrialName(i),
                     {Obs(step, {{"loss", 1.0 / step}, {"id", double(i)}})})
                 .ok()) {
          ++failures;
        }
      }
      TrialUpdate u;
      u.phase = api::TrialPhase::kSucceeded;
      if (!store.UpdateTrial("e", TrialName(i), u).ok()) ++failures;
    });
  }
  std::thread reader([&] {
    while (!done) {
      auto trials = stores.back()->ListTrials("e");
      if (!trials.ok() || trials->size() != kThreads) ++failures;
    }
  });
  for (auto& t : threads) t.join();
  done = true;
  reader.join();
  EXPECT_EQ(failures.load(), 0);
}

void ExpectAllWritten(Store& store) {
  auto trials = store.ListTrials("e");
  ASSERT_TRUE(trials.ok()) << trials.status().ToString();
  ASSERT_EQ(trials->size(), size_t{kThreads});
  for (int i = 0; i < kThreads; ++i) {
    const api::Trial& t = (*trials)[i];
    EXPECT_EQ(t.name, TrialName(i));
    EXPECT_EQ(t.phase, api::TrialPhase::kSucceeded);
    const api::MetricSummary* loss = FindMetric(t, "loss");
    ASSERT_NE(loss, nullptr);
    EXPECT_EQ(loss->latest, 1.0 / kWrites);
    EXPECT_EQ(loss->max, 1.0);
    auto obs = store.ListObservations("e", t.name);
    ASSERT_TRUE(obs.ok());
    ASSERT_EQ(obs->size(), size_t{kWrites});
    for (const auto& o : *obs) {
      // Rows of different threads never mix into one observation.
      ASSERT_EQ(o.metrics.size(), 2u);
      EXPECT_EQ(o.metrics.at("id"), i);
    }
  }
}

void CreateTrials(Store& store) {
  ASSERT_TRUE(store.CreateExperiment(MakeExperiment("e")).ok());
  std::vector<api::Trial> trials;
  for (int i = 0; i < kThreads; ++i) {
    trials.push_back(MakeTrial(TrialName(i), "1"));
  }
  ASSERT_TRUE(store.CreateTrials("e", trials, "").ok());
}

TEST(SqliteStoreConcurrencyTest, ThreadsShareOneStore) {
  hpt::testing::TempDir dir;
  auto store = OpenSqliteStore(dir.File("hpt.db"));
  ASSERT_TRUE(store.ok()) << store.status().ToString();
  CreateTrials(**store);
  RunWriters({store->get()});
  ExpectAllWritten(**store);
}

TEST(SqliteStoreConcurrencyTest, TwoStoresOnOneFile) {
  hpt::testing::TempDir dir;
  auto a = OpenSqliteStore(dir.File("hpt.db"));
  ASSERT_TRUE(a.ok()) << a.status().ToString();
  auto b = OpenSqliteStore(dir.File("hpt.db"));
  ASSERT_TRUE(b.ok()) << b.status().ToString();
  CreateTrials(**a);
  RunWriters({a->get(), b->get()});
  ExpectAllWritten(**b);
}

TEST(SqliteStoreConcurrencyTest, RacingCreatesHaveOneWinner) {
  hpt::testing::TempDir dir;
  auto store = OpenSqliteStore(dir.File("hpt.db"));
  ASSERT_TRUE(store.ok());
  ASSERT_TRUE((*store)->CreateExperiment(MakeExperiment("e")).ok());
  std::atomic<int> created{0};
  std::atomic<int> exists{0};
  std::vector<std::thread> threads;
  for (int i = 0; i < kThreads; ++i) {
    threads.emplace_back([&] {
      for (int n = 0; n < 20; ++n) {
        Status s =
            (*store)->CreateTrials("e", {MakeTrial(TrialName(n), "1")}, "");
        if (s.ok()) ++created;
        if (s.code() == StatusCode::kAlreadyExists) ++exists;
      }
    });
  }
  for (auto& t : threads) t.join();
  EXPECT_EQ(created.load(), 20);
  EXPECT_EQ(exists.load(), 20 * (kThreads - 1));
  EXPECT_EQ((*store)->ListTrials("e")->size(), 20u);
}

}  // namespace
}  // namespace hpt::storage
