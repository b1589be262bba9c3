#pragma once
// ExperimentRunner: one experiment's state and lifecycle. It owns the
// experiment's spec, phase and algorithm state, its trials (kept in step
// with the store, so nothing is re-read per decision), its trials'
// objective curves for early stopping, and the GPUs its trials hold.
//
// Thread safety: every public method takes the runner's own mutex, so calls
// about one experiment are serialised (an algorithm sees a consistent
// history, two callers never get the same trial) while other experiments
// go on: no lock here is shared between experiments. Executor callbacks are
// not run here directly but posted to the runner's strand by the
// Controller.

#include <atomic>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "api/clock.h"
#include "api/experiment_status.h"
#include "api/mutex.h"
#include "api/registry.h"
#include "api/types.h"
#include "earlystop/policy.h"
#include "storage/store.h"
#include "controller/trial_ledger.h"
#include "suggestion/algorithm.h"
#include "trial-runner/executor.h"

namespace hpt::controller {

// Final metrics or infeasibility reported by a client-run trial.
struct Completion {
  std::map<std::string, double> metrics;
  bool infeasible = false;
  std::string reason;
};

// Limits of an experiment that may change after creation (PATCH).
struct Limits {
  std::optional<int> max_trial_count;
  std::optional<int> parallel_trial_count;
  std::optional<int> max_failed_trial_count;
  std::optional<int> trial_lease_seconds;
};

// One trial's completion in a batch.
struct NamedCompletion {
  std::string trial;
  Completion completion;
};

// A trial that ran elsewhere, added with its results (trials:import, warm
// start). Its assignment is checked against the experiment's parameters.
struct ImportedTrial {
  api::Assignment assignment;
  api::TrialPhase phase = api::TrialPhase::kSucceeded;  // or kEarlyStopped
  std::vector<api::Observation> observations;
  std::string source;  // where it came from, for its message ("" : "imported")
  std::string path;    // how a problem with it is named; "": trials[i]
};

// What trials:enqueue did.
struct EnqueueResult {
  std::vector<api::Assignment> queued;  // as checked and stored
  int skipped = 0;                      // skipIfExists: already tried or queued
  size_t queue_length = 0;              // the experiment's whole queue now
};

// What every runner shares; all outlive the runners.
struct RunnerDeps {
  storage::Store* store = nullptr;
  const Registry<suggestion::Algorithm>* algorithms = nullptr;
  const Registry<earlystop::Policy>* policies = nullptr;
  // The server's executors by name, and the one trials use unless their
  // trialTemplate.executor names another; not used once *stopping.
  const std::map<std::string, runner::Executor*>* executors = nullptr;
  std::string default_executor;
  const std::atomic<bool>* stopping = nullptr;  // the server is shutting down
  std::string server_url;     // HPT_URL
  std::string hpt_binary;     // replaces a command's leading `hpt`
  std::string token;          // admin token; trials get a TrialToken of it
  std::string log_dir;        // <log_dir>/<experiment>/<trial>.log
  int64_t max_log_bytes = 0;  // each trial log's cap; 0: the default
  const api::Clock* clock = api::RealClock();  // never null
};

class ExperimentRunner {
 public:
  // `trials` as stored, in creation order.
  ExperimentRunner(const RunnerDeps& deps, api::Experiment experiment,
                   std::vector<api::Trial> trials);

  const std::string& name() const { return name_; }
  bool runner_run() const { return runner_run_; }
  // The HPT_TOKEN its trial `trial` is given (controller/trial_token.h);
  // "" when it gives none: a client-run experiment, or a server without an
  // admin token. Takes no lock.
  std::string TrialTokenFor(const std::string& trial) const;

