#pragma once
// TrialLedger: the life of one experiment's trials as a pure state machine.
// Apply(trial, event, now) says what follows from an event (Effects: what
// to store, whether to kill the trial's job, whether to ask the
// early-stopping policy); the ledger keeps only the bookkeeping that
// decides it (replays, leases, held writes, recovery). It does no I/O,
// takes no lock and reads no clock: ExperimentRunner carries out the
// effects under its own mutex and tells the ledger what the store refused.
//
// The transitions, for a trial in the state on the left:
//
//   event            trial                 effects
//   ---------------  --------------------  ---------------------------------
//   Started(job)     Pending               Running (pid, job id); or Pending,
//                                          QueuedInCluster (job id); or
//                                          Failed StartFailed (start error)
//   Waiting(msg, r)  Pending               reason r (WaitingForResources,
//                                          QuotaExceeded; a preempted trial
//                                          keeps Preempted), msg (only when
//                                          they change)
//   Running          Pending               Running, started now
//   Requeued(why)    active, with a job    Pending, Preempted (why); keeps
//                    (not being preempted) its job, its grant and its
//                    slot; steps it reported before are stored once
//   Observed(o)      any, not a leftover   store o after the held ones;
//                                          dropped if it replays one stored
//                                          before a restart; judge
//   Exited(info)     active                held observations, then the
//                                          phase of ExitUpdate() (below)
//                    preempted, or         Pending, Preempted (see Preempt)
//                    kPreempted (Slurm's
//                    PREEMPTED)
//                    ended                 held observations only
//   StopRequested(r) active                Killed (r); kill when it has a job
//   Preempt(why)     active, with a job    reason Preempting (why); kill; its
//                                          exit makes it Pending (Preempted,
//                                          no job), to start again under its
//                                          name; steps it reported before are
//                                          stored once (Started's `stored`)
//   EarlyStop(why)   Running               EarlyStopped (why); kill
//   Recovered(job)   Preempting, attached  as Preempt: kill again
//                    attached, requeued    steps stored before are stored
//                    by its cluster        once; Running but queued now:
//                                          Pending, Preempted (as Requeued)
//                    unknown answer        nothing now: asked again after
//                                          kRecoveryRetryMs (RecoveryDue)
//                    ended, attached       kill; a leftover: its output and
//                                          exit store nothing new
//                    active, attached      Running / job id if it was
//                                          stored as never started
//                    active, gone          Failed ServerRestarted (started
//                                          ones; unstarted ones start anew);
//                                          under resumePolicy FromVolume
//                                          Pending, ServerRestarted, no job:
//                                          it starts again under its name
//                                          (steps stored before stored once)
//   Renewed          client-run            lease from now
//   LeaseTick        client-run Running    Failed Abandoned once its lease
//                                          (trialLeaseSeconds) ran out
//
// One write policy: every write an effect asks for is carried out in
// order, and one the store refuses is handed back (Hold); it is merged into
// the trial's next write, and TakeHeld() gives it back for a retry. Later
// writes of a trial never overtake earlier ones: observations go before
// the fields, and fields held are merged under the newer ones. A write
// refused as Unavailable may have been stored all the same: before its
// retry, the observations the store holds already are taken out
// (Effects::unsure), so each is stored once.

#include <cstdint>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <variant>
#include <vector>

#include "api/types.h"
#include "storage/store.h"
#include "trial-runner/executor.h"

