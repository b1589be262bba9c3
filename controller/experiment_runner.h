#pragma once
// ExperimentRunner: one experiment's spec, phase, algorithm state and
// trials, kept in step with the store. It carries out the effects of its
// TrialLedger (trial_ledger.h); launches come from trial_launch.h, curves
// from curve_book.h. Thread safety: every public method takes the runner's
// own mutex (none is shared between experiments); the Controller posts
// executor callbacks to its strand.

#include <atomic>
#include <condition_variable>
#include <map>
#include <set>
#include <string>
#include <vector>

#include "api/experiment_status.h"
#include "api/mutex.h"
#include "api/types.h"
#include "api/user_attrs.h"
#include "controller/curve_book.h"
#include "controller/runner_types.h"
#include "controller/trial_launch.h"
#include "controller/trial_ledger.h"

namespace hpt::controller {

class ExperimentRunner {
 public:
  // `trials` as stored, in creation order.
  ExperimentRunner(const RunnerDeps& deps, api::Experiment experiment,
                   std::vector<api::Trial> trials);

  const std::string& name() const { return name_; }
  bool runner_run() const { return runner_run_; }
  // The HPT_TOKEN trial `trial` gets (trial_token.h); "" for a client-run
  // experiment or a server without an admin token. Takes no lock.
  std::string TrialTokenFor(const std::string& trial) const;

  // After a restart: re-attaches or fails the trials a previous server left
  // running, stops jobs it ended but never signalled (runner_recovery.cc).
  void Recover();
  // Retries held writes and unanswered recoveries, then starts trials up to
  // parallelTrialCount or ends the experiment (runner_trials.cc).
  void Reconcile();
  // Reconcile() has work to do later (GPUs, held writes, a deadline). Takes
  // no lock: the sweep must not wait on a busy runner.
  bool NeedsSweep() const;
  // Nothing of it lives only in memory, so it may be dropped and built
  // again from the store (Controller's cap on loaded experiments): no
  // trial unfinished, no write held or in flight, no exit to handle, and,
  // when the server runs its trials, the experiment finished.
  bool Idle();

  Status Stop();
  // New limits, validated like a new spec; a finished experiment they
  // leave room in runs again (runner_limits.cc). Returns the experiment.
  StatusOr<api::Experiment> UpdateLimits(const Limits& limits);
  // Kills its active trials ahead of a delete; returns those whose exits are to come.
  std::vector<std::string> PrepareDelete();
  // On the executor's thread, when a trial's exit arrives (before OnExit).
  void NoteExitDelivered(const std::string& trial);

  // Client-run trials (runner_client.cc, runner_leases.cc). Suggest: up to
  // `count` new Running trials within parallelTrialCount; when the slots
  // are full, waits up to `wait_ms`, then FailedPrecondition (409).
  StatusOr<std::vector<api::Trial>> Suggest(int count, int wait_ms = 0);
  // Renews the trial's lease; returns its length in seconds (0: none).
  StatusOr<int> Heartbeat(const std::string& trial);
  StatusOr<api::Trial> Complete(const std::string& trial, const Completion& completion);
  // All checked first (a bad entry, named trials[i], changes nothing).
  StatusOr<std::vector<api::Trial>> CompleteMany(const std::vector<NamedCompletion>& completions);
  api::Objective objective();
  // Define-by-run (runner_define_by_run.cc): the trial's value of the
  // parameter `asked` defines; one the experiment lacks joins its space
  // first. InvalidArgument when the name has another definition.
  StatusOr<api::ParameterAssignment> SuggestParameter(const std::string& trial,
                                                      api::ParameterSpec asked);

  // Warm start (runner_warm_start.cc): assignments tried before the
  // algorithm is asked again, and finished trials run elsewhere.
  StatusOr<EnqueueResult> Enqueue(const std::vector<api::Assignment>& assignments,
                                  bool skip_if_exists);
  StatusOr<std::vector<api::Trial>> Import(const std::vector<ImportedTrial>& trials);

  Status AddObservations(const std::string& trial,
                         const std::vector<api::Observation>& observations);
  Status StopTrial(const std::string& trial);
  // Controller::SetUserAttrs.
  Status SetUserAttrs(const std::string& trial, const api::UserAttrs& attrs);
  StatusOr<earlystop::StopDecision> ShouldStop(const std::string& trial);

  // From the executor (through the strand).
  void OnObservation(const std::string& trial, const api::Observation& observation);
  void OnExit(const std::string& trial, const runner::ExitInfo& info);
  void OnRunning(const std::string& trial);
  // Its cluster requeued its job (`why`): Pending until it runs again.
  void OnRequeued(const std::string& trial, const std::string& why);
  // The admission broker takes the trial's resources back for another
  // namespace's guarantee: it is stopped and starts again later, under its
  // name, with its checkpoint folder (runner_admission.cc).
  void Preempt(const std::string& trial, const std::string& why);

  std::string LogPath(const std::string& trial) const;
  // A piece of one of its trials' logs, through its executor.
  StatusOr<runner::LogRange> ReadLog(runner::LogQuery query) const;

 private:
  class SCOPED_CAPABILITY Locked {  // mu_ for one call; publishes on release
   public:
    explicit Locked(ExperimentRunner* runner) ACQUIRE(runner->mu_);
    ~Locked() RELEASE();
    Locked(const Locked&) = delete;
    Locked& operator=(const Locked&) = delete;
   private:
    ExperimentRunner* const runner_;
  };