  // After a restart: trials stored as Running with a trialTemplate are
  // handed to the executor to re-attach (their output since, and their end,
  // are then delivered as if this server had started them); those it cannot
  // (gone, or an executor that cannot re-attach) become Failed
  // (ServerRestarted), what is left of them killed (identity checked).
  // Trials stored as Killed or EarlyStopped whose job still runs (the
  // previous server died before signalling them) are stopped, as are the
  // unfinished trials of an experiment stored as ended. Trials the
  // executor cannot tell about (its cluster does not answer) keep their
  // phase, are not started again, and are asked about again by Reconcile()
  // every few seconds until it can.
  void Recover();

  // Writes what the store refused before, asks the executor again about
  // trials Recover() could not tell about, then starts Pending trials and
  // asks for new ones up to parallelTrialCount, or ends the experiment. A
  // no-op for a finished one; for a client-run one, the writes and its end.
  void Reconcile();
  // True while Reconcile() has work to do later: trials waiting for GPUs,
  // writes the store refused, or trials to ask the executor about again. Takes no lock: the periodic sweep must not
  // wait on a busy runner.
  bool NeedsSweep() const {
    // Read without mu_ on purpose: the values are published at the end of
    // every locked call, so a stale one is at most one call old, and the
    // Reconcile() it triggers (or skips until the next sweep, 500 ms on)
    // decides again under the lock.
    const int64_t deadline = next_deadline_ms_.load();
    return waiting_for_resources_.load() || dirty_.load() ||
           (deadline > 0 && deps_.clock->NowMillis() >= deadline);
  }

  Status Stop();
  // New limits, validated like a new spec; a finished experiment they
  // leave room in runs again (runner_limits.cc). The experiment as it is
  // now.
  StatusOr<api::Experiment> UpdateLimits(const Limits& limits);
  // Kills its active trials, ahead of the store's delete. The trials whose
  // jobs were killed: their exits are still to come.
  std::vector<std::string> PrepareDelete();
  // Called on the executor's thread when a trial's exit arrives, before
  // OnExit() runs on the strand.
  void NoteExitDelivered(const std::string& trial);

  // Up to `count` new Running trials for a client to evaluate, never more
  // than parallelTrialCount running at once: when all its slots are taken
  // it waits up to `wait_ms` for one, then answers FailedPrecondition
  // (409) naming the running trials.
  StatusOr<std::vector<api::Trial>> Suggest(int count, int wait_ms = 0);
  // A client-run trial's sign of life: renews its lease (runner_leases.cc).
  // Observations and :shouldStop renew it too.
  // The lease's length in seconds (0: none).
  StatusOr<int> Heartbeat(const std::string& trial);
  // The trial as completed (its objective value needs objective()).
  StatusOr<api::Trial> Complete(const std::string& trial, const Completion& completion);
  // Several at once, in order. Every entry is checked first (a bad one,
  // named by its index, changes nothing); a store error part-way is
  // reported with how many were completed before it.
  StatusOr<std::vector<api::Trial>> CompleteMany(
      const std::vector<NamedCompletion>& completions);
  api::Objective objective();

  // Warm start (runner_warm_start.cc). Enqueue: assignments suggested
  // before the algorithm is asked again, oldest first (Optuna's
  // enqueue_trial); each is checked (a bad one, named trials[i], changes
  // nothing); `skip_if_exists` drops those equal to a trial or an already
  // queued one. FailedPrecondition for a finished experiment.
  StatusOr<EnqueueResult> Enqueue(const std::vector<api::Assignment>& assignments,
                                  bool skip_if_exists);
  // Import: finished trials with known results, stored in one transaction
  // with reason Imported; maxTrialCount does not count them, the
  // algorithm's history does. All checked first (named trials[i]).
  StatusOr<std::vector<api::Trial>> Import(const std::vector<ImportedTrial>& trials);
  Status AddObservations(const std::string& trial,
                         const std::vector<api::Observation>& observations);
  Status StopTrial(const std::string& trial);
  StatusOr<earlystop::StopDecision> ShouldStop(const std::string& trial);

