// Group commit of SqliteStore's observation writes: writes that wait
// together are committed together, each stored exactly once, in order per
// trial, and one that fails leaves the others of its group stored.

#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
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
using testing::RawDb;

constexpr int kTrials = 8;

std::string TrialName(int i) { return "t" + std::to_string(i); }

class SqliteStoreGroupCommitTest : public ::testing::Test {
 protected:
  void SetUp() override {
    auto store = OpenSqliteStore(dir_.File("hpt.db"));
    ASSERT_TRUE(store.ok()) << store.status().ToString();
    store_ = std::move(*store);
    ASSERT_TRUE(store_->CreateExperiment(MakeExperiment("e")).ok());
    std::vector<api::Trial> trials;
    for (int i = 0; i < kTrials; ++i) trials.push_back(MakeTrial(TrialName(i), "0.01"));
    ASSERT_TRUE(store_->CreateTrials("e", trials, "").ok());
  }

  hpt::testing::TempDir dir_;
  std::unique_ptr<Store> store_;
};

// While another connection holds the write lock, every writer queues; when
// it lets go they are committed in (at most) two groups, the second holding
// the writes to a missing trial and a missing experiment among good ones.
TEST_F(SqliteStoreGroupCommitTest, AFailingWriteLeavesItsGroupStored) {
  RawDb other(dir_.File("hpt.db"));
  other.Exec("BEGIN IMMEDIATE");
  std::vector<StatusOr<std::vector<api::MetricSummary>>> results(
      kTrials + 2, std::vector<api::MetricSummary>{});
  std::vector<std::thread> writers;
  for (int i = 0; i < kTrials + 2; ++i) {
    writers.emplace_back([&, i] {
      const std::string experiment = i == kTrials + 1 ? "gone" : "e";
      const std::string trial = i < kTrials ? TrialName(i) : "missing";
      results[i] = store_->AddObservationsAndSummarize(
          experiment, trial, {Obs(1, {{"accuracy", 0.5 + i}, {"loss", 1.0}})});
    });
  }
  // Nothing to poll: the writers wait inside the store for the lock.
  std::this_thread::sleep_for(std::chrono::milliseconds(150));
  other.Exec("COMMIT");
  for (auto& w : writers) w.join();

  for (int i = 0; i < kTrials; ++i) {
    ASSERT_TRUE(results[i].ok()) << i << ": " << results[i].status().ToString();
    ASSERT_EQ(results[i]->size(), 2u);  // accuracy and loss, by name
    EXPECT_EQ((*results[i])[0].name, "accuracy");
    EXPECT_EQ((*results[i])[0].latest, 0.5 + i);
    auto obs = store_->ListObservations("e", TrialName(i));
    ASSERT_TRUE(obs.ok());
    ASSERT_EQ(obs->size(), 1u) << TrialName(i);
    EXPECT_EQ(obs->front().metrics.at("accuracy"), 0.5 + i);
  }
  EXPECT_EQ(results[kTrials].status().code(), StatusCode::kNotFound);
  EXPECT_NE(results[kTrials].status().message().find("'missing'"), std::string::npos)
      << results[kTrials].status().message();
  EXPECT_EQ(results[kTrials + 1].status().code(), StatusCode::kNotFound);
  EXPECT_NE(results[kTrials + 1].status().message().find("'gone'"), std::string::npos)
      << results[kTrials + 1].status().message();
  EXPECT_EQ(other.Count("observations"), 2 * kTrials);
}

// Writers racing on their own trials (and one on a missing trial): every
// acknowledged write is stored once, each trial's in the order written, and
// the summaries each answer gives are those of the writes so far.
TEST_F(SqliteStoreGroupCommitTest, ConcurrentWritersStoredOnceInOrder) {
  constexpr int kSteps = 150;
  std::atomic<int> failures{0};
  std::atomic<int> refused{0};
  std::vector<std::thread> writers;
  for (int i = 0; i < kTrials; ++i) {
    writers.emplace_back([&, i] {
      for (int step = 1; step <= kSteps; ++step) {
        // Values fall, so max is step 1's and min the latest.
        auto r = store_->AddObservationsAndSummarize(
            "e", TrialName(i), {Obs(step, {{"loss", 1.0 / step}, {"id", double(i)}})});
        const api::MetricSummary* loss = nullptr;
        if (r.ok()) {
          for (const auto& m : *r) {
            if (m.name == "loss") loss = &m;
          }
        }
        if (!loss || loss->latest != 1.0 / step || loss->min != 1.0 / step ||
            loss->max != 1.0) {
          ++failures;
        }
      }
    });
  }
  writers.emplace_back([&] {
    for (int n = 0; n < kSteps; ++n) {
      if (store_->AddObservations("e", "missing", {Obs(n, {{"loss", 1.0}})}).code() ==
          StatusCode::kNotFound) {
        ++refused;
      }
    }
  });
  for (auto& w : writers) w.join();
  EXPECT_EQ(failures.load(), 0);
  EXPECT_EQ(refused.load(), kSteps);

  for (int i = 0; i < kTrials; ++i) {
    auto obs = store_->ListObservations("e", TrialName(i));
    ASSERT_TRUE(obs.ok());
    ASSERT_EQ(obs->size(), size_t{kSteps}) << TrialName(i);
    for (int step = 1; step <= kSteps; ++step) {
      const api::Observation& o = (*obs)[step - 1];
      ASSERT_EQ(o.step, step);
      ASSERT_EQ(o.metrics.size(), 2u);
      EXPECT_EQ(o.metrics.at("id"), i);  // never mixed with another write
    }
    auto trial = store_->GetTrial("e", TrialName(i));
    ASSERT_TRUE(trial.ok());
    ASSERT_NE(FindMetric(*trial, "loss"), nullptr);
    EXPECT_EQ(FindMetric(*trial, "loss")->latest, 1.0 / kSteps);
  }
}

}  // namespace
}  // namespace hpt::storage
