// The copy suite (store_copy_suite.h): CopyStore copies every row and
// field, CompareStores finds every kind of difference, and a target that
// is not empty or a source with unreadable rows is refused before anything
// is written.

#include "storage/store_copy.h"

#include <gtest/gtest.h>

#include <cmath>
#include <string>
#include <vector>

#include "storage/store_compare.h"
#include "tests/storage/store_copy_data.h"
#include "tests/storage/store_copy_suite.h"

namespace hpt::storage::testing {
namespace {

std::string Joined(const std::vector<std::string>& lines) {
  std::string out;
  for (const std::string& line : lines) out += line + "\n";
  return out;
}

StoreComparison Compare(Store& a, Store& b, int max = 200) {
  CompareOptions options;
  options.max_differences = max;
  auto comparison = CompareStores(a, b, options);
  EXPECT_TRUE(comparison.ok()) << comparison.status().ToString();
  return comparison.ok() ? *comparison : StoreComparison{};
}

TEST_P(StoreCopyTest, CopiesEveryRowAndFieldAndComparesEqual) {
  ASSERT_NO_FATAL_FAILURE(FillSource(from()));
  CopyOptions options;
  options.max_batch_trials = 2;  // several transactions per experiment
  std::vector<int64_t> done;
  options.progress = [&](const CopyProgress& p) {
    EXPECT_EQ(p.experiments_total, 4);
    done.push_back(p.experiments_done);
  };
  auto copied = CopyStore(from(), to(), options);
  ASSERT_TRUE(copied.ok()) << copied.status().ToString();
  EXPECT_EQ(copied->copied, FilledCounts());
  EXPECT_TRUE(copied->skipped.empty());
  EXPECT_EQ(done, (std::vector<int64_t>{1, 2, 3, 4}));
  EXPECT_EQ(DescribeCounts(copied->copied),
            "3 namespaces, 2 users, 4 experiments, 7 trials, 27 observations, 5 audit entries");

  to_->Reopen();  // durable, as any write
  StoreComparison comparison = Compare(from(), to());
  EXPECT_TRUE(comparison.equal()) << Joined(comparison.differences);
  EXPECT_EQ(comparison.compared, FilledCounts());

  // Read back directly too, not only through the comparison.
  auto run = to().GetExperiment("e-run");
  ASSERT_TRUE(run.ok()) << run.status().ToString();
  EXPECT_EQ(run->algorithm_state, std::string("\0\x01state\xff", 8));
  EXPECT_EQ(run->trial_token_salt, "salt-1");
  EXPECT_EQ(run->phase, api::ExperimentPhase::kRunning);
  ASSERT_EQ(run->queue.size(), 1u);
  auto t1 = to().GetTrial("e-run", "e-run-1");
  ASSERT_TRUE(t1.ok());
  EXPECT_EQ(t1->index, 1);
  EXPECT_EQ(t1->exit_code, 0);
  EXPECT_EQ(t1->preemptions, 2);
  EXPECT_EQ(t1->job_id, "local:4242:abc");
  EXPECT_EQ(t1->outputs.at("Best-Genotype"), "Genotype(normal=[[('a', 0)]])");
  const api::MetricSummary* loss = FindMetric(*t1, "loss");
  ASSERT_NE(loss, nullptr);
  EXPECT_EQ(loss->min, 0.2);
  EXPECT_EQ(loss->latest, 0.2);
  auto obs = to().ListObservations("e-run", "e-run-1");
  ASSERT_TRUE(obs.ok());
  ASSERT_EQ(obs->size(), 4u);
  EXPECT_TRUE(std::isnan((*obs)[1].metrics.at("loss")));
  EXPECT_EQ((*obs)[2].metrics.at("loss"), 0.3);
  EXPECT_EQ((*obs)[2].timestamp_ms, 1003);
  EXPECT_EQ(to().GetTrial("team-b/e-fail", "e-fail-1")->outputs.at("note"), "out of memory");
  EXPECT_EQ(to().GetTrial("e-run", "e-run-4")->index, 4);
  auto users = to().ListUsers();
  ASSERT_EQ(users->size(), 2u);
  EXPECT_EQ((*users)[0].key_hash, std::string(64, 'a'));
  // The quota holds again, over the two experiments it had let in.
  auto team_a = to().GetNamespace("team-a");
  ASSERT_TRUE(team_a.ok());
  EXPECT_EQ(team_a->quota.experiments, 1);
  EXPECT_EQ(*to().CountExperiments("team-a"), 2);
  EXPECT_EQ(to().GetNamespace("default")->weight, 3);
  auto audit = to().ListAudit({});
  ASSERT_EQ(audit->size(), 5u);
  EXPECT_EQ((*audit)[3].detail, "ann is a viewer in team-a");
  EXPECT_EQ((*audit)[3].id, (*from().ListAudit({}))[3].id);
}

TEST_P(StoreCopyTest, CompareNamesEachFieldChangedInTheCopy) {
  ASSERT_NO_FATAL_FAILURE(FillSource(from()));
  ASSERT_TRUE(CopyStore(from(), to()).ok());

  TrialUpdate trial;
  trial.phase = api::TrialPhase::kKilled;
  trial.reason = "Stopped";
  trial.message = "changed";
  trial.start_time_ms = 1;
  trial.completion_time_ms = 2;
  trial.exit_code = 9;
  trial.pid = 1;
  trial.job_id = "j";
  trial.preemptions = 7;
  trial.assignment = api::Assignment{{"lr", "0.5"}, {"optimizer", "adam"}};
  trial.user_attrs = std::map<std::string, std::string>{{"x", "1"}};
  trial.observations = {Obs(99, {{"loss", 7}}, 1)};
  ASSERT_TRUE(to().UpdateTrial("e-run", "e-run-2", trial).ok());
  ExperimentUpdate experiment;
  experiment.phase = api::ExperimentPhase::kStopped;
  experiment.reason = "Stopped";
  experiment.message = "changed";
  experiment.start_time_ms = 1;
  experiment.completion_time_ms = 2;
  experiment.algorithm_state = "other";
  api::ExperimentSpec spec = to().GetExperiment("team-a/e-done")->spec;
  spec.max_trial_count = 99;
  experiment.spec = spec;
  experiment.queue = std::vector<api::Assignment>{{{"lr", "0.9"}}};
  experiment.user_attrs = std::map<std::string, std::string>{{"k", "2"}};
  ASSERT_TRUE(to().UpdateExperiment("team-a/e-done", experiment).ok());
  api::Namespace b = *to().GetNamespace("team-b");
  b.weight = 5;
  ASSERT_TRUE(to().UpdateNamespace(b).ok());
  ASSERT_TRUE(to().DeleteUser("bob").ok());
  ASSERT_TRUE(to().CreateExperiment(MakeExperiment("e-extra")).ok());
  AuditEntry extra;
  extra.actor = "admin";
  ASSERT_TRUE(to().AppendAudit({extra}).ok());

  StoreComparison comparison = Compare(from(), to());
  const std::string all = Joined(comparison.differences);
  const std::string t = "experiment 'e-run' trial 'e-run-2': ";
  const std::string e = "experiment 'team-a/e-done': ";
  for (const std::string& expected : {t + "phase: \"Running\" in a, \"Killed\" in b",
                                      t + "reason: ",
                                      t + "message: ",
                                      t + "startTimeMs: 2200 in a, 1 in b",
                                      t + "completionTimeMs: ",
                                      t + "exitCode: null in a, 9 in b",
                                      t + "pid: ",
                                      t + "jobId: ",
                                      t + "preemptions: ",
                                      t + "assignment[0][1]: \"0.02\" in a, \"0.5\" in b",
                                      t + "userAttrs.x: only in b",
                                      t + "20 observations in a, 21 in b",
                                      t + "metrics.loss.max: 1.0 in a, 7.0 in b",
                                      e + "phase: ",
                                      e + "reason: ",
                                      e + "message: ",
                                      e + "startTimeMs: ",
                                      e + "completionTimeMs: ",
                                      e + "algorithmState: ",
                                      e + "spec.maxTrialCount: 12 in a, 99 in b",
                                      e + "queue: [] in a, ",
                                      e + "userAttrs.k: only in b",
                                      std::string("namespace 'team-b': weight: 1.0 in a, 5.0 in b"),
                                      std::string("user 'bob': only in a"),
                                      std::string("experiment 'e-extra': only in b"),
                                      std::string("audit: 1 entries after id 5 only in b")}) {
    EXPECT_NE(all.find(expected), std::string::npos) << "missing: " << expected << "\nin:\n" << all;
  }
  EXPECT_EQ(comparison.difference_count, static_cast<int64_t>(comparison.differences.size()));

  StoreComparison first_two = Compare(from(), to(), 2);
  EXPECT_EQ(first_two.differences.size(), 2u);
  EXPECT_EQ(first_two.difference_count, comparison.difference_count);
}

TEST_P(StoreCopyTest, CompareTellsNaNFromANumber) {
  for (Store* s : {&from(), &to()}) {
    ASSERT_TRUE(s->CreateExperiment(MakeExperiment("e")).ok());
    ASSERT_TRUE(s->CreateTrials("e", {MakeTrial("t", "0.1")}, "").ok());
  }
  ASSERT_TRUE(from().AddObservations("e", "t", {Obs(1, {{"loss", NAN}}, 5)}).ok());
  ASSERT_TRUE(to().AddObservations("e", "t", {Obs(1, {{"loss", 0.5}}, 5)}).ok());
  const std::string all = Joined(Compare(from(), to()).differences);
  EXPECT_NE(
      all.find(
          "experiment 'e' trial 't': observation 1 (step 1): metrics.loss: NaN in a, 0.5 in b"),
      std::string::npos)
      << all;
  EXPECT_NE(all.find("experiment 'e' trial 't': metrics.loss.latest: NaN in a, 0.5 in b"),
            std::string::npos)
      << all;
}

TEST_P(StoreCopyTest, RefusesATargetThatHoldsAnythingAndWritesNothing) {
  ASSERT_NO_FATAL_FAILURE(FillSource(from()));
  ASSERT_TRUE(to().CreateExperiment(MakeExperiment("mine")).ok());
  auto refused = CopyStore(from(), to());
  ASSERT_EQ(refused.status().code(), StatusCode::kFailedPrecondition);
  EXPECT_EQ(refused.status().message(), "target: holds 1 experiment; copy into an empty database");
  EXPECT_EQ(to().ListExperiments()->size(), 1u);
  EXPECT_EQ(to().ListNamespaces()->size(), 1u);
  EXPECT_TRUE(to().ListUsers()->empty());
  EXPECT_TRUE(to().ListAudit({})->empty());
  EXPECT_EQ(to().GetNamespace("default")->weight, 1);

  // Each kind of row alone is enough; all of them are named.
  auto user_only = NewTarget();
  ASSERT_TRUE(user_only->store().CreateUser({"zed", false, {}, 1}, "ff").ok());
  EXPECT_EQ(CopyStore(from(), user_only->store()).status().message(),
            "target: holds 1 user; copy into an empty database");
  auto everything = NewTarget();
  Store& full = everything->store();
  ASSERT_TRUE(full.CreateNamespace({.name = "ns"}).ok());
  ASSERT_TRUE(full.CreateExperiment(MakeExperiment("x")).ok());
  ASSERT_TRUE(full.CreateExperiment(MakeExperiment("y")).ok());
  ASSERT_TRUE(full.CreateUser({"zed", false, {}, 1}, "ff").ok());
  ASSERT_TRUE(full.AppendAudit({AuditEntry{}}).ok());
  EXPECT_EQ(CopyStore(from(), full).status().message(),
            "target: holds 2 experiments, 1 user, 1 namespace besides default and an audit log; "
            "copy into an empty database");
  EXPECT_EQ(full.ListUsers()->size(), 1u);
}

TEST_P(StoreCopyTest, UnreadableRowsFailTheCopyUnlessSkipped) {
  ASSERT_NO_FATAL_FAILURE(FillSource(from()));
  from_->DamageExperiment("team-b/e-fail");
  from_->DamageTrial("e-run", "e-run-2");
  CopyOptions options;
  options.from_label = "FROM";
  auto refused = CopyStore(from(), to(), options);
  ASSERT_EQ(refused.status().code(), StatusCode::kFailedPrecondition);
  const std::string& message = refused.status().message();
  EXPECT_EQ(message.rfind("FROM: holds 2 rows that cannot be read (", 0), 0u) << message;
  EXPECT_NE(message.find("experiment 'team-b/e-fail' cannot be read"), std::string::npos)
      << message;
  EXPECT_NE(message.find("experiment 'e-run': trial 'e-run-2' cannot be read"), std::string::npos)
      << message;
  EXPECT_NE(message.find("--skip-unreadable"), std::string::npos) << message;
  EXPECT_TRUE(CheckEmpty(to(), "target").ok());  // nothing written

  options.skip_unreadable = true;
  auto copied = CopyStore(from(), to(), options);
  ASSERT_TRUE(copied.ok()) << copied.status().ToString();
  EXPECT_EQ(copied->skipped.size(), 2u) << Joined(copied->skipped);
  EXPECT_EQ(copied->copied.experiments, 3);
  EXPECT_EQ(copied->copied.trials, 5);
  // The trial after the one left out keeps its index: the gap stays.
  EXPECT_EQ(to().GetTrial("e-run", "e-run-3")->index, 3);
  StoreComparison comparison = Compare(from(), to());
  EXPECT_TRUE(comparison.equal()) << Joined(comparison.differences);
}

}  // namespace
}  // namespace hpt::storage::testing