  // From the executor (through the strand).
  void OnObservation(const std::string& trial, const api::Observation& observation);
  void OnExit(const std::string& trial, const runner::ExitInfo& info);
  void OnRunning(const std::string& trial);

  std::string LogPath(const std::string& trial) const;
  // A piece of one of its trial's logs, through its executor.
  StatusOr<runner::LogRange> ReadLog(runner::LogQuery query) const;

 private:
  // The experiment's executor, or null once the server is shutting down
  // (it may be gone) or when the server has no such executor.
  runner::Executor* executor() const {
    if ((deps_.stopping && deps_.stopping->load()) || !deps_.executors) return nullptr;
    auto it = deps_.executors->find(executor_name_);
    return it == deps_.executors->end() ? nullptr : it->second;
  }
  // mu_, held for one call; on release it publishes what the sweep reads.
  class SCOPED_CAPABILITY Locked {
   public:
    explicit Locked(ExperimentRunner* runner) ACQUIRE(runner->mu_);
    ~Locked() RELEASE();
    Locked(const Locked&) = delete;
    Locked& operator=(const Locked&) = delete;

   private:
    ExperimentRunner* const runner_;
  };

  api::Trial* FindLocked(const std::string& trial) REQUIRES(mu_);
  int64_t Now() const { return deps_.clock->NowMillis(); }
  // Applies `event` to the trial through the ledger and carries out what
  // follows (CarryLocked).
  void ApplyLocked(api::Trial& trial, const TrialEvent& event) REQUIRES(mu_);
  // Stores `effects`' writes in order, mirrors its update into the cached
  // trial whatever the store says (a refused write is held by the ledger
  // and retried by Reconcile()), kills, and judges. False: a write held.
  bool CarryLocked(api::Trial& trial, Effects effects) REQUIRES(mu_);
  // Publishes what NeedsSweep() reads; every locked entry point ends here.
  void PublishLocked() REQUIRES(mu_);
  // Copies `update` into the cached trial, and its phase into the curves
  // and the tally.
  void MirrorLocked(api::Trial& trial, const storage::TrialUpdate& update) REQUIRES(mu_);
  // Retries the held writes, oldest first; false while the store still
  // refuses one.
  bool FlushHeldLocked() REQUIRES(mu_);
  // Writes a client's request asks for, answered with the store's error
  // (nothing held: the client retries). Mirrored once stored.
  Status WriteNowLocked(api::Trial& trial, const storage::TrialUpdate& update) REQUIRES(mu_);
  Status RefreshTrialLocked(api::Trial& trial) REQUIRES(mu_);
  // One attempt of Suggest(); `full` says all of parallelTrialCount's
  // slots were taken.
  StatusOr<std::vector<api::Trial>> SuggestLocked(int count, bool* full) REQUIRES(mu_);
  // Client-run trial leases (runner_leases.cc): ExpireLeasesLocked() fails
  // the trials whose lease ran out (Abandoned) and says whether there were.
  bool ExpireLeasesLocked() REQUIRES(mu_);
  // Client-run completions (runner_client.cc).
  Status CheckCompletableLocked(const std::string& trial) REQUIRES(mu_);
  Status CompleteLocked(api::Trial& trial, const Completion& completion) REQUIRES(mu_);
  // InvalidArgument when `completion` would leave the trial without its
  // objective (unless infeasible), naming the metric and what was given.
  Status CheckObjectiveLocked(const api::Trial& trial, const Completion& completion) REQUIRES(mu_);
  // The last step stored for a running trial (-1: none), read from the
  // store once and then kept by the ledger.
  StatusOr<int64_t> LastStepLocked(const std::string& trial) REQUIRES(mu_);
  // `store_failed` (if given) tells a refused write from the algorithm's error.
  StatusOr<std::vector<api::Trial>> CreateTrialsLocked(int count, api::TrialPhase phase,
                                                       bool* store_failed = nullptr) REQUIRES(mu_);
  // Checkpoint folders (controller/checkpoints.h; runner_checkpoints.cc):
  // the new trials' folders, made before they are stored (`lineage` empty,
  // or one per trial); a trial's folder, given to its launch.
  Status PrepareCheckpointsLocked(const std::vector<api::Trial>& created,
                                  const std::vector<suggestion::Lineage>& lineage) REQUIRES(mu_);
  void AddCheckpointLocked(const api::Trial& trial, runner::LaunchSpec& launch) const REQUIRES(mu_);
  // What a launch of `trial` needs besides its command and environment.
  runner::LaunchSpec BaseLaunchSpecLocked(const api::Trial& trial) const REQUIRES(mu_);
  bool StartTrialLocked(api::Trial& trial) REQUIRES(mu_);
  // Recovery (runner_recovery.cc): asks the executor about `trials`' jobs
  // (`ended`: stored as ended, their jobs to be stopped) and applies its
  // answers. What it said it could not tell ("" : nothing).
  std::string RecoverJobsLocked(const std::vector<std::string>& trials,
                                const std::vector<bool>& ended) REQUIRES(mu_);
  // Asks again about the trials the ledger says are due.
  void RetryRecoveryLocked() REQUIRES(mu_);
  bool FinishIfDoneLocked() REQUIRES(mu_);
  void FinishLocked(api::ExperimentPhase phase, const std::string& reason,
                    const std::string& message) REQUIRES(mu_);
  void KillActiveLocked(const std::string& reason) REQUIRES(mu_);
  void KillTrialLocked(api::Trial& trial, const std::string& reason) REQUIRES(mu_);