  runner::Executor* executor() const;  // null: shutting down, or none
  int64_t Now() const { return deps_.clock->NowMillis(); }
  LaunchContext LaunchContextFor(const api::Trial& trial) const REQUIRES(mu_);
  api::Trial* FindLocked(const std::string& trial) REQUIRES(mu_);
  // Carries out the ledger's effects of `event` (experiment_runner.cc).
  void ApplyLocked(api::Trial& trial, const TrialEvent& event) REQUIRES(mu_);
  bool CarryLocked(api::Trial& trial, Effects effects) REQUIRES(mu_);  // false: held
  Status DropStoredLocked(const api::Trial& trial, Effects& effects) REQUIRES(mu_);
  void PublishLocked() REQUIRES(mu_);
  void MirrorLocked(api::Trial& trial, const storage::TrialUpdate& update) REQUIRES(mu_);
  bool FlushHeldLocked() REQUIRES(mu_);  // false while the store refuses
  Status WriteNowLocked(api::Trial& trial, const storage::TrialUpdate& update) REQUIRES(mu_);
  Status RefreshTrialLocked(api::Trial& trial) REQUIRES(mu_);
  StatusOr<std::vector<api::Trial>> SuggestLocked(int count, bool* full) REQUIRES(mu_);
  bool ExpireLeasesLocked() REQUIRES(mu_);  // true: some lease ran out
  Status CheckCompletableLocked(const std::string& trial) REQUIRES(mu_);
  Status CompleteLocked(api::Trial& trial, const Completion& completion) REQUIRES(mu_);
  std::optional<api::Assignment> UsedAssignmentLocked(
      const api::Trial& trial, const std::vector<std::string>& used) const REQUIRES(mu_);
  StatusOr<int64_t> LastStepLocked(const std::string& trial) REQUIRES(mu_);
  StatusOr<std::vector<api::Trial>> CreateTrialsLocked(int count, api::TrialPhase phase,
                                                       bool* store_failed = nullptr) REQUIRES(mu_);
  Status PrepareCheckpointsLocked(const std::vector<api::Trial>& created,
                                  const std::vector<suggestion::Lineage>& lineage) REQUIRES(mu_);
  void ReconcileLocked() REQUIRES(mu_);
  bool StartTrialLocked(api::Trial& trial) REQUIRES(mu_);  // false: waits for resources
  // Admission (runner_admission.cc): what the broker is asked for `trial`;
  // every unstarted Pending trial waits with `reason` and `message`.
  AdmissionRequest AdmissionRequestFor(const api::Trial& trial) const REQUIRES(mu_);
  void WaitLocked(const std::string& reason, const std::string& message) REQUIRES(mu_);
  // The observations a trial started again stored before (event::Started).
  std::vector<api::Observation> StoredBeforeLocked(const api::Trial& trial) REQUIRES(mu_);
  // Its checkpoint folder, made now when it has none ("": none can be made).
  std::optional<std::string> CheckpointDirLocked(const api::Trial& trial) REQUIRES(mu_);
  std::string RecoverJobsLocked(const std::vector<std::string>& trials,
                                const std::vector<bool>& ended) REQUIRES(mu_);
  void RetryRecoveryLocked() REQUIRES(mu_);
  bool FinishIfDoneLocked() REQUIRES(mu_);
  void FinishLocked(api::ExperimentPhase phase, const std::string& reason,
                    const std::string& message) REQUIRES(mu_);
  void KillActiveLocked(const std::string& reason) REQUIRES(mu_);
  void KillTrialLocked(api::Trial& trial, const std::string& reason) REQUIRES(mu_);
  void StopIfHopelessLocked(api::Trial& trial) REQUIRES(mu_);

  const RunnerDeps deps_;
  const std::string name_;  // the experiment's key (api::KeyOf)
  // Its name and namespace (exp_'s, which never change), readable without mu_.
  const api::ExperimentRef ref_;
  const bool runner_run_;
  const std::string executor_name_;     // of deps_.executors
  const std::string trial_token_salt_;  // exp_'s, readable without mu_

  // Exits delivered whose OnExit() still waits on the strand.
  Mutex delivered_mu_;
  std::set<std::string> delivered_exits_ GUARDED_BY(delivered_mu_);

  Mutex mu_;
  api::Experiment exp_ GUARDED_BY(mu_);
  std::vector<api::Trial> trials_ GUARDED_BY(mu_);  // creation order
  api::TrialTally tally_ GUARDED_BY(mu_);           // of trials_
  std::map<std::string, size_t> index_ GUARDED_BY(mu_);
  bool exhausted_ GUARDED_BY(mu_) = false;
  // This Reconcile() left a trial waiting for admission.
  bool admission_wait_ GUARDED_BY(mu_) = false;
  TrialLedger ledger_ GUARDED_BY(mu_);
  CurveBook curves_ GUARDED_BY(mu_);
  // Trials with an observation write in flight outside mu_ (AddObservations),
  // and their end, which the trial's next write or completion waits for.
  std::set<std::string> writing_ GUARDED_BY(mu_);
  std::condition_variable_any writes_cv_;
  // What NeedsSweep() reads without mu_ (PublishLocked() sets them).
  std::atomic<int64_t> next_deadline_ms_{0};
  std::atomic<bool> waiting_for_resources_{false};
  std::atomic<bool> dirty_{false};
};

}  // namespace hpt::controller
