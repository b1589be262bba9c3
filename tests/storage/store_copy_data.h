#pragma once
// A source store for the copy suite (store_copy_suite.h) with a value in
// every field the interface writes: namespaces with quotas (one holding
// more experiments than its quota, lowered since), users with roles and key
// hashes, experiments in four phases with binary algorithm state, a queue,
// user attributes and a token salt, trials in every kind of state with
// NaN, multi-metric, tied-step and text observations, and an audit log.

#include <gtest/gtest.h>

#include <cmath>
#include <string>
#include <vector>

#include "storage/store.h"
#include "storage/store_copy.h"
#include "tests/storage/store_test_util.h"

namespace hpt::storage::testing {

// What FillSource writes.
inline StoreCounts FilledCounts() {
  StoreCounts c;
  c.namespaces = 3;
  c.users = 2;
  c.experiments = 4;
  c.trials = 7;
  c.observations = 27;
  c.audit_entries = 5;
  return c;
}

inline api::Experiment ExperimentIn(const std::string& ns, const std::string& name,
                                    api::ExperimentPhase phase, int64_t created) {
  api::Experiment e = MakeExperiment(name);
  e.spec.namespace_name = ns;
  e.phase = phase;
  e.creation_time_ms = created;
  return e;
}

inline void FillSource(Store& s) {
  api::Namespace a;
  a.name = "team-a";
  a.weight = 2;
  a.quota.gpu = 4;
  a.quota.memory = int64_t{64} << 30;
  a.quota.running_trials = 8;
  a.guaranteed = {1, 2, int64_t{8} << 30};
  a.run_as_user = "team-a";
  a.slurm_account = "ml:high";
  a.creation_time_ms = 1234;
  api::Namespace b;
  b.name = "team-b";
  b.quota.cpu = 16;
  b.quota.experiments = 5;
  b.creation_time_ms = 2345;
  ASSERT_TRUE(s.CreateNamespace(a).ok());
  ASSERT_TRUE(s.CreateNamespace(b).ok());
  auto d = s.GetNamespace("default");
  ASSERT_TRUE(d.ok());
  d->weight = 3;
  d->quota.running_trials = 5;
  ASSERT_TRUE(s.UpdateNamespace(*d).ok());

  api::User ann{
      "ann", false, {{"team-a", api::Role::kMember}, {"team-b", api::Role::kViewer}}, 111};
  api::User bob{"bob", true, {}, 222};
  ASSERT_TRUE(s.CreateUser(ann, std::string(64, 'a')).ok());
  ASSERT_TRUE(s.CreateUser(bob, std::string(64, 'b')).ok());

  api::Experiment run = ExperimentIn("default", "e-run", api::ExperimentPhase::kRunning, 1000);
  run.reason = "ExperimentRunning";
  run.message = "3 trials running";
  run.start_time_ms = 1500;
  run.algorithm_state = std::string("\0\x01state\xff", 8);
  run.queue = {{{"lr", "0.01"}, {"optimizer", "sgd"}}};
  run.trial_token_salt = "salt-1";
  run.user_attrs = {{"owner", "\"ann\""}};
  api::Experiment done = ExperimentIn("team-a", "e-done", api::ExperimentPhase::kSucceeded, 1100);
  done.spec.objective.more_objectives = {{"latency", api::ObjectiveType::kMinimize}};
  done.completion_time_ms = 9000;
  api::Experiment fail = ExperimentIn("team-b", "e-fail", api::ExperimentPhase::kFailed, 1300);
  fail.reason = "MaxFailedTrialsReached";
  for (const api::Experiment& e :
       {run, done, ExperimentIn("team-a", "e-second", api::ExperimentPhase::kCreated, 1200),
        fail}) {
    ASSERT_TRUE(s.CreateExperiment(e).ok()) << api::KeyOf(e.spec);
  }
  a.quota.experiments = 1;  // holds 2
  ASSERT_TRUE(s.UpdateNamespace(a).ok());

  api::Trial t1 = MakeTrial("e-run-1", "0.01");
  t1.phase = api::TrialPhase::kSucceeded;
  t1.start_time_ms = 2100;
  t1.completion_time_ms = 2900;
  t1.exit_code = 0;
  t1.pid = 4242;
  t1.job_id = "local:4242:abc";
  t1.preemptions = 2;
  t1.user_attrs = {{"note", "\"fine\""}};
  api::Trial t2 = MakeTrial("e-run-2", "0.02");
  t2.phase = api::TrialPhase::kRunning;
  t2.start_time_ms = 2200;
  t2.pid = 4343;
  t2.creation_time_ms = 2010;
  api::Trial t3 = MakeTrial("e-run-3", "0.03");
  t3.phase = api::TrialPhase::kFailed;
  t3.reason = "ExitCode";
  t3.message = "Traceback (most recent call last): ...";
  t3.exit_code = 1;
  api::Trial t4 = MakeTrial("e-run-4", "0.04");
  t4.assignment.push_back({"width", "64"});  // defined by run
  NewTrials batch;                           // the experiment's binary state stays
  batch.trials = {t1, t2, t3, t4};
  ASSERT_TRUE(s.AddTrials("e-run", batch).ok());
  ASSERT_TRUE(s.AddObservations(
                   "e-run", "e-run-1",
                   {Obs(1, {{"loss", 0.5}, {"acc", 0.7}}, 1001), Obs(2, {{"loss", NAN}}, 1002)})
                  .ok());
  ASSERT_TRUE(s.AddObservations("e-run", "e-run-1", {Obs(2, {{"loss", 0.3}}, 1003)}).ok());
  api::Observation genotype = Obs(3, {{"loss", 0.2}}, 1004);
  genotype.texts = {{"Best-Genotype", "Genotype(normal=[[('a', 0)]])"}};
  ASSERT_TRUE(s.AddObservations("e-run", "e-run-1", {genotype}).ok());
  std::vector<api::Observation> curve;
  for (int step = 1; step <= 20; ++step)
    curve.push_back(Obs(step, {{"loss", 1.0 / step}}, 3000 + step));
  ASSERT_TRUE(s.AddObservations("e-run", "e-run-2", curve).ok());
  ASSERT_TRUE(s.AddObservations("e-run", "e-run-3", {Obs(1, {{"loss", NAN}}, 4000)}).ok());

  api::Trial d1 = MakeTrial("e-done-1", "0.05");
  d1.phase = api::TrialPhase::kSucceeded;
  api::Trial d2 = MakeTrial("e-done-2", "0.06");
  d2.phase = api::TrialPhase::kKilled;
  d2.reason = "Stopped";
  ASSERT_TRUE(s.CreateTrials("team-a/e-done", {d1, d2}, "done-state").ok());
  ASSERT_TRUE(s.AddObservations("team-a/e-done", "e-done-1",
                                {Obs(1, {{"accuracy", 0.9}, {"latency", 12}}, 5000)})
                  .ok());
  api::Trial f1 = MakeTrial("e-fail-1", "0.07");
  f1.phase = api::TrialPhase::kFailed;
  f1.exit_code = 137;
  ASSERT_TRUE(s.CreateTrials("team-b/e-fail", {f1}, "").ok());
  ASSERT_TRUE(
      s.AddObservations("team-b/e-fail", "e-fail-1", {Obs(1, {{"accuracy", 0.1}}, 6000)}).ok());
  api::Observation note;  // outputs without a metric
  note.texts = {{"note", "out of memory"}};
  ASSERT_TRUE(s.AddObservations("team-b/e-fail", "e-fail-1", {note}).ok());

  std::vector<AuditEntry> audit;
  for (int i = 0; i < 5; ++i) {
    AuditEntry e;
    e.time_ms = 7000 + i;
    e.actor = i % 2 ? "user:ann" : "admin";
    e.method = i == 4 ? "DELETE" : "POST";
    e.path = "/api/v1/namespaces/team-a/experiments/e" + std::to_string(i);
    e.status = i == 3 ? 403 : 201;
    e.detail = i == 3 ? "ann is a viewer in team-a" : "";
    audit.push_back(e);
  }
  ASSERT_TRUE(s.AppendAudit(audit).ok());
}

}  // namespace hpt::storage::testing
