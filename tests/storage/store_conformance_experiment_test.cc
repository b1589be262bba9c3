// Store conformance: experiments and trials (store_conformance.h).

#include <gtest/gtest.h>

#include <string>

#include "api/spec_codec.h"
#include "tests/storage/store_conformance.h"
#include "tests/storage/store_test_util.h"

namespace hpt::storage::testing {
namespace {

TEST_P(StoreConformanceTest, CreateAndGetExperimentRoundTrips) {
  api::Experiment e = MakeExperiment("mnist");
  e.phase = api::ExperimentPhase::kRunning;
  e.reason = "ExperimentRunning";
  e.message = "started";
  e.start_time_ms = 1500;
  e.algorithm_state = std::string("bin\0ary", 7);
  ASSERT_TRUE(store().CreateExperiment(e).ok());

  auto got = store().GetExperiment("mnist");
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

TEST_P(StoreConformanceTest, DuplicateExperimentNameIsAlreadyExists) {
  ASSERT_TRUE(store().CreateExperiment(MakeExperiment("dup")).ok());
  Status s = store().CreateExperiment(MakeExperiment("dup"));
  EXPECT_EQ(s.code(), StatusCode::kAlreadyExists);
  EXPECT_EQ(s.message(), "experiment 'dup' already exists");
}

TEST_P(StoreConformanceTest, EmptyExperimentNameIsInvalid) {
  EXPECT_EQ(store().CreateExperiment(MakeExperiment("")).code(),
            StatusCode::kInvalidArgument);
}

TEST_P(StoreConformanceTest, ListExperimentsOldestFirst) {
  for (const char* name : {"zeta", "alpha", "mid"}) {
    ASSERT_TRUE(store().CreateExperiment(MakeExperiment(name)).ok());
  }
  auto list = store().ListExperiments();
  ASSERT_TRUE(list.ok());
  ASSERT_EQ(list->size(), 3u);
  EXPECT_EQ((*list)[0].spec.name, "zeta");
  EXPECT_EQ((*list)[1].spec.name, "alpha");
  EXPECT_EQ((*list)[2].spec.name, "mid");
}

TEST_P(StoreConformanceTest, UpdateExperimentChangesOnlySetFields) {
  ASSERT_TRUE(store().CreateExperiment(MakeExperiment("e")).ok());
  ExperimentUpdate u;
  u.phase = api::ExperimentPhase::kSucceeded;
  u.completion_time_ms = 9000;
  u.algorithm_state = "s1";
  ASSERT_TRUE(store().UpdateExperiment("e", u).ok());
  ExperimentUpdate u2;
  u2.message = "goal reached";
  ASSERT_TRUE(store().UpdateExperiment("e", u2).ok());

  auto got = store().GetExperiment("e");
  ASSERT_TRUE(got.ok());
  EXPECT_EQ(got->phase, api::ExperimentPhase::kSucceeded);
  EXPECT_EQ(got->completion_time_ms, 9000);
  EXPECT_EQ(got->algorithm_state, "s1");
  EXPECT_EQ(got->message, "goal reached");
  EXPECT_EQ(got->creation_time_ms, 1000);
  EXPECT_EQ(got->start_time_ms, 0);
}

TEST_P(StoreConformanceTest, MissingExperimentIsNotFoundEverywhere) {
  const std::string want = "experiment 'nope' not found";
  EXPECT_EQ(store().GetExperiment("nope").status().message(), want);
  Status s = store().UpdateExperiment("nope", ExperimentUpdate{});
  EXPECT_EQ(s.code(), StatusCode::kNotFound);
  EXPECT_EQ(s.message(), want);
  EXPECT_EQ(store().DeleteExperiment("nope").message(), want);
  EXPECT_EQ(store().CreateTrials("nope", {MakeTrial("t", "1")}, "").message(),
            want);
  EXPECT_EQ(store().ListTrials("nope").status().message(), want);
  EXPECT_EQ(store().ListUnreadableTrials("nope").status().code(),
            StatusCode::kNotFound);
  EXPECT_EQ(store().GetTrial("nope", "t").status().message(), want);
  EXPECT_EQ(store().UpdateTrial("nope", "t", {}).message(), want);
  EXPECT_EQ(store().AddObservations("nope", "t", {}).message(), want);
  EXPECT_EQ(store().ListObservations("nope", "t").status().code(),
            StatusCode::kNotFound);
  EXPECT_EQ(store().ListMetricCurves("nope", "loss").status().code(),
            StatusCode::kNotFound);
}

TEST_P(StoreConformanceTest, MissingTrialIsNotFoundNamingBoth) {
  ASSERT_TRUE(store().CreateExperiment(MakeExperiment("foo")).ok());
  const std::string want = "trial 'foo-3' not found in experiment 'foo'";
  EXPECT_EQ(store().GetTrial("foo", "foo-3").status().message(), want);
  Status s = store().UpdateTrial("foo", "foo-3", {});
  EXPECT_EQ(s.code(), StatusCode::kNotFound);
  EXPECT_EQ(s.message(), want);
  EXPECT_EQ(
      store().AddObservations("foo", "foo-3", {Obs(1, {{"a", 1}})}).message(),
      want);
  EXPECT_EQ(store().ListObservations("foo", "foo-3").status().message(), want);
}

TEST_P(StoreConformanceTest, DeleteExperimentTakesItsTrialsAndObservations) {
  for (const char* exp : {"gone", "kept"}) {
    ASSERT_TRUE(store().CreateExperiment(MakeExperiment(exp)).ok());
    ASSERT_TRUE(store().CreateTrials(exp, {MakeTrial("t1", "0.1")}, "s").ok());
    ASSERT_TRUE(
        store()
            .AddObservations(exp, "t1", {Obs(1, {{"loss", 1}, {"acc", 0}})})
            .ok());
  }
  ASSERT_TRUE(store().DeleteExperiment("gone").ok());
  EXPECT_EQ(store().GetExperiment("gone").status().code(),
            StatusCode::kNotFound);
  EXPECT_EQ(store().ListExperiments()->size(), 1u);
  EXPECT_EQ(store().ListObservations("kept", "t1")->size(), 1u);

  // The name is free again, with no leftovers.
  ASSERT_TRUE(store().CreateExperiment(MakeExperiment("gone")).ok());
  auto trials = store().ListTrials("gone");
  ASSERT_TRUE(trials.ok());
  EXPECT_TRUE(trials->empty());
  EXPECT_EQ(store().GetExperiment("gone")->algorithm_state, "");
  ASSERT_TRUE(store().CreateTrials("gone", {MakeTrial("t1", "0.2")}, "").ok());
  EXPECT_TRUE(store().ListObservations("gone", "t1")->empty());
  EXPECT_TRUE(store().GetTrial("gone", "t1")->metrics.empty());
}

TEST_P(StoreConformanceTest, CreateTrialsStoresTrialsAndAlgorithmState) {
  ASSERT_TRUE(store().CreateExperiment(MakeExperiment("e")).ok());
  api::Trial t = MakeTrial("e-1", "0.01");
  t.phase = api::TrialPhase::kRunning;
  t.pid = 4242;
  t.start_time_ms = 2500;
  ASSERT_TRUE(store()
                  .CreateTrials("e", {t, MakeTrial("e-2", "0.02")}, "bracket=1")
                  .ok());
  EXPECT_EQ(store().GetExperiment("e")->algorithm_state, "bracket=1");

  auto got = store().GetTrial("e", "e-1");
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
  EXPECT_EQ(store().GetTrial("e", "e-2")->phase, api::TrialPhase::kPending);

  // An empty batch still records the state (the algorithm may have moved on).
  ASSERT_TRUE(store().CreateTrials("e", {}, "bracket=2").ok());
  EXPECT_EQ(store().GetExperiment("e")->algorithm_state, "bracket=2");
}

TEST_P(StoreConformanceTest, AlgorithmStateRoundTripsThroughEveryWrite) {
  ASSERT_TRUE(store().CreateExperiment(MakeExperiment("e")).ok());
  const std::string binary("{\"k\":\0\xff\n}", 9);
  ASSERT_TRUE(store().CreateTrials("e", {MakeTrial("e-1", "1")}, binary).ok());
  EXPECT_EQ(store().GetExperiment("e")->algorithm_state, binary);
  ExperimentUpdate u;
  u.algorithm_state = std::string(100000, 's');
  ASSERT_TRUE(store().UpdateExperiment("e", u).ok());
  EXPECT_EQ(store().GetExperiment("e")->algorithm_state, *u.algorithm_state);
  // An update that does not name the state keeps it.
  ExperimentUpdate phase;
  phase.phase = api::ExperimentPhase::kRunning;
  ASSERT_TRUE(store().UpdateExperiment("e", phase).ok());
  EXPECT_EQ(store().ListExperiments()->at(0).algorithm_state,
            *u.algorithm_state);
}

TEST_P(StoreConformanceTest, DuplicateTrialRollsBackWholeBatch) {
  ASSERT_TRUE(store().CreateExperiment(MakeExperiment("e")).ok());
  ASSERT_TRUE(store().CreateTrials("e", {MakeTrial("e-1", "1")}, "s1").ok());

  Status s = store().CreateTrials(
      "e", {MakeTrial("e-2", "2"), MakeTrial("e-1", "3")}, "s2");
  EXPECT_EQ(s.code(), StatusCode::kAlreadyExists);
  EXPECT_EQ(s.message(), "trial 'e-1' already exists in experiment 'e'");
  s = store().CreateTrials("e", {MakeTrial("e-3", "2"), MakeTrial("e-3", "3")},
                           "s3");
  EXPECT_EQ(s.code(), StatusCode::kAlreadyExists);

  auto trials = store().ListTrials("e");
  ASSERT_TRUE(trials.ok());
  ASSERT_EQ(trials->size(), 1u);
  EXPECT_EQ((*trials)[0].assignment[0].value, "1");
  EXPECT_EQ(store().GetExperiment("e")->algorithm_state, "s1");

  // Trial names are unique per experiment only.
  ASSERT_TRUE(store().CreateExperiment(MakeExperiment("other")).ok());
  EXPECT_TRUE(store().CreateTrials("other", {MakeTrial("e-1", "1")}, "").ok());
}

TEST_P(StoreConformanceTest, ListTrialsInCreationOrderWithSummaries) {
  ASSERT_TRUE(store().CreateExperiment(MakeExperiment("e")).ok());
  ASSERT_TRUE(
      store()
          .CreateTrials("e", {MakeTrial("b", "1"), MakeTrial("a", "2")}, "")
          .ok());
  ASSERT_TRUE(store().CreateTrials("e", {MakeTrial("c", "3")}, "").ok());
  ASSERT_TRUE(store().AddObservations("e", "a", {Obs(1, {{"acc", 0.5}})}).ok());
  ASSERT_TRUE(store()
                  .AddObservations("e", "c",
                                   {Obs(1, {{"loss", 2}, {"acc", 0.1}}),
                                    Obs(2, {{"loss", 1}, {"acc", 0.3}})})
                  .ok());

  auto trials = store().ListTrials("e");
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

TEST_P(StoreConformanceTest, UpdateTrialChangesOnlySetFields) {
  ASSERT_TRUE(store().CreateExperiment(MakeExperiment("e")).ok());
  ASSERT_TRUE(store().CreateTrials("e", {MakeTrial("t", "1")}, "").ok());
  TrialUpdate start;
  start.phase = api::TrialPhase::kRunning;
  start.start_time_ms = 3000;
  start.pid = 77;
  ASSERT_TRUE(store().UpdateTrial("e", "t", start).ok());
  TrialUpdate done;
  done.phase = api::TrialPhase::kFailed;
  done.reason = "ExitCode";
  done.message = "boom";
  done.completion_time_ms = 4000;
  done.exit_code = 3;
  ASSERT_TRUE(store().UpdateTrial("e", "t", done).ok());

  auto got = store().GetTrial("e", "t");
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

TEST_P(StoreConformanceTest, UpdateTrialReplacesTheAssignmentOnlyWhenGiven) {
  // Define-by-run: a parameter joins a trial's assignment when the trial
  // asks for it, and one it never asked for leaves it on completion.
  ASSERT_TRUE(store().CreateExperiment(MakeExperiment("e")).ok());
  ASSERT_TRUE(store().CreateTrials("e", {MakeTrial("t", "1")}, "").ok());
  auto before = store().GetTrial("e", "t");
  ASSERT_TRUE(before.ok());
  TrialUpdate grow;
  grow.assignment = before->assignment;
  grow.assignment->push_back({"units_0", "32"});
  ASSERT_TRUE(store().UpdateTrial("e", "t", grow).ok());
  TrialUpdate other;
  other.message = "unchanged assignment";
  ASSERT_TRUE(store().UpdateTrial("e", "t", other).ok());
  auto got = store().GetTrial("e", "t");
  ASSERT_TRUE(got.ok());
  ASSERT_EQ(got->assignment.size(), before->assignment.size() + 1);
  EXPECT_EQ(got->assignment.back().name, "units_0");
  EXPECT_EQ(got->assignment.back().value, "32");
  TrialUpdate shrink;
  shrink.assignment = api::Assignment{};
  ASSERT_TRUE(store().UpdateTrial("e", "t", shrink).ok());
  got = store().GetTrial("e", "t");
  ASSERT_TRUE(got.ok());
  EXPECT_TRUE(got->assignment.empty());
}

TEST_P(StoreConformanceTest, UpdateTrialAddsItsObservationsInTheSameWrite) {
  ASSERT_TRUE(store().CreateExperiment(MakeExperiment("e")).ok());
  ASSERT_TRUE(store().CreateTrials("e", {MakeTrial("t", "1")}, "").ok());
  ASSERT_TRUE(store().AddObservations("e", "t", {{0, 10, {{"loss", 0.5}}}}).ok());
  TrialUpdate done;
  done.phase = api::TrialPhase::kSucceeded;
  done.observations = {{1, 20, {{"loss", 0.25}, {"acc", 0.9}}}};
  ASSERT_TRUE(store().UpdateTrial("e", "t", done).ok());
  auto got = store().GetTrial("e", "t");
  ASSERT_TRUE(got.ok());
  EXPECT_EQ(got->phase, api::TrialPhase::kSucceeded);
  ASSERT_EQ(got->metrics.size(), 2u);
  for (const auto& m : got->metrics) {
    if (m.name == "loss") {
      EXPECT_EQ(m.latest, 0.25);
      EXPECT_EQ(m.max, 0.5);
    } else {
      EXPECT_EQ(m.name, "acc");
      EXPECT_EQ(m.latest, 0.9);
    }
  }
  auto obs = store().ListObservations("e", "t");
  ASSERT_TRUE(obs.ok());
  ASSERT_EQ(obs->size(), 2u);
  EXPECT_EQ((*obs)[1].step, 1);

  // Nothing of a refused update is kept: a missing trial changes nothing.
  TrialUpdate stray;
  stray.phase = api::TrialPhase::kFailed;
  stray.observations = {{5, 30, {{"loss", 9}}}};
  EXPECT_EQ(store().UpdateTrial("e", "nope", stray).code(), StatusCode::kNotFound);
  EXPECT_EQ(store().ListObservations("e", "t")->size(), 2u);
}

TEST_P(StoreConformanceTest, JobIdRoundTrips) {
  ASSERT_TRUE(store().CreateExperiment(MakeExperiment("e")).ok());
  api::Trial created = MakeTrial("t1", "1");
  created.job_id = "local:boot=abc;start=123;pgid=9";
  ASSERT_TRUE(
      store().CreateTrials("e", {created, MakeTrial("t2", "2")}, "").ok());
  EXPECT_EQ(store().GetTrial("e", "t1")->job_id, created.job_id);
  EXPECT_EQ(store().GetTrial("e", "t2")->job_id, "");

  TrialUpdate u;
  u.job_id = "slurm:4711";
  u.pid = 0;
  ASSERT_TRUE(store().UpdateTrial("e", "t2", u).ok());
  TrialUpdate other;
  other.reason = "Running";
  ASSERT_TRUE(store().UpdateTrial("e", "t2", other).ok());  // keeps it
  auto trials = store().ListTrials("e");
  ASSERT_TRUE(trials.ok());
  ASSERT_EQ(trials->size(), 2u);
  EXPECT_EQ((*trials)[0].job_id, created.job_id);
  EXPECT_EQ((*trials)[1].job_id, "slurm:4711");
}

TEST_P(StoreConformanceTest, PreemptionsRoundTrip) {
  ASSERT_TRUE(store().CreateExperiment(MakeExperiment("e")).ok());
  api::Trial created = MakeTrial("t1", "1");
  created.preemptions = 1;
  ASSERT_TRUE(store().CreateTrials("e", {created, MakeTrial("t2", "2")}, "").ok());
  EXPECT_EQ(store().GetTrial("e", "t1")->preemptions, 1);
  EXPECT_EQ(store().GetTrial("e", "t2")->preemptions, 0);
  TrialUpdate u;
  u.preemptions = 3;
  u.phase = api::TrialPhase::kPending;
  ASSERT_TRUE(store().UpdateTrial("e", "t2", u).ok());
  TrialUpdate other;
  other.reason = "Preempted";
  ASSERT_TRUE(store().UpdateTrial("e", "t2", other).ok());  // keeps it
  EXPECT_EQ(store().GetTrial("e", "t2")->preemptions, 3);
}

TEST_P(StoreConformanceTest, EverythingSurvivesReopen) {
  api::Experiment e = MakeExperiment("e");
  e.algorithm_state = "state";
  ASSERT_TRUE(store().CreateExperiment(e).ok());
  api::Trial t = MakeTrial("t", "0.5");
  t.job_id = "job-1";
  ASSERT_TRUE(store().CreateTrials("e", {t}, "state-2").ok());
  TrialUpdate done;
  done.phase = api::TrialPhase::kSucceeded;
  done.exit_code = 0;
  ASSERT_TRUE(store().UpdateTrial("e", "t", done).ok());
  ASSERT_TRUE(
      store().AddObservations("e", "t", {Obs(3, {{"accuracy", 0.9}})}).ok());

  backend_->Reopen();
  auto exp = store().GetExperiment("e");
  ASSERT_TRUE(exp.ok()) << exp.status().ToString();
  EXPECT_EQ(exp->algorithm_state, "state-2");
  auto got = store().GetTrial("e", "t");
  ASSERT_TRUE(got.ok());
  EXPECT_EQ(got->phase, api::TrialPhase::kSucceeded);
  EXPECT_EQ(got->exit_code, 0);
  EXPECT_EQ(got->job_id, "job-1");
  ASSERT_NE(FindMetric(*got, "accuracy"), nullptr);
  EXPECT_EQ(FindMetric(*got, "accuracy")->latest, 0.9);
  EXPECT_EQ(store().ListObservations("e", "t")->size(), 1u);
}

}  // namespace
}  // namespace hpt::storage::testing
