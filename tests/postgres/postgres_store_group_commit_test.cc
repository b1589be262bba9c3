// Group commit of PostgresStore's observation writes: writes that wait
// together are committed together (one transaction, so one commit marker),
// and one whose trial is gone or whose lease is lost fails alone, saying
// why, leaving the others of its group stored. (Concurrent writers stored
// once and in order: the conformance suite's
// ConcurrentWritersStoredOnceInOrder, on both stores.)

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
    options.write_groups = write_groups_;
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

  // Waits (10 s at most) until `n` statements wait on a lock.
  void AwaitLockWaits(int n) {
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(10);
    while (raw_->Query("SELECT count(*) FROM pg_stat_activity WHERE datname = "
                       "current_database() AND wait_event_type = 'Lock'") != std::to_string(n) &&
           std::chrono::steady_clock::now() < deadline) {
      std::this_thread::sleep_for(std::chrono::milliseconds(5));
    }
  }

  TestSchema schema_;  // first: made before the store, dropped after it
  std::unique_ptr<RawPg> raw_;
  std::unique_ptr<PostgresStore> store_;
  int write_groups_ = 1;  // one group at a time: the rest queue behind it
};

// The default: a second group may start beside a slow one.
class PostgresStoreTwoGroupsTest : public PostgresStoreGroupCommitTest {
 protected:
  void SetUp() override {
    write_groups_ = 2;
    PostgresStoreGroupCommitTest::SetUp();
  }
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

// A group waiting on a lock (another transaction holds t0's row) does
// not hold back a write to another trial: it is committed in a group of
// its own while the first still waits.
TEST_F(PostgresStoreTwoGroupsTest, AGroupWaitingOnALockHoldsBackNoOtherTrialsWrite) {
  RawPg blocker(schema_.url());
  blocker.Exec("BEGIN");
  blocker.Exec("SELECT t.id FROM trials t JOIN experiments e ON e.id = t.experiment_id "
               "WHERE e.name = 'e' AND t.name = 't0' FOR UPDATE");
  std::atomic<bool> first_done{false};
  Status first_result;
  std::thread first([&] {
    first_result = store_->AddObservations("e", "t0", {Obs(1, {{"loss", 1.0}})});
    first_done = true;
  });
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(10);
  while (raw_->Query("SELECT count(*) FROM pg_stat_activity WHERE datname = current_database() "
                     "AND wait_event_type = 'Lock'") == "0" &&
         std::chrono::steady_clock::now() < deadline) {
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
  }
  Status second = store_->AddObservations("e", "t1", {Obs(1, {{"loss", 2.0}})});
  EXPECT_TRUE(second.ok()) << second.ToString();
  EXPECT_FALSE(first_done.load()) << "t1's write waited for t0's lock: " << first_result.ToString();
  blocker.Exec("COMMIT");
  first.join();
  EXPECT_TRUE(first_result.ok()) << first_result.ToString();
  EXPECT_EQ(Count("observations"), 2);
}

// Writes that share a group keep their own texts and get their own
// trial's summaries; two writes to one trial never share a group (its
// statement writes each trial once), and each is stored.
TEST_F(PostgresStoreGroupCommitTest, AGroupKeepsEachWritesTextsAndSummaries) {
  RawPg blocker(schema_.url());
  blocker.Exec("BEGIN");
  blocker.Exec("LOCK TABLE observations IN EXCLUSIVE MODE");
  // t0 first, alone: its group waits on the lock while the rest queue.
  std::vector<StatusOr<std::vector<api::MetricSummary>>> results(
      kTrials + 2, std::vector<api::MetricSummary>{});
  auto write = [&](int i) {
    const int trial = i < kTrials ? i : 1;  // the last two write to t1 again
    api::Observation o = Obs(10 + i, {{"loss", 1.0 + i}});
    o.texts = {{"note", "from write " + std::to_string(i)}};
    results[i] = store_->AddObservationsAndSummarize("e", TrialName(trial), {o});
  };
  std::vector<std::thread> writers;
  writers.emplace_back(write, 0);
  AwaitLockWaits(1);
  for (int i = 1; i < kTrials + 2; ++i) writers.emplace_back(write, i);
  std::this_thread::sleep_for(std::chrono::milliseconds(200));  // all reach the queue
  blocker.Exec("COMMIT");
  for (auto& w : writers) w.join();

  for (int i = 0; i < kTrials + 2; ++i) {
    ASSERT_TRUE(results[i].ok()) << i << ": " << results[i].status().ToString();
    ASSERT_EQ(results[i]->size(), 1u) << i;
    EXPECT_EQ((*results[i])[0].name, "loss");
  }
  for (int i = 2; i < kTrials; ++i) {
    EXPECT_EQ((*results[i])[0].min, 1.0 + i) << i;
    auto trial = store_->GetTrial("e", TrialName(i));
    ASSERT_TRUE(trial.ok());
    EXPECT_EQ(trial->outputs.at("note"), "from write " + std::to_string(i));
  }
  // t1: three writes, each stored once, with a write id of its own; its
  // latest is the highest step's.
  auto obs = store_->ListObservations("e", "t1");
  ASSERT_TRUE(obs.ok());
  ASSERT_EQ(obs->size(), 3u);
  EXPECT_EQ(raw_->Query("SELECT count(DISTINCT o.write_id) FROM observations o JOIN trials t "
                        "ON t.id = o.trial_id WHERE t.name = 't1'"),
            "3");
  auto t1 = store_->GetTrial("e", "t1");
  ASSERT_TRUE(t1.ok());
  ASSERT_EQ(t1->metrics.size(), 1u);
  EXPECT_EQ(t1->metrics[0].latest, 1.0 + kTrials + 1);
  EXPECT_EQ(t1->metrics[0].min, 2.0);
  EXPECT_EQ(Count("observations"), kTrials + 2);
}

}  // namespace
}  // namespace hpt::storage::testing
