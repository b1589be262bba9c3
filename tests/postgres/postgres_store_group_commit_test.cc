// Group commit of PostgresStore's observation writes: writes that wait
// together are committed together (one transaction, so one commit marker),
// each stored exactly once, in order per trial, and one whose trial is gone
// or whose lease is lost fails alone, saying why, leaving the others of its
// group stored.

#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "storage/postgres_store.h"
#include "tests/postgres/postgres_fixture.h"
#include "tests/storage/store_test_util.h"

namespace hpt::storage::testing {
namespace {

constexpr int kTrials = 8;

std::string TrialName(int i) { return "t" + std::to_string(i); }

class PostgresStoreGroupCommitTest : public ::testing::Test {
 protected:
  void SetUp() override {
    if (!schema_.ok()) GTEST_SKIP() << "no PostgreSQL server for the tests: " << schema_.why();
    raw_ = std::make_unique<RawPg>(schema_.url());
    PostgresOptions options;
    options.write_groups = 1;  // one group at a time: the rest queue behind it
    auto store = OpenPostgresStore(schema_.url(), options);
    ASSERT_TRUE(store.ok()) << store.status().ToString();
    store_ = std::move(store).value();
    LeaseIdentity id;
    id.owner = "server-a";
    id.url = "http://a:1";
    id.lease_seconds = 60;
    ASSERT_TRUE(store_->StartLeasing(id).ok());
    ASSERT_TRUE(store_->CreateExperiment(MakeExperiment("e")).ok());
    ASSERT_TRUE(store_->CreateExperiment(MakeExperiment("taken")).ok());
    ASSERT_TRUE(store_->CreateTrials("taken", {MakeTrial("t0", "0.01")}, "").ok());
    std::vector<api::Trial> trials;
    for (int i = 0; i < kTrials; ++i) trials.push_back(MakeTrial(TrialName(i), "0.01"));
    ASSERT_TRUE(store_->CreateTrials("e", trials, "").ok());
  }
  void TearDown() override { store_.reset(); }  // before the schema goes

  int Count(const std::string& table) {
    return std::stoi(raw_->Query("SELECT count(*) FROM " + table));
  }

  TestSchema schema_;  // first: made before the store, dropped after it
  std::unique_ptr<RawPg> raw_;
  std::unique_ptr<PostgresStore> store_;
};

// While another connection locks the observations table, the first writer
// waits on the lock and the others queue behind it; when it lets go they
// are committed in one more transaction (without groups: one each), the
// writes to a missing trial, to a missing experiment and to an experiment
// whose lease another server took failing alone.
TEST_F(PostgresStoreGroupCommitTest, WaitingWritesShareATransactionAndFailAlone) {
  raw_->Exec("UPDATE experiment_leases SET owner = 'server-b', owner_url = 'http://b:2', "
             "fencing = fencing + 1 WHERE experiment = 'taken'");
  const int markers_before = Count("commit_markers");
  RawPg blocker(schema_.url());
  blocker.Exec("BEGIN");
  blocker.Exec("LOCK TABLE observations IN EXCLUSIVE MODE");
  std::vector<StatusOr<std::vector<api::MetricSummary>>> results(
      kTrials + 3, std::vector<api::MetricSummary>{});
  std::atomic<int> started{0};
  std::vector<std::thread> writers;
  for (int i = 0; i < kTrials + 3; ++i) {
    writers.emplace_back([&, i] {
      const std::string experiment = i == kTrials + 1   ? "gone"
                                     : i == kTrials + 2 ? "taken"
                                                        : "e";
      const std::string trial = i < kTrials ? TrialName(i) : i == kTrials + 2 ? "t0" : "missing";
      ++started;
      results[i] = store_->AddObservationsAndSummarize(
          experiment, trial, {Obs(1, {{"accuracy", 0.5 + i}, {"loss", 1.0}})});
    });
  }
  // The first group's INSERT waits for the lock; the other writers, once
  // started, only have to reach the queue.
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(10);
  while (raw_->Query("SELECT count(*) FROM pg_locks WHERE NOT granted AND "
                     "relation = 'observations'::regclass") == "0" &&
         std::chrono::steady_clock::now() < deadline) {
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
  }
  while (started.load() < kTrials + 3) std::this_thread::sleep_for(std::chrono::milliseconds(5));
  std::this_thread::sleep_for(std::chrono::milliseconds(100));
  blocker.Exec("COMMIT");
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
  // No lease on an experiment that is not there: CheckLease's answer.
  EXPECT_EQ(results[kTrials + 1].status().code(), StatusCode::kFailedPrecondition);
  EXPECT_NE(results[kTrials + 1].status().message().find("'gone'"), std::string::npos)
      << results[kTrials + 1].status().message();
  EXPECT_EQ(results[kTrials + 2].status().code(), StatusCode::kFailedPrecondition);
  EXPECT_NE(results[kTrials + 2].status().message().find("lease lost to server server-b"),
            std::string::npos)
      << results[kTrials + 2].status().message();
  EXPECT_FALSE(store_->HoldsLease("taken"));
  EXPECT_EQ(Count("observations"), 2 * kTrials);
  // The first writer's transaction and one for the rest (a writer slow to
  // reach the queue on a busy machine may make a third; the failed writes'
  // own tries commit nothing); one each would be 8.
  EXPECT_LE(Count("commit_markers") - markers_before, 3);
}

// Writers racing on their own trials (and one on a missing trial): every
// acknowledged write is stored once, each trial's in the order written, and
// the summaries each answer gives are those of the writes so far.
TEST_F(PostgresStoreGroupCommitTest, ConcurrentWritersStoredOnceInOrder) {
  constexpr int kSteps = 40;
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
}  // namespace hpt::storage::testing
