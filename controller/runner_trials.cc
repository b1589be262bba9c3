// ExperimentRunner's runner-run trials: starting trials up to
// parallelTrialCount, and what the executor reports.
#include <spdlog/spdlog.h>

#include <algorithm>

#include "api/experiment_status.h"
#include "api/quantity.h"
#include "api/trial_template.h"
#include "controller/experiment_runner.h"
#include "controller/trial_token.h"

namespace hpt::controller {

using api::ExperimentPhase;
using api::Trial;
using api::TrialPhase;

void ExperimentRunner::Reconcile() {
  std::lock_guard<std::mutex> lock(mu_);
  waiting_for_resources_ = false;
  dirty_ = false;
  // Nothing new starts, and the experiment does not end, before the store
  // holds what already happened.
  if (!FlushUnwrittenLocked()) return;
  RetryRecoveryLocked();  // whatever the phase: a stopped trial's job may run
  if (exp_.phase != ExperimentPhase::kRunning || !executor()) return;
  // A client-run experiment is here when the sweep retries its end or a
  // lease runs out.
  if (!runner_run_) ExpireLeasesLocked();
  if (FinishIfDoneLocked() || !runner_run_) return;
  for (Trial& t : trials_) {
    // A Pending trial with a job waits in a cluster's queue: started
    // already. One whose recovery is pending may have a job unseen yet.
    if (t.phase == TrialPhase::kPending && t.job_id.empty() && !recovery_pending_.count(t.name) &&
        !StartTrialLocked(t)) {
      return;
    }
  }
  // Trials that cannot start at all (StartFailed) end at once: no exit
  // will come to reconcile again, so their room is filled here, until the
  // budget, the failure limit or the room runs out.
  while (true) {
    const api::TrialCounts counts = tally_.Counts(trials_);
    int room = exp_.spec.parallel_trial_count - counts.active();
    int budget = exp_.spec.max_trial_count - counts.run();
    int count = std::min(room, budget);
    if (count <= 0 || exhausted_) break;
    bool store_failed = false;
    auto created = CreateTrialsLocked(count, TrialPhase::kPending, &store_failed);
    if (!created.ok()) {
      if (store_failed) return;  // logged; the sweep asks again
      FinishLocked(ExperimentPhase::kFailed, "AlgorithmFailed", created.status().message());
      return;
    }
    if (created->empty()) break;
    bool all_ended = true;
    for (const Trial& c : *created) {
      Trial& t = *FindLocked(c.name);
      if (!StartTrialLocked(t)) return;  // waits for resources
      all_ended = all_ended && api::IsFinished(t.phase);
    }
    if (!all_ended || FinishIfDoneLocked()) return;
  }
  FinishIfDoneLocked();
}

runner::LaunchSpec ExperimentRunner::BaseLaunchSpecLocked(const Trial& trial) const {
  const api::TrialTemplate& tmpl = *exp_.spec.trial_template;
  runner::LaunchSpec launch;
  launch.experiment = name_;
  launch.trial = trial.name;
  launch.working_dir = tmpl.working_dir;
  launch.log_path = LogPath(trial.name);
  launch.max_log_bytes = deps_.max_log_bytes;
  launch.timeout_seconds = tmpl.timeout_seconds;
  launch.collector = exp_.spec.metrics_collector;
  launch.resources = tmpl.resources;
  for (const api::ObjectiveMetric& m : api::Objectives(exp_.spec.objective)) {
    launch.metric_names.push_back(m.metric_name);
  }
  for (const auto& m : exp_.spec.objective.additional_metric_names) {
    launch.metric_names.push_back(m);
  }
  return launch;
}

namespace {
// The reason of a Pending trial the executor has no room for yet.
constexpr char kWaiting[] = "WaitingForResources";
// ... and of one submitted to a cluster that has not run it yet.
constexpr char kQueued[] = "QueuedInCluster";
}  // namespace

std::string ExperimentRunner::TrialTokenFor(const std::string& trial) const {
  if (!runner_run_ || deps_.token.empty()) return "";
  return TrialToken(deps_.token, name_, trial_token_salt_, trial);
}

bool ExperimentRunner::StartTrialLocked(Trial& trial) {
  const api::TrialTemplate& tmpl = *exp_.spec.trial_template;
  runner::LaunchSpec launch = BaseLaunchSpecLocked(trial);
  Status status;
  // An argument or variable that references an inactive conditional
  // parameter is left out (api::SubstituteActive).
  const std::vector<api::ParameterSpec>& params = exp_.spec.parameters;
  for (const auto& arg : tmpl.command) {
    auto s = api::SubstituteActive(arg, params, tmpl, trial.assignment, trial.name);
    if (!s.ok()) status = s.status(); else if (*s) launch.argv.push_back(**s);
  }
  for (const auto& [key, value] : tmpl.env) {
    auto s = api::SubstituteActive(value, params, tmpl, trial.assignment, trial.name);
    if (!s.ok()) status = s.status(); else if (*s) launch.env[key] = **s;
  }
  AddCheckpointLocked(trial, launch);
  if (!launch.argv.empty() && launch.argv[0] == "hpt" && !deps_.hpt_binary.empty()) {
    launch.argv[0] = deps_.hpt_binary;
  }
  launch.env["HPT_URL"] = deps_.server_url;
  launch.env["HPT_EXPERIMENT"] = name_;
  launch.env["HPT_TRIAL"] = trial.name;
  // A credential for this trial alone: the admin token never leaves the
  // server. (A token the server itself was started with must not reach
  // the trial either, when there is no trial token to replace it.)
  launch.env["HPT_TOKEN"] = TrialTokenFor(trial.name);

  StatusOr<runner::JobHandle> job =
      status.ok() ? executor()->Start(launch) : StatusOr<runner::JobHandle>(status);
  if (job.status().code() == StatusCode::kUnavailable) {
    waiting_for_resources_ = true;  // stays Pending; the sweep retries
    // Every Pending trial of the experiment (they share the template) says
    // what it waits for ("waiting for 1 GPU (0 of 2 free)"), written only
    // when that changes.
    for (Trial& t : trials_) {
      if (t.phase != TrialPhase::kPending) continue;
      if (t.reason == kWaiting && t.message == job.status().message()) continue;
      storage::TrialUpdate waiting;
      waiting.reason = kWaiting;
      waiting.message = job.status().message();
      (void)UpdateTrialLocked(t, waiting);  // logged there; said again next time
    }
    return false;
  }
  storage::TrialUpdate update;
  update.start_time_ms = api::NowMillis();
  if (trial.reason == kWaiting) {
    update.reason = "";
    update.message = "";
  }
  if (job.ok() && job->queued) {
    // Submitted: Pending until the cluster runs it (OnRunning), saying so.
    update.start_time_ms.reset();
    update.reason = kQueued;
    update.message = "queued in the cluster (job " + job->id + ")";
    update.job_id = job->id;
  } else if (job.ok()) {
    update.phase = TrialPhase::kRunning;
    update.pid = job->pid;
    update.job_id = job->id;
  } else {
    update.phase = TrialPhase::kFailed;
    update.reason = "StartFailed";
    update.message = job.status().message();
    update.completion_time_ms = update.start_time_ms;
  }
  RecordTrialLocked(trial, update);  // the job runs, stored or not
  return true;
}

void ExperimentRunner::OnObservation(const std::string& trial,
                                     const api::Observation& observation) {
  std::lock_guard<std::mutex> lock(mu_);
  Trial* t = FindLocked(trial);
  if (!t) return;  // deleted meanwhile
  api::Observation fresh = observation;
  if (auto replay = replay_pending_.find(trial); replay != replay_pending_.end()) {
    // Stored before the restart: the same step and values, met once each
    // (a step's metrics on lines of their own are more observations, not
    // replays). Texts are merged by name, so storing them again is harmless.
    std::vector<api::Observation>& stored = replay->second;
    auto same = std::find_if(stored.begin(), stored.end(), [&](const api::Observation& o) {
      return o.step == observation.step && o.metrics == observation.metrics;
    });
    if (same != stored.end() && !observation.metrics.empty()) {
      stored.erase(same);
      if (stored.empty()) replay_pending_.erase(replay);
      fresh.metrics.clear();
      if (fresh.texts.empty()) return;
    }
  }
  if (ended_leftovers_.count(trial)) return;  // printed after its end
  if (StoreObservationLocked(*t, fresh)) StopIfHopelessLocked(*t);
}

namespace {
// Held observations per trial while the store refuses them (a full disk):
// past this many the newest are dropped, with an error.
constexpr size_t kMaxHeldObservations = 100000;
}  // namespace

bool ExperimentRunner::StoreObservationLocked(Trial& trial, const api::Observation& o) {
  std::vector<api::Observation>& held = unwritten_observations_[trial.name];
  if (held.size() >= kMaxHeldObservations) {
    spdlog::error("experiment {}: {} observations of {} wait for the store; one more dropped",
                  name_, held.size(), trial.name);
    return false;
  }
  held.push_back(o);
  return FlushObservationsLocked(trial);
}

std::vector<api::MetricSummary> ExperimentRunner::WithHeldLocked(const Trial& trial) const {
  std::vector<api::MetricSummary> out = trial.metrics;
  auto held = unwritten_observations_.find(trial.name);
  if (held == unwritten_observations_.end()) return out;
  for (const api::Observation& o : held->second) api::MergeLatest(out, o.metrics);
  return out;
}

bool ExperimentRunner::FlushObservationsLocked(Trial& trial) {
  auto held = unwritten_observations_.find(trial.name);
  if (held == unwritten_observations_.end()) return true;
  Status s = deps_.store->AddObservations(name_, trial.name, held->second);
  if (!s.ok()) {
    spdlog::error("experiment {}: storing {} observation(s) of {} failed, held for a retry: {}",
                  name_, held->second.size(), trial.name, s.message());
    dirty_ = true;
    return false;
  }
  for (const api::Observation& o : held->second) AppendCurveLocked(trial.name, o);
  unwritten_observations_.erase(held);
  Status refreshed = RefreshTrialLocked(trial);
  if (!refreshed.ok()) spdlog::warn("experiment {}: {}", name_, refreshed.message());
  return true;
}

void ExperimentRunner::OnRunning(const std::string& trial) {
  std::lock_guard<std::mutex> lock(mu_);
  Trial* t = FindLocked(trial);
  if (!t || t->phase != TrialPhase::kPending) return;
  storage::TrialUpdate update;
  update.phase = TrialPhase::kRunning;
  update.start_time_ms = api::NowMillis();  // when it really started
  update.reason = "";
  update.message = "";
  RecordTrialLocked(*t, update);
}

void ExperimentRunner::OnExit(const std::string& trial, const runner::ExitInfo& info) {
  std::lock_guard<std::mutex> lock(mu_);
  {
    std::lock_guard<std::mutex> exits(delivered_mu_);
    delivered_exits_.erase(trial);
  }
  ended_leftovers_.erase(trial);
  Trial* t = FindLocked(trial);
  if (!t) return;
  // Its end is judged on everything it reported, held observations too;
  // the experiment ends only once they are stored (FlushUnwrittenLocked).
  const bool all_stored = FlushObservationsLocked(*t);
  Trial reported = *t;
  if (!all_stored) reported.metrics = WithHeldLocked(*t);
  if (!api::IsFinished(t->phase)) {  // else already Killed or EarlyStopped
    storage::TrialUpdate update;
    update.completion_time_ms = api::NowMillis();
    // A command that never started has no exit code (not 0).
    if (info.kind != runner::ExitKind::kStartFailed) update.exit_code = info.exit_code;
    // Output the log lost (a full disk) is named in every message.
    const std::string lost =
        info.log_bytes_lost > 0 ? std::to_string(info.log_bytes_lost) +
                                      " bytes of the trial's output were lost: " + info.log_error
                                : "";
    const std::string tail = (lost.empty() ? "" : "; " + lost) +
                             (info.log_tail.empty() ? "" : "; log tail:\n" + info.log_tail);
    switch (info.kind) {
      case runner::ExitKind::kExited:
        if (info.exit_code == 0 && info.metrics_lost) {
          // Its metrics were read from that output: what was stored is a
          // partial curve, whose last value is no result to tune on.
          update.phase = TrialPhase::kFailed;
          update.reason = "LogIncomplete";
          update.message = lost + "; the metrics it printed there were lost with it" +
                           (info.log_tail.empty() ? "" : "; log tail:\n" + info.log_tail);
        } else if (info.exit_code == 0) {
          const std::string missing = api::MissingObjective(reported, exp_.spec.objective);
          const bool has_objective = missing.empty();
          update.phase = has_objective ? TrialPhase::kSucceeded : TrialPhase::kMetricsUnavailable;
          update.reason = has_objective ? "Completed" : "MetricsUnavailable";
          if (!has_objective) {
            std::string printed = api::ReportedMetrics(reported);
            if (!info.other_metrics.empty()) {
              printed += "; other names with a number: " + api::Join(info.other_metrics, ", ");
            }
            update.message = "exited 0 without reporting the objective metric '" +
                             missing + "' (it reported: " + printed +
                             ")" + tail;
          } else if (!lost.empty()) {
            // The metrics were read from the output itself, whole: the
            // result stands, and only the log is short.
            update.reason = "LogIncomplete";
            update.message = lost + " (from its log only: its metrics were read from the output itself)";
          }
        } else {
          update.phase = TrialPhase::kFailed;
          update.reason = "ExitCode";
          update.message = "exited with code " + std::to_string(info.exit_code) + tail;
        }
        break;
      case runner::ExitKind::kSignaled:
        update.phase = TrialPhase::kFailed;
        update.reason = "Signal";
        update.message = "killed by signal " + std::to_string(info.signal) + tail;
        break;
      case runner::ExitKind::kTimedOut:
        update.phase = TrialPhase::kFailed;
        update.reason = "Timeout";
        update.message = "ran past timeoutSeconds " +
                         std::to_string(exp_.spec.trial_template->timeout_seconds) + tail;
        break;
      case runner::ExitKind::kKilled:
        update.phase = TrialPhase::kKilled;
        update.reason = "Killed";
        if (!lost.empty()) update.message = lost;
        break;
      case runner::ExitKind::kStartFailed:
        update.phase = TrialPhase::kFailed;
        update.reason = "StartFailed";
        update.message = info.log_tail;
        break;
    }
    // Over its memory limit: what a user must see, whatever the exit code.
    if (info.oom_killed && update.phase == TrialPhase::kFailed) {
      update.reason = "OOMKilled";
      update.message = "went over its memory limit of " +
                       api::FormatBytes(exp_.spec.trial_template->resources.memory) +
                       " and was killed by the kernel's OOM killer" + tail;
    }
    RecordTrialLocked(*t, update);
  }
}

}  // namespace hpt::controller