  // Early stopping over the cached curves (runner_stopping.cc).
  void LoadCurvesLocked() REQUIRES(mu_);
  void AppendCurveLocked(const std::string& trial, const api::Observation& observation) REQUIRES(mu_);
  void SetCurvePhaseLocked(const std::string& trial, api::TrialPhase phase) REQUIRES(mu_);
  StatusOr<earlystop::StopDecision> EvaluateLocked(const std::string& trial) REQUIRES(mu_);
  void StopIfHopelessLocked(api::Trial& trial) REQUIRES(mu_);

  const RunnerDeps deps_;
  const std::string name_;
  const bool runner_run_;
  const std::string executor_name_;  // of deps_.executors
  const std::string trial_token_salt_;  // exp_'s, readable without mu_

  // Exits the executor delivered that OnExit() has not applied yet (they
  // wait on the strand): PrepareDelete() must not wait for them again.
  Mutex delivered_mu_;
  std::set<std::string> delivered_exits_ GUARDED_BY(delivered_mu_);

  Mutex mu_;
  api::Experiment exp_ GUARDED_BY(mu_);
  std::vector<api::Trial> trials_ GUARDED_BY(mu_);  // creation order
  api::TrialTally tally_ GUARDED_BY(mu_);           // of trials_
  std::map<std::string, size_t> index_ GUARDED_BY(mu_);
  bool exhausted_ GUARDED_BY(mu_) = false;
  TrialLedger ledger_ GUARDED_BY(mu_);
  // Published by PublishLocked() for the sweep, which reads them without
  // mu_ (see NeedsSweep()): the ledger's next deadline (0: none), a trial
  // waiting for the executor's resources (GPUs), a write to retry.
  std::atomic<int64_t> next_deadline_ms_{0};
  std::atomic<bool> waiting_for_resources_{false};
  std::atomic<bool> dirty_{false};
  std::unique_ptr<earlystop::Policy> policy_;         // null: none
  bool curves_loaded_ GUARDED_BY(mu_) = false;
  std::vector<earlystop::TrialCurve> curves_ GUARDED_BY(mu_);
  std::map<std::string, size_t> curve_index_ GUARDED_BY(mu_);
};

}  // namespace hpt::controller
