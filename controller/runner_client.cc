// ExperimentRunner's client-run trials (ask/tell): suggestions,
// observations and completions, one at a time or many per call. These run
// on the HTTP thread under the runner's lock, so a completion reads nothing
// back from the store: the trial's metrics and last step are kept here.
#include <spdlog/spdlog.h>

#include <atomic>
#include <chrono>
#include <set>
#include <thread>

#include "api/experiment_status.h"
#include "controller/experiment_runner.h"

namespace hpt::controller {

using api::ExperimentPhase;
using api::Trial;
using api::TrialPhase;

namespace {

// A waiting :suggest holds one of the HTTP server's threads (about 40):
// beyond this many at once, in all experiments, a request is answered at
// once (409 while the slots are full, which clients poll on), so that
// waiters never starve reports, heartbeats and the dashboard.
constexpr int kMaxWaiters = 16;
std::atomic<int> waiters{0};

// InvalidArgument when `completion` would leave the trial without its
// objective (unless infeasible), naming the metric and what was given.
Status CheckObjective(const api::Objective& objective, const Trial& t,
                      const Completion& completion) {
  if (completion.infeasible) return Status::Ok();
  Trial after = t;
  api::MergeLatest(after.metrics, completion.metrics);
  const std::string missing = api::MissingObjective(after, objective);
  if (missing.empty()) return Status::Ok();
  // A wrong metric name must not quietly become a trial without a result.
  std::string given;
  for (const auto& [name, value] : completion.metrics) given += (given.empty() ? "" : ", ") + name;
  return InvalidArgument("metrics: the objective metric '" + missing +
                         "' was not reported (given: " + (given.empty() ? "none" : given) +
                         "; reported before: " + api::ReportedMetrics(t) +
                         "); report it, or complete with \"infeasible\": true");
}

}  // namespace

// Up to `count` new Running trials for a client to evaluate, never more
// than parallelTrialCount running at once: when all its slots are taken it
// waits up to `wait_ms` for one, then answers FailedPrecondition (409)
// naming the running trials.
StatusOr<std::vector<Trial>> ExperimentRunner::Suggest(int count, int wait_ms) {
  if (count < 1 || count > 1000) {
    return InvalidArgument("count: must be between 1 and 1000, not " + std::to_string(count));
  }
  struct Waiter {
    bool counted = false;
    ~Waiter() {
      if (counted) waiters.fetch_sub(1);
    }
  } waiter;
  if (wait_ms > 0) {
    waiter.counted = waiters.fetch_add(1) < kMaxWaiters;
    if (!waiter.counted) {
      waiters.fetch_sub(1);
      wait_ms = 0;
    }
  }
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::milliseconds(wait_ms);
  while (true) {
    bool full = false;
    {
      Locked lock(this);
      auto trials = SuggestLocked(count, &full);
      if (!full || std::chrono::steady_clock::now() >= deadline ||
          (deps_.stopping && deps_.stopping->load())) {
        return trials;
      }
    }
    // A slot frees when a trial completes, is stopped or its lease lapses.
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
  }
}

// One attempt of Suggest(); `full` says all of parallelTrialCount's slots
// were taken.
StatusOr<std::vector<Trial>> ExperimentRunner::SuggestLocked(int count, bool* full) {
  if (runner_run_) {
    return FailedPrecondition("experiment '" + name_ +
                              "' has a trialTemplate: the server runs its trials; "
                              ":suggest is for client-run experiments");
  }
  if (api::IsFinished(exp_.phase)) return std::vector<Trial>{};
  if (exp_.phase == ExperimentPhase::kCreated) {
    storage::ExperimentUpdate update;
    update.phase = ExperimentPhase::kRunning;
    update.start_time_ms = Now();
    HPT_RETURN_IF_ERROR(deps_.store->UpdateExperiment(name_, update));
    exp_.phase = *update.phase;
    exp_.start_time_ms = *update.start_time_ms;
  }
  // A lapsed lease frees its slot now, not at the next sweep.
  if (ExpireLeasesLocked() && FinishIfDoneLocked()) return std::vector<Trial>{};
  int budget = exp_.spec.max_trial_count - tally_.Counts(trials_).run();
  if (budget <= 0 || exhausted_) return std::vector<Trial>{};
  std::vector<std::string> running;
  for (const Trial& t : trials_) {
    if (t.phase == TrialPhase::kRunning) running.push_back(t.name);
  }
  const int room = exp_.spec.parallel_trial_count - static_cast<int>(running.size());
  if (room <= 0) {
    *full = true;
    std::string names;
    for (size_t i = 0; i < running.size() && i < 5; ++i) names += (i ? ", " : "") + running[i];
    if (running.size() > 5) names += ", ...";
    return FailedPrecondition(
        "parallelTrialCount: all " + std::to_string(exp_.spec.parallel_trial_count) +
        " slots are taken by running trials (" + names +
        "); complete or stop one first, ask with \"waitSeconds\" to wait for a slot, "
        "or raise parallelTrialCount (PATCH)");
  }
  HPT_ASSIGN_OR_RETURN(auto created,
                       CreateTrialsLocked(std::min({count, budget, room}), TrialPhase::kRunning));
  for (const Trial& t : created) {
    ledger_.NoteStep(t.name, -1, /*known_before=*/false);  // nothing observed yet
    ApplyLocked(*FindLocked(t.name), event::Renewed{});
  }
  if (created.empty() && exhausted_) FinishIfDoneLocked();
  return created;
}

// The store write runs outside mu_, so that writes to the experiment's
// other trials reach the store together and share its group commit; one
// write per trial is in flight at a time, so a trial's writes are stored
// and applied in the order they were taken. The answer waits for the commit.
Status ExperimentRunner::AddObservations(const std::string& trial,
                                         const std::vector<api::Observation>& observations) {
  {
    Locked lock(this);
    while (writing_.count(trial)) writes_cv_.wait(mu_);
    Trial* t = FindLocked(trial);
    if (!t) return NotFound("trial '" + trial + "' not found in experiment '" + name_ + "'");
    if (api::IsFinished(t->phase)) {
      return FailedPrecondition("trial '" + trial + "' is " + api::ToString(t->phase) +
                                (t->reason.empty() ? "" : " (" + t->reason + ")") +
                                "; observations are taken only while it runs");
    }
    writing_.insert(trial);
  }
  auto metrics = deps_.store->AddObservationsAndSummarize(name_, trial, observations);
  Locked lock(this);
  writing_.erase(trial);
  writes_cv_.notify_all();
  if (!metrics.ok()) return metrics.status();
  Trial* t = FindLocked(trial);
  if (!t) return Status::Ok();  // stored, then its experiment was deleted
  const bool running = !api::IsFinished(t->phase);
  if (!runner_run_ && running) ApplyLocked(*t, event::Renewed{});
  for (const auto& o : observations) {
    curves_.Append(*t, o);
    ledger_.NoteStep(trial, o.step);
    // As the store merges texts: each name keeps its last one.
    for (const auto& [name, text] : o.texts) t->outputs[name] = text;
  }
  t->metrics = std::move(*metrics);
  // A finished trial's value may be the best's: counted again when asked.
  if (!running) tally_.Invalidate();
  // Pushed metrics of a runner-run trial are judged like printed ones.
  if (runner_run_ && running) StopIfHopelessLocked(*t);
  return Status::Ok();
}

Status ExperimentRunner::SetUserAttrs(const std::string& trial, const api::UserAttrs& attrs) {
  Locked lock(this);
  Trial* t = FindLocked(trial);
  if (!t) return NotFound("trial '" + trial + "' not found in experiment '" + name_ + "'");
  HPT_ASSIGN_OR_RETURN(api::UserAttrs merged,
                       api::MergeUserAttrs(t->user_attrs, attrs, "userAttrs"));
  storage::TrialUpdate update;
  update.user_attrs = std::move(merged);
  HPT_RETURN_IF_ERROR(deps_.store->UpdateTrial(name_, trial, update));
  storage::ApplyTrialUpdate(update, *t);
  return Status::Ok();
}

// The last step stored for a running trial (-1: none), read from the store
// once and then kept by the ledger.
StatusOr<int64_t> ExperimentRunner::LastStepLocked(const std::string& trial) {
  if (auto last = ledger_.LastStep(trial)) return *last;
  HPT_ASSIGN_OR_RETURN(auto observations, deps_.store->ListObservations(name_, trial));
  int64_t last = -1;
  for (const auto& o : observations) last = std::max(last, o.step);
  ledger_.NoteStep(trial, last, /*known_before=*/false);
  return last;
}

Status ExperimentRunner::CheckCompletableLocked(const std::string& trial) {
  // A write in flight is stored and applied first: the completion's last
  // step and metrics include it.
  while (writing_.count(trial)) writes_cv_.wait(mu_);
  if (runner_run_) {
    return FailedPrecondition("trial '" + trial +
                              "' is run by the server; it completes when its "
                              "process exits");
  }
  Trial* t = FindLocked(trial);
  if (!t) return NotFound("trial '" + trial + "' not found in experiment '" + name_ + "'");
  if (api::IsFinished(t->phase)) {
    return FailedPrecondition("trial '" + trial + "' is already " + api::ToString(t->phase) +
                              (t->reason.empty() ? "" : " (" + t->reason + ")"));
  }
  return Status::Ok();
}

Status ExperimentRunner::CompleteLocked(Trial& t, const Completion& completion) {
  std::vector<api::MetricSummary> before = t.metrics;
  storage::TrialUpdate update;
  update.completion_time_ms = Now();
  if (completion.used_parameters) {
    update.assignment = UsedAssignmentLocked(t, *completion.used_parameters);
  }
  if (completion.infeasible) {
    update.phase = TrialPhase::kFailed;
    update.reason = "Infeasible";
    update.message = completion.reason;
  } else {
    if (!completion.metrics.empty()) {
      HPT_ASSIGN_OR_RETURN(int64_t last, LastStepLocked(t.name));
      api::Observation final_obs;
      final_obs.step = last + 1;
      final_obs.timestamp_ms = *update.completion_time_ms;
      final_obs.metrics = completion.metrics;
      // Stored with the phase, in one transaction.
      update.observations.push_back(std::move(final_obs));
    }
    // The trial as it will be (the final values are each metric's latest),
    // so that its new phase is tallied with its value; CheckObjective...
    // made sure it has one.
    api::MergeLatest(t.metrics, completion.metrics);
    // The advice survives a restart: it is stored as the trial's reason.
    bool advised = t.reason == "EarlyStopAdvised";
    update.phase = advised ? TrialPhase::kEarlyStopped : TrialPhase::kSucceeded;
    update.reason = advised ? "EarlyStopped" : "Completed";
  }
  Status stored = WriteNowLocked(t, update);
  if (!stored.ok()) {
    t.metrics = std::move(before);  // as stored
    return stored;
  }
  if (!update.observations.empty()) {
    curves_.Append(t, update.observations.front());
  }
  ledger_.Forget(t.name);  // finished: no lease, no more observations
  return Status::Ok();
}

// The trial as completed (its objective value needs objective()).
StatusOr<Trial> ExperimentRunner::Complete(const std::string& trial,
                                           const Completion& completion) {
  Locked lock(this);
  HPT_RETURN_IF_ERROR(CheckCompletableLocked(trial));
  Trial& t = *FindLocked(trial);
  HPT_RETURN_IF_ERROR(CheckObjective(exp_.spec.objective, t, completion));
  HPT_RETURN_IF_ERROR(CompleteLocked(t, completion));
  FinishIfDoneLocked();
  return t;
}

// Several at once, in order. Every entry is checked first (a bad one, named
// by its index, changes nothing); a store error part-way is reported with
// how many were completed before it.
StatusOr<std::vector<Trial>> ExperimentRunner::CompleteMany(
    const std::vector<NamedCompletion>& completions) {
  Locked lock(this);
  // All checked before any is applied: a bad entry changes nothing.
  std::set<std::string> seen;
  for (size_t i = 0; i < completions.size(); ++i) {
    const std::string& name = completions[i].trial;
    const std::string field = "trials[" + std::to_string(i) + "]";
    if (!seen.insert(name).second) {
      return InvalidArgument(field + ".name: trial '" + name + "' is listed twice");
    }
    Status s = CheckCompletableLocked(name);
    if (!s.ok()) return Status(s.code(), field + ": " + s.message());
    s = CheckObjective(exp_.spec.objective, *FindLocked(name), completions[i].completion);
    if (!s.ok()) return Status(s.code(), field + "." + s.message());  // trials[i].metrics: ...
  }
  std::vector<Trial> done;
  for (size_t i = 0; i < completions.size(); ++i) {
    Trial& t = *FindLocked(completions[i].trial);
    Status s = CompleteLocked(t, completions[i].completion);
    if (!s.ok()) {
      return Status(s.code(), "trials[" + std::to_string(i) + "]: " + s.message() +
                                  " (the " + std::to_string(i) + " before it were completed)");
    }
    done.push_back(t);
  }
  FinishIfDoneLocked();
  return done;
}

api::Objective ExperimentRunner::objective() {
  Locked lock(this);
  return exp_.spec.objective;
}

}  // namespace hpt::controller
