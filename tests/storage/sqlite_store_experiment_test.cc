// Experiments and trials in the SQLite store.

#include <gtest/gtest.h>

#include <memory>
#include <string>

#include "api/spec_codec.h"
#include "storage/store.h"
#include "tests/storage/store_test_util.h"
#include "tests/testing/temp_dir.h"

namespace hpt::storage {
namespace {

using testing::MakeExperiment;
using testing::MakeTrial;
using testing::Obs;
using testing::RawDb;

class SqliteStoreTest : public ::testing::Test {
 protected:
  void SetUp() override {
    auto store = OpenSqliteStore(path_);
    ASSERT_TRUE(store.ok()) << store.status().ToString();
    store_ = std::move(store).value();
  }

  hpt::testing::TempDir dir_;
  std::string path_ = dir_.File("hpt.db");
  std::unique_ptr<Store> store_;
};

TEST_F(SqliteStoreTest, CreateAndGetExperimentRoundTrips) {
  api::Experiment e = MakeExperiment("mnist");
  e.phase = api::ExperimentPhase::kRunning;
  e.reason = "ExperimentRunning";
  e.message = "started";
  e.start_time_ms = 1500;
  e.algorithm_state = std::string("bin\0ary", 7);
  ASSERT_TRUE(store_->CreateExperiment(e).ok());

  auto got = store_->GetExperiment("mnist");
  ASSERT_TRUE(got.ok()) << got.status().ToString();
  EXPECT_EQ(api::SpecToJson(got->spec), api::SpecToJson(e.spec));
  EXPECT_EQ(got->phase, api::ExperimentPhase::kRunning);
  EXPECT_EQ(got->reason, "ExperimentRunning");
  EXPECT_EQ(got->message, "started");
  EXPECT_EQ(got->creation_time_ms, 1000);
  EXPECT_EQ(got->start_time_ms, 1500);
  EXPECT_EQ(got->completion_time_ms, 0);
  EXPECT_EQ(got->algorithm_state, std::string("bin\0ary", 7));
}

TEST_F(SqliteStoreTest, DuplicateExperimentNameIsAlreadyExists) {
  ASSERT_TRUE(store_->CreateExperiment(MakeExperiment("dup")).ok());
  Status s = store_->CreateExperiment(MakeExperiment("dup"));
  EXPECT_EQ(s.code(), StatusCode::kAlreadyExists);
  EXPECT_EQ(s.message(), "experiment 'dup' already exists");
}

TEST_F(SqliteStoreTest, EmptyExperimentNameIsInvalid) {
  EXPECT_EQ(store_->CreateExperiment(MakeExperiment("")).code(),
            StatusCode::kInvalidArgument);
}

TEST_F(SqliteStoreTest, ListExperimentsOldestFirst) {
  for (const char* name : {"zeta", "alpha", "mid"}) {
    ASSERT_TRUE(store_->CreateExperiment(MakeExperiment(name)).ok());
  }
  auto list = store_->ListExperiments();
  ASSERT_TRUE(list.ok());
  ASSERT_EQ(list->size(), 3u);
  EXPECT_EQ((*list)[0].spec.name, "zeta");
  EXPECT_EQ((*list)[1].spec.name, "alpha");
  EXPECT_EQ((*list)[2].spec.name, "mid");
}

TEST_F(SqliteStoreTest, UpdateExperimentChangesOnlySetFields) {
  ASSERT_TRUE(store_->CreateExperiment(MakeExperiment("e")).ok());
  ExperimentUpdate u;
  u.phase = api::ExperimentPhase::kSucceeded;
  u.completion_time_ms = 9000;
  u.algorithm_state = "s1";
  ASSERT_TRUE(store_->UpdateExperiment("e", u).ok());
  ExperimentUpdate u2;
  u2.message = "goal reached";
  ASSERT_TRUE(store_->UpdateExperiment("e", u2).ok());

  auto got = store_->GetExperiment("e");
  ASSERT_TRUE(got.ok());
  EXPECT_EQ(got->phase, api::ExperimentPhase::kSucceeded);
  EXPECT_EQ(got->completion_time_ms, 9000);
  EXPECT_EQ(got->algorithm_state, "s1");
  EXPECT_EQ(got->message, "goal reached");
  EXPECT_EQ(got->creation_time_ms, 1000);
  EXPECT_EQ(got->start_time_ms, 0);
}

TEST_F(SqliteStoreTest, MissingExperimentIsNotFoundEverywhere) {
  const std::string want = "experiment 'nope' not found";
  EXPECT_EQ(store_->GetExperiment("nope").status().message(), want);
  Status s = store_->UpdateExperiment("nope", ExperimentUpdate{});
  EXPECT_EQ(s.code(), StatusCode::kNotFound);
  EXPECT_EQ(s.message(), want);
  EXPECT_EQ(store_->DeleteExperiment("nope").message(), want);
  EXPECT_EQ(store_->CreateTrials("nope", {MakeTrial("t", "1")}, "").message(),
            want);
  EXPECT_EQ(store_->ListTrials("nope").status().message(), want);
  EXPECT_EQ(store_->GetTrial("nope", "t").status().message(), want);
  EXPECT_EQ(store_->UpdateTrial("nope", "t", {}).message(), want);
  EXPECT_EQ(store_->AddObservations("nope", "t", {}).message(), want);
  EXPECT_EQ(store_->ListObservations("nope", "t").status().code(),
            StatusCode::kNotFound);
}

TEST_F(SqliteStoreTest, MissingTrialIsNotFoundNamingBoth) {
  ASSERT_TRUE(store_->CreateExperiment(MakeExperiment("foo")).ok());
  const std::string want = "trial 'foo-3' not found in experiment 'foo'";
  EXPECT_EQ(store_->GetTrial("foo", "foo-3").status().message(), want);
  Status s = store_->UpdateTrial("foo", "foo-3", {});
  EXPECT_EQ(s.code(), StatusCode::kNotFound);
  EXPECT_EQ(s.message(), want);
  EXPECT_EQ(
      store_->AddObservations("foo", "foo-3", {Obs(1, {{"a", 1}})}).message(),
      want);
  EXPECT_EQ(store_->ListObservations("foo", "foo-3").status().message(), want);
}

TEST_F(SqliteStoreTest, DeleteExperimentCascades) {
  ASSERT_TRUE(store_->CreateExperiment(MakeExperiment("gone")).ok());
  ASSERT_TRUE(store_->CreateExperiment(MakeExperiment("kept")).ok());
  for (const char* exp : {"gone", "kept"}) {
    ASSERT_TRUE(store_->CreateTrials(exp, {MakeTrial("t1", "0.1")}, "").ok());
    ASSERT_TRUE(
        store_->AddObservations(exp, "t1", {Obs(1, {{"loss", 1}, {"acc", 0}})})
            .ok());
  }
  ASSERT_TRUE(store_->DeleteExperiment("gone").ok());
  EXPECT_EQ(store_->GetExperiment("gone").status().code(),
            StatusCode::kNotFound);

  RawDb raw(path_);
  EXPECT_EQ(raw.Count("experiments"), 1);
  EXPECT_EQ(raw.Count("trials"), 1);
  EXPECT_EQ(raw.Count("trial_metrics"), 2);
  EXPECT_EQ(raw.Count("observations"), 2);

  // The name is free again, with no leftovers.
  ASSERT_TRUE(store_->CreateExperiment(MakeExperiment("gone")).ok());
  auto trials = store_->ListTrials("gone");
  ASSERT_TRUE(trials.ok());
  EXPECT_TRUE(trials->empty());
}

TEST_F(SqliteStoreTest, CreateTrialsStoresTrialsAndAlgorithmState) {
  ASSERT_TRUE(store_->CreateExperiment(MakeExperiment("e")).ok());
  api::Trial t = MakeTrial("e-1", "0.01");
  t.phase = api::TrialPhase::kRunning;
  t.pid = 4242;
  t.start_time_ms = 2500;
  ASSERT_TRUE(
      store_->CreateTrials("e", {t, MakeTrial("e-2", "0.02")}, "bracket=1")
          .ok());
  EXPECT_EQ(store_->GetExperiment("e")->algorithm_state, "bracket=1");

  auto got = store_->GetTrial("e", "e-1");
  ASSERT_TRUE(got.ok()) << got.status().ToString();
  EXPECT_EQ(got->name, "e-1");
  ASSERT_EQ(got->assignment.size(), 2u);
  EXPECT_EQ(got->assignment[0].name, "lr");
  EXPECT_EQ(got->assignment[0].value, "0.01");
  EXPECT_EQ(got->assignment[1].name, "optimizer");
  EXPECT_EQ(got->assignment[1].value, "adam");
  EXPECT_EQ(got->phase, api::TrialPhase::kRunning);
  EXPECT_EQ(got->pid, 4242);
  EXPECT_EQ(got->creation_time_ms, 2000);
  EXPECT_EQ(got->start_time_ms, 2500);
  EXPECT_FALSE(got->exit_code.has_value());
  EXPECT_TRUE(got->metrics.empty());

  // An empty batch still records the state (the algorithm may have moved on).
  ASSERT_TRUE(store_->CreateTrials("e", {}, "bracket=2").ok());
  EXPECT_EQ(store_->GetExperiment("e")->algorithm_state, "bracket=2");
}

TEST_F(SqliteStoreTest, DuplicateTrialRollsBackWholeBatch) {
  ASSERT_TRUE(store_->CreateExperiment(MakeExperiment("e")).ok());
  ASSERT_TRUE(store_->CreateTrials("e", {MakeTrial("e-1", "1")}, "s1").ok());

  Status s = store_->CreateTrials(
      "e", {MakeTrial("e-2", "2"), MakeTrial("e-1", "3")}, "s2");
  EXPECT_EQ(s.code(), StatusCode::kAlreadyExists);
  EXPECT_EQ(s.message(), "trial 'e-1' already exists in experiment 'e'");
  s = store_->CreateTrials("e", {MakeTrial("e-3", "2"), MakeTrial("e-3", "3")},
                           "s3");
  EXPECT_EQ(s.code(), StatusCode::kAlreadyExists);

  auto trials = store_->ListTrials("e");
  ASSERT_TRUE(trials.ok());
  ASSERT_EQ(trials->size(), 1u);
  EXPECT_EQ((*trials)[0].assignment[0].value, "1");
  EXPECT_EQ(store_->GetExperiment("e")->algorithm_state, "s1");

  // Trial names are unique per experiment only.
  ASSERT_TRUE(store_->CreateExperiment(MakeExperiment("other")).ok());
  EXPECT_TRUE(store_->CreateTrials("other", {MakeTrial("e-1", "1")}, "").ok());
}

TEST_F(SqliteStoreTest, ListTrialsInCreationOrderWithSummaries) {
  ASSERT_TRUE(store_->CreateExperiment(MakeExperiment("e")).ok());
  ASSERT_TRUE(
      store_->CreateTrials("e", {MakeTrial("b", "1"), MakeTrial("a", "2")}, "")
          .ok());
  ASSERT_TRUE(store_->CreateTrials("e", {MakeTrial("c", "3")}, "").ok());
  ASSERT_TRUE(store_->AddObservations("e", "a", {Obs(1, {{"acc", 0.5}})}).ok());
  ASSERT_TRUE(store_
                  ->AddObservations("e", "c",
                                    {Obs(1, {{"loss", 2}, {"acc", 0.1}}),
                                     Obs(2, {{"loss", 1}, {"acc", 0.3}})})
                  .ok());

  auto trials = store_->ListTrials("e");
  ASSERT_TRUE(trials.ok()) << trials.status().ToString();
  ASSERT_EQ(trials->size(), 3u);
  EXPECT_EQ((*trials)[0].name, "b");
  EXPECT_EQ((*trials)[1].name, "a");
  EXPECT_EQ((*trials)[2].name, "c");
  EXPECT_TRUE((*trials)[0].metrics.empty());
  ASSERT_EQ((*trials)[1].metrics.size(), 1u);
  EXPECT_EQ((*trials)[1].metrics[0].latest, 0.5);
  ASSERT_EQ((*trials)[2].metrics.size(), 2u);
  EXPECT_EQ((*trials)[2].metrics[0].name, "acc");  // sorted by name
  EXPECT_EQ((*trials)[2].metrics[0].latest, 0.3);
  EXPECT_EQ((*trials)[2].metrics[1].name, "loss");
  EXPECT_EQ((*trials)[2].metrics[1].min, 1);
  EXPECT_EQ((*trials)[2].metrics[1].max, 2);
}

TEST_F(SqliteStoreTest, UpdateTrialChangesOnlySetFields) {
  ASSERT_TRUE(store_->CreateExperiment(MakeExperiment("e")).ok());
  ASSERT_TRUE(store_->CreateTrials("e", {MakeTrial("t", "1")}, "").ok());
  TrialUpdate start;
  start.phase = api::TrialPhase::kRunning;
  start.start_time_ms = 3000;
  start.pid = 77;
  ASSERT_TRUE(store_->UpdateTrial("e", "t", start).ok());
  TrialUpdate done;
  done.phase = api::TrialPhase::kFailed;
  done.reason = "ExitCode";
  done.message = "boom";
  done.completion_time_ms = 4000;
  done.exit_code = 3;
  ASSERT_TRUE(store_->UpdateTrial("e", "t", done).ok());

  auto got = store_->GetTrial("e", "t");
  ASSERT_TRUE(got.ok());
  EXPECT_EQ(got->phase, api::TrialPhase::kFailed);
  EXPECT_EQ(got->reason, "ExitCode");
  EXPECT_EQ(got->message, "boom");
  EXPECT_EQ(got->start_time_ms, 3000);
  EXPECT_EQ(got->completion_time_ms, 4000);
  EXPECT_EQ(got->exit_code, 3);
  EXPECT_EQ(got->pid, 77);
  EXPECT_EQ(got->creation_time_ms, 2000);
}

}  // namespace
}  // namespace hpt::storage
