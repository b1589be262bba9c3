// AddTrials and UpdateTrial in one round trip (postgres_store_trial_writes.cc):
// a :suggest's new trials and a :complete's fields and metrics each cost
// one round trip while the lease and the rows are as assumed; trials added
// from several threads at once are numbered without a gap or a repeat;
// and a batch the one-round-trip form refuses takes the general way, with
// its messages, having written nothing.

#include <set>
#include <string>
#include <thread>
#include <vector>

#include "storage/postgres_store.h"
#include "tests/postgres/postgres_fixture.h"
#include "tests/postgres/postgres_store_fixture.h"
#include "tests/storage/store_test_util.h"

namespace hpt::storage::testing {
namespace {

using PostgresTrialWritesTest = PostgresStoreFixture;

TEST_F(PostgresTrialWritesTest, NewTrialsAndATrialUpdateAreOneRoundTripEach) {
  for (bool leasing : {false, true}) {
    SCOPED_TRACE(leasing ? "leasing" : "no leasing");
    PostgresOptions options;
    options.pool_size = 1;  // one connection: its statements are prepared after the first use
    auto store = Open(options);
    ASSERT_NE(store, nullptr);
    if (leasing) ASSERT_NO_FATAL_FAILURE(LeaseAsServerA(*store));
    const std::string e = leasing ? "leased" : "plain";
    ASSERT_TRUE(store->CreateExperiment(MakeExperiment(e)).ok());
    TrialUpdate ended;
    ended.phase = api::TrialPhase::kSucceeded;
    ended.completion_time_ms = 42;
    ended.observations = {Obs(1, {{"loss", 0.25}})};
    ASSERT_TRUE(store->CreateTrials(e, {MakeTrial("t0", "0.1")}, "s0").ok());
    ASSERT_TRUE(store->UpdateTrial(e, "t0", ended).ok());

    double before = RoundTrips(*store);
    ASSERT_TRUE(
        store->CreateTrials(e, {MakeTrial("t1", "0.2"), MakeTrial("t2", "0.3")}, "s1").ok());
    EXPECT_EQ(RoundTrips(*store) - before, 1);
    before = RoundTrips(*store);
    ASSERT_TRUE(store->UpdateTrial(e, "t2", ended).ok());
    EXPECT_EQ(RoundTrips(*store) - before, 1);

    auto trials = store->ListTrials(e);
    ASSERT_TRUE(trials.ok()) << trials.status().ToString();
    ASSERT_EQ(trials->size(), 3u);
    for (int i = 0; i < 3; ++i) {
      EXPECT_EQ((*trials)[i].name, "t" + std::to_string(i));
      EXPECT_EQ((*trials)[i].index, i + 1);
    }
    EXPECT_EQ((*trials)[1].phase, api::TrialPhase::kPending);
    ASSERT_FALSE((*trials)[1].assignment.empty());
    EXPECT_EQ((*trials)[1].assignment[0].value, "0.2");
    EXPECT_EQ((*trials)[2].phase, api::TrialPhase::kSucceeded);
    EXPECT_EQ((*trials)[2].completion_time_ms, 42);
    ASSERT_EQ((*trials)[2].metrics.size(), 1u);
    EXPECT_EQ((*trials)[2].metrics[0].latest, 0.25);
    auto experiment = store->GetExperiment(e);
    ASSERT_TRUE(experiment.ok());
    EXPECT_EQ(experiment->algorithm_state, "s1");
  }
}

TEST_F(PostgresTrialWritesTest, TrialsAddedAtOnceFromManyThreadsAreNumberedInTurn) {
  auto store = Open();
  ASSERT_NE(store, nullptr);
  ASSERT_TRUE(store->CreateExperiment(MakeExperiment("e")).ok());
  const int kThreads = 4, kEach = 25;
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t) {
    threads.emplace_back([&, t] {
      for (int i = 0; i < kEach; ++i) {
        const std::string name = "t" + std::to_string(t) + "-" + std::to_string(i);
        Status added = store->CreateTrials("e", {MakeTrial(name, "0.1")}, "");
        EXPECT_TRUE(added.ok()) << added.ToString();
      }
    });
  }
  for (auto& t : threads) t.join();
  auto trials = store->ListTrials("e");
  ASSERT_TRUE(trials.ok());
  ASSERT_EQ(trials->size(), static_cast<size_t>(kThreads * kEach));
  std::set<int64_t> indices;
  for (const auto& t : *trials) indices.insert(t.index);
  EXPECT_EQ(indices.size(), static_cast<size_t>(kThreads * kEach));
  EXPECT_EQ(*indices.begin(), 1);
  EXPECT_EQ(*indices.rbegin(), kThreads * kEach);
}

TEST_F(PostgresTrialWritesTest, WhatOneRoundTripCannotWriteTakesTheGeneralWayAndSaysWhy) {
  auto store = Open();
  ASSERT_NE(store, nullptr);
  ASSERT_TRUE(store->CreateExperiment(MakeExperiment("e")).ok());
  ASSERT_TRUE(store->CreateTrials("e", {MakeTrial("a", "0.1")}, "").ok());
  // A name already there: nothing of the batch is stored.
  Status taken = store->CreateTrials("e", {MakeTrial("b", "0.2"), MakeTrial("a", "0.3")}, "");
  EXPECT_EQ(taken.code(), StatusCode::kAlreadyExists) << taken.ToString();
  EXPECT_NE(taken.message().find("trial 'a' already exists in experiment 'e'"),
            std::string::npos)
      << taken.ToString();
  // The same name twice in one batch.
  Status twice = store->CreateTrials("e", {MakeTrial("c", "0.2"), MakeTrial("c", "0.3")}, "");
  EXPECT_EQ(twice.code(), StatusCode::kAlreadyExists) << twice.ToString();
  EXPECT_EQ(store->ListTrials("e")->size(), 1u);
  Status nowhere = store->CreateTrials("missing", {MakeTrial("a", "0.1")}, "");
  EXPECT_EQ(nowhere.code(), StatusCode::kNotFound) << nowhere.ToString();
  TrialUpdate update;
  update.phase = api::TrialPhase::kFailed;
  // Removed behind the store's back, as another server's delete would.
  RawPg(url_).Exec("DELETE FROM trials WHERE name = 'a'");
  Status gone = store->UpdateTrial("e", "a", update);
  EXPECT_EQ(gone.code(), StatusCode::kNotFound) << gone.ToString();
  EXPECT_NE(gone.message().find("trial 'a' not found in experiment 'e'"), std::string::npos)
      << gone.ToString();
  EXPECT_EQ(RawPg(url_).Query("SELECT count(*) FROM trials"), "0");
}

}  // namespace
}  // namespace hpt::storage::testing