namespace hpt::controller {

// The reasons of a Pending trial: the executor or the admission broker
// (controller/admission.h) has no room for it yet; its namespace's quota
// is used up; it was preempted and waits to start again.
inline constexpr char kWaitingReason[] = "WaitingForResources";
inline constexpr char kQuotaExceededReason[] = "QuotaExceeded";
inline constexpr char kPreemptedReason[] = "Preempted";
// ... and of one whose process a server restart found gone, to run again
// (resumePolicy FromVolume).
inline constexpr char kRestartedReason[] = "ServerRestarted";
// ... and of a Running one being preempted.
inline constexpr char kPreemptingReason[] = "Preempting";
// The reason of a trial stopped because its experiment ended in `phase`:
// a user's stop says so, any other end (goal, budget) is a finish.
inline const char* EndReason(api::ExperimentPhase phase) {
  return phase == api::ExperimentPhase::kStopped ? "ExperimentStopped" : "ExperimentFinished";
}

namespace event {
// The executor's answer to Start() (not Unavailable: see Waiting).
struct Started {
  StatusOr<runner::JobHandle> job;
  // A trial started again (preempted before): the observations stored of
  // its earlier runs. A step and metric among them reported again (it
  // resumed from an older checkpoint) is not stored twice.
  std::vector<api::Observation> stored;
};
// It cannot start yet: `message` says what it waits for; `reason`
// kWaitingReason or kQuotaExceededReason.
struct Waiting {
  std::string message;
  std::string reason = kWaitingReason;
};
// A namespace under its guaranteed share takes its resources back: `why`.
struct Preempt {
  std::string why;
};
// A job queued in a cluster started (or, requeued, runs again).
struct Running {};
// Its cluster put its job back in the queue (Slurm requeued it, e.g. to
// preempt it): `why`. The same job runs again later (Running) from the
// trial's checkpoint folder; `stored`: the observations stored of its
// earlier runs, whose (step, metric) pairs are not stored again.
struct Requeued {
  std::string why;
  std::vector<api::Observation> stored;
};
// A runner-run trial reported an observation (printed or delivered).
struct Observed {
  api::Observation observation;
};
// Its job ended.
struct Exited {
  runner::ExitInfo info;
};
// The user, the experiment's end or its deletion stops it.
struct StopRequested {
  std::string reason;
};
// The early-stopping policy judged it hopeless: `why` is its reason.
struct EarlyStop {
  std::string why;
};
// The executor's answer about a job a previous server left behind.
// `ended`: the trial was stored as ended (its signal may never have been
// sent); `stored`: the observations the store holds for it, which its
// re-read output will report again.
struct Recovered {
  runner::RecoveredJob job;
  bool ended = false;
  std::vector<api::Observation> stored;
};
// A client-run trial reported (an observation, :shouldStop, :heartbeat).
struct Renewed {};
// Time passed: has its lease run out?
struct LeaseTick {};
}  // namespace event

using TrialEvent =
    std::variant<event::Started, event::Waiting, event::Running, event::Observed, event::Exited,
                 event::StopRequested, event::EarlyStop, event::Recovered, event::Renewed,
                 event::LeaseTick, event::Preempt, event::Requeued>;

struct Effects {
  // Store these, in order, then `update`; the cached trial follows `update`
  // whether or not the store takes it. Held writes are included.
  std::vector<api::Observation> observations;
  std::optional<storage::TrialUpdate> update;
  bool kill = false;   // signal the trial's job
  bool judge = false;  // ask the early-stopping policy once `observations` are stored
  std::string note;    // what happened, for the log ("" : nothing to say)
  // Held after the store answered Unavailable: it may have stored them all
  // the same (a PostgreSQL COMMIT whose answer was lost), so observations
  // already stored are taken out before the retry (DropStored).
  bool unsure = false;

  bool empty() const { return observations.empty() && !update && !kill && !judge; }
};

// How often jobs the executor could not tell about are asked about again: a
// cluster controller's restart or a busy spell takes seconds.
inline constexpr int64_t kRecoveryRetryMs = 2000;

// The phase, reason and message a trial ends with when its job exits:
// `trial` with its metrics as reported (held observations included).
storage::TrialUpdate ExitUpdate(const api::Trial& trial, const runner::ExitInfo& info,
                                const api::ExperimentSpec& spec, int64_t now);

// Takes out of `observations` each metric value already among `stored`
// (same step, timestamp, name and value, each stored one matched once),
// and the observations left with nothing: what a retry must not store
// again. Texts are merged by name, so storing them again is harmless.
void DropStored(const std::vector<api::Observation>& stored,
                std::vector<api::Observation>* observations);

class TrialLedger {
 public:
  // `spec` must outlive the ledger (the runner's experiment; PATCH changes
  // only its limits and lease length, which are read at each event).
  TrialLedger(const api::ExperimentSpec* spec, bool runner_run)
      : spec_(spec), runner_run_(runner_run) {}

