// Group commit of SqliteStore's observation writes: writes that wait
// together are committed together, and one that fails leaves the others of
// its group stored. (Concurrent writers stored once and in order: the
// conformance suite's ConcurrentWritersStoredOnceInOrder, on both stores.)

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

std::string GroupTrialName(int i) { return "t" + std::to_string(i); }

class SqliteStoreGroupCommitTest : public ::testing::Test {
 protected:
  void SetUp() override {
    auto store = OpenSqliteStore(dir_.File("hpt.db"));
    ASSERT_TRUE(store.ok()) << store.status().ToString();
    store_ = std::move(*store);
    ASSERT_TRUE(store_->CreateExperiment(MakeExperiment("e")).ok());
    std::vector<api::Trial> trials;
    for (int i = 0; i < kTrials; ++i)
      trials.push_back(MakeTrial(GroupTrialName(i), "0.01"));
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
      const std::string trial = i < kTrials ? GroupTrialName(i) : "missing";
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
    auto obs = store_->ListObservations("e", GroupTrialName(i));
    ASSERT_TRUE(obs.ok());
    ASSERT_EQ(obs->size(), 1u) << GroupTrialName(i);
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

}  // namespace
}  // namespace hpt::storage