  Effects Apply(const api::Trial& trial, const TrialEvent& event, int64_t now);

  // The store refused `effects`' writes: held, to go first in the trial's
  // next write or a retry.
  void Hold(const std::string& trial, Effects effects);
  bool HasHeld() const { return !held_.empty(); }
  // The oldest held trial's writes, taken out (Hold them again if refused);
  // nullopt when nothing is held.
  std::optional<std::pair<std::string, Effects>> TakeHeld();
  // `trial`'s metrics with its held observations counted in.
  std::vector<api::MetricSummary> WithHeld(const api::Trial& trial) const;

  // Recovery: the trials asked about again once due (their phase unknown).
  bool RecoveryPending(const std::string& trial) const { return unknown_.count(trial) > 0; }
  size_t RecoveryPendingCount() const { return unknown_.size(); }
  // The trials due at `now`, taken out of the pending set.
  std::vector<std::string> RecoveryDue(int64_t now);

  // Leases of client-run trials: the earliest moment one may run out (0:
  // none); never later than the true earliest.
  int64_t NextLeaseExpiry() const;
  // The earliest moment the runner has timed work (0: none).
  int64_t NextDeadline() const;

  // The last step stored for a client-run trial, when known.
  std::optional<int64_t> LastStep(const std::string& trial) const;
  void NoteStep(const std::string& trial, int64_t step, bool known_before = true);
  // A client-run trial completed (or ended another way): its lease and
  // step bookkeeping go.
  void Forget(const std::string& trial);

 private:
  Effects OnStarted(const api::Trial& t, const event::Started& e, int64_t now);
  Effects OnWaiting(const api::Trial& t, const event::Waiting& e);
  Effects OnPreempt(const api::Trial& t, const event::Preempt& e);
  Effects OnRequeued(const api::Trial& t, const event::Requeued& e);
  // Steps of `trial` among `stored` are not stored again (a preempted
  // trial resumes from an older checkpoint).
  void Resume(const std::string& trial, const std::vector<api::Observation>& stored);
  // The message of a trial whose job its cluster requeued: `why`, and what
  // follows.
  static std::string RequeuedMessage(const std::string& why);
  Effects OnObserved(const api::Trial& t, const event::Observed& e);
  Effects OnExited(const api::Trial& t, const event::Exited& e, int64_t now);
  Effects OnStopRequested(const api::Trial& t, const event::StopRequested& e, int64_t now);
  Effects OnRecovered(const api::Trial& t, const event::Recovered& e, int64_t now);
  Effects OnLeaseTick(const api::Trial& t, int64_t now);
  // `effects` with the trial's held writes put first.
  Effects WithHeldWrites(const std::string& trial, Effects effects);

  const api::ExperimentSpec* spec_;
  const bool runner_run_;
  // Re-attached trials: the observations stored before the restart not met
  // again yet as their output is read anew (those met are replays).
  std::map<std::string, std::vector<api::Observation>> replay_;
  // Trials being preempted (their exit makes them Pending), and why.
  std::map<std::string, std::string> preempted_;
  // Trials started again after a preemption (or requeued by their
  // cluster): the (step, metric) pairs stored before, which are not stored
  // again.
  std::map<std::string, std::set<std::pair<int64_t, std::string>>> resumed_;
  // Re-attached trials stored as ended that still ran: stopped, and
  // nothing new of theirs stored.
  std::set<std::string> leftovers_;
  // Trials whose jobs the executor could not tell about, and when to ask
  // again (ms; 0: none).
  std::set<std::string> unknown_;
  int64_t recovery_due_ms_ = 0;
  // Client-run trials: when each Running one last reported (ms).
  std::map<std::string, int64_t> renewed_ms_;
  std::map<std::string, int64_t> last_step_;
  // Writes the store refused, per trial.
  std::map<std::string, Effects> held_;
};

}  // namespace hpt::controller
