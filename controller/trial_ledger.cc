// TrialLedger's transitions. Each On...() is one row group of the table in
// the header; ExitUpdate() is in trial_exit.cc.
#include "controller/trial_ledger.h"

#include <algorithm>
#include <type_traits>

#include "api/experiment_status.h"

namespace hpt::controller {

using api::Trial;
using api::TrialPhase;

namespace {

// The reason of a Pending trial submitted to a cluster that has not run it yet.
constexpr char kQueued[] = "QueuedInCluster";

// Held observations per trial while the store refuses them (a full disk):
// past this many the newest are dropped, with an error.
constexpr size_t kMaxHeldObservations = 100000;

bool Active(const Trial& t) { return !api::IsFinished(t.phase); }

// Running, or queued in a cluster: either way it has a job to stop.
bool HasJob(const Trial& t) { return t.phase == TrialPhase::kRunning || !t.job_id.empty(); }

}  // namespace

Effects TrialLedger::Apply(const Trial& t, const TrialEvent& event, int64_t now) {
  Effects effects = std::visit(
      [&](const auto& e) -> Effects {
        using E = std::decay_t<decltype(e)>;
        if constexpr (std::is_same_v<E, event::Started>) {
          return OnStarted(t, e, now);
        } else if constexpr (std::is_same_v<E, event::Waiting>) {
          return OnWaiting(t, e);
        } else if constexpr (std::is_same_v<E, event::Preempt>) {
          return OnPreempt(t, e);
        } else if constexpr (std::is_same_v<E, event::Requeued>) {
          return OnRequeued(t, e);
        } else if constexpr (std::is_same_v<E, event::Running>) {
          Effects out;
          if (t.phase != TrialPhase::kPending) return out;
          out.update.emplace();
          out.update->phase = TrialPhase::kRunning;
          out.update->start_time_ms = now;  // when it really started
          out.update->reason = "";
          out.update->message = "";
          return out;
        } else if constexpr (std::is_same_v<E, event::Observed>) {
          return OnObserved(t, e);
        } else if constexpr (std::is_same_v<E, event::Exited>) {
          return OnExited(t, e, now);
        } else if constexpr (std::is_same_v<E, event::StopRequested>) {
          return OnStopRequested(t, e, now);
        } else if constexpr (std::is_same_v<E, event::EarlyStop>) {
          Effects out;
          if (t.phase != TrialPhase::kRunning) return out;
          out.update.emplace();
          out.update->phase = TrialPhase::kEarlyStopped;
          out.update->reason = "EarlyStopped";
          out.update->message = e.why;
          out.update->completion_time_ms = now;
          out.kill = true;  // its exit keeps the EarlyStopped phase
          return out;
        } else if constexpr (std::is_same_v<E, event::Recovered>) {
          return OnRecovered(t, e, now);
        } else if constexpr (std::is_same_v<E, event::Renewed>) {
          if (!runner_run_ && Active(t)) renewed_ms_[t.name] = now;
          return Effects{};
        } else {
          static_assert(std::is_same_v<E, event::LeaseTick>);
          return OnLeaseTick(t, now);
        }
      },
      event);
  // An exit also takes the trial's held writes along (its end waits for them).
  if (effects.observations.empty() && !effects.update &&
      !std::holds_alternative<event::Exited>(event)) {
    return effects;
  }
  return WithHeldWrites(t.name, std::move(effects));
}

Effects TrialLedger::OnStarted(const Trial& t, const event::Started& e, int64_t now) {
  Effects out;
  storage::TrialUpdate& update = out.update.emplace();
  update.start_time_ms = now;
  if (t.reason == kWaitingReason || t.reason == kQuotaExceededReason ||
      t.reason == kPreemptedReason || t.reason == kRestartedReason) {
    update.reason = "";
    update.message = "";
  }
  resumed_.erase(t.name);
  if (e.job.ok()) Resume(t.name, e.stored);
  if (e.job.ok() && e.job->queued) {
    // Submitted: Pending until the cluster runs it (Running), saying so.
    update.start_time_ms.reset();
    update.reason = kQueued;
    update.message = "queued in the cluster (job " + e.job->id + ")";
    update.job_id = e.job->id;
  } else if (e.job.ok()) {
    update.phase = TrialPhase::kRunning;
    update.pid = e.job->pid;
    update.job_id = e.job->id;
  } else {
    update.phase = TrialPhase::kFailed;
    update.reason = "StartFailed";
    update.message = e.job.status().message();
    update.completion_time_ms = now;
  }
  return out;
}

Effects TrialLedger::OnObserved(const Trial& t, const event::Observed& e) {
  Effects out;
  api::Observation fresh = e.observation;
  if (auto replay = replay_.find(t.name); replay != replay_.end()) {
    // Stored before the restart: the same step and values, met once each
    // (a step's metrics on lines of their own are more observations, not
    // replays). Texts are merged by name, so storing them again is harmless.
    std::vector<api::Observation>& stored = replay->second;
    auto same = std::find_if(stored.begin(), stored.end(), [&](const api::Observation& o) {
      return o.step == e.observation.step && o.metrics == e.observation.metrics;
    });
    if (same != stored.end() && !e.observation.metrics.empty()) {
      stored.erase(same);
      if (stored.empty()) replay_.erase(replay);
      fresh.metrics.clear();
      if (fresh.texts.empty()) return out;
    }
  }
  if (leftovers_.count(t.name)) return out;  // printed after its end
  if (auto resumed = resumed_.find(t.name); resumed != resumed_.end()) {
    // Started again from an older checkpoint: steps it reported before
    // its preemption are stored once.
    for (auto m = fresh.metrics.begin(); m != fresh.metrics.end();) {
      m = resumed->second.count({fresh.step, m->first}) ? fresh.metrics.erase(m) : std::next(m);
    }
    if (fresh.metrics.empty() && fresh.texts.empty()) return out;
  }
  if (auto held = held_.find(t.name);
      held != held_.end() && held->second.observations.size() >= kMaxHeldObservations) {
    out.note = "has " + std::to_string(kMaxHeldObservations) +
               " observations waiting for the store: one more dropped";
    return out;
  }
  out.observations.push_back(std::move(fresh));
  out.judge = true;
  return out;
}

Effects TrialLedger::OnExited(const Trial& t, const event::Exited& e, int64_t now) {
  leftovers_.erase(t.name);
  replay_.erase(t.name);
  resumed_.erase(t.name);
  Effects out;
  std::optional<std::string> preempted;
  if (auto p = preempted_.find(t.name); p != preempted_.end()) {
    preempted = p->second;
    preempted_.erase(p);
  }
  if (!Active(t)) return out;  // already Killed or EarlyStopped: that phase stays
  if (!preempted && e.info.kind == runner::ExitKind::kPreempted) {
    // Its cluster took the room back (Slurm's PreemptMode=CANCEL): as
    // after hpt's own preemption.
    preempted = "its cluster preempted its job" + (t.job_id.empty() ? "" : " " + t.job_id);
  }
  if (preempted) {
    // Back to Pending, with no job: it starts again under its name, with
    // its checkpoint folder, once admitted. Not a failure, and not a new
    // trial of maxTrialCount.
    storage::TrialUpdate& update = out.update.emplace();
    update.phase = TrialPhase::kPending;
    update.reason = kPreemptedReason;
    update.message = *preempted + "; it starts again under its name, with its checkpoint folder";
    update.pid = 0;
    update.job_id = "";
    update.preemptions = t.preemptions + 1;
    return out;
  }
  // Its end is judged on everything it reported, held observations too.
  Trial reported = t;
  reported.metrics = WithHeld(t);
  out.update = ExitUpdate(reported, e.info, *spec_, now);
  return out;
}

Effects TrialLedger::OnStopRequested(const Trial& t, const event::StopRequested& e,
                                     int64_t now) {
  Effects out;
  if (!Active(t)) return out;
  out.update.emplace();
  out.update->phase = TrialPhase::kKilled;
  out.update->reason = e.reason;
  out.update->completion_time_ms = now;
  preempted_.erase(t.name);
  // Its exit is reported later and keeps the Killed phase.
  out.kill = HasJob(t);
  Forget(t.name);
  return out;
}

Effects TrialLedger::OnRecovered(const Trial& t, const event::Recovered& e, int64_t now) {
  Effects out;
  const runner::RecoveredJob& job = e.job;
  if (job.unknown) {
    // Not gone, only unseen: failing it would start another trial in its
    // place while its job runs on. It keeps its phase (and its slot) until
    // the executor can tell.
    replay_.erase(t.name);
    unknown_.insert(t.name);
    if (recovery_due_ms_ == 0) recovery_due_ms_ = now + kRecoveryRetryMs;
    return out;
  }
  // A re-attached trial's output is read again from its start: what the
  // store holds already is not added twice.
  if (job.attached && !e.stored.empty()) replay_[t.name] = e.stored;
  // Preempted before (by hpt, or requeued by its cluster): it resumed from
  // a checkpoint, and its output may repeat a stored step with another
  // value, which is no replay.
  if (job.attached && !e.ended && (job.restarts > 0 || t.preemptions > 0)) {
    Resume(t.name, e.stored);
  }
  if (e.ended) {
    // Followed to its exit, which keeps the stored phase. What it printed
    // after its end was decided is not stored: an early-stopped trial that
    // ran on for hours unwatched must not turn into the best.
    if (job.attached) {
      leftovers_.insert(t.name);
      replay_.erase(t.name);
      out.kill = true;
      out.note = std::string("is ") + api::ToString(t.phase) + " but was still running: stopping it";
    }
    return out;
  }
  const bool unstarted = t.phase == TrialPhase::kPending && t.job_id.empty();
  if (job.attached) {
    out.note = "re-attached to its running job";
    if (t.reason == kPreemptingReason && !preempted_.count(t.name)) {
      // The previous server was preempting it: it still is.
      preempted_[t.name] = t.message;
      out.kill = true;
      out.note += ", which was being preempted: stopping it again";
    }
    if (t.phase == TrialPhase::kRunning && !job.running && job.restarts > 0 &&
        !preempted_.count(t.name)) {
      // Requeued while no server watched (or before this one's answer was
      // stored): it waits in the queue again.
      storage::TrialUpdate& requeued = out.update.emplace();
      requeued.phase = TrialPhase::kPending;
      requeued.reason = kPreemptedReason;
      requeued.message = RequeuedMessage("its cluster requeued its job " + t.job_id);
      requeued.preemptions = t.preemptions + 1;
      out.note += ", which its cluster requeued";
    }
    if (unstarted) {
      storage::TrialUpdate& found = out.update.emplace();
      found.job_id = job.job_id;
      if (job.running) {
        found.phase = TrialPhase::kRunning;
        found.start_time_ms = now;
        found.reason = "";
        found.message = "";
      }
    }
    return out;
  }
  if (unstarted) return out;  // never started: the runner starts it
  // Gone, and what was left of it (provably it) killed.
  storage::TrialUpdate& update = out.update.emplace();
  if (spec_->resume_policy == api::ResumePolicy::kFromVolume) {
    // Its folder outlives it (Katib's volume): it runs again, as a
    // preempted trial does, and picks up what it saved there.
    update.phase = TrialPhase::kPending;
    update.reason = kRestartedReason;
    update.message = "the server restarted and the trial's process was gone; it starts "
                     "again under its name, with its checkpoint folder (resumePolicy FromVolume)";
    update.pid = 0;
    update.job_id = "";
    return out;
  }
  update.phase = TrialPhase::kFailed;
  update.reason = kRestartedReason;
  update.message = "the server restarted and the trial's process was gone";
  update.completion_time_ms = now;
  return out;
}

Effects TrialLedger::OnLeaseTick(const Trial& t, int64_t now) {
  Effects out;
  const int64_t lease_ms = int64_t{spec_->trial_lease_seconds} * 1000;
  if (runner_run_ || lease_ms <= 0 || t.phase != TrialPhase::kRunning) return out;
  // Running with no lease: loaded at start-up, so the lease starts now.
  auto [it, fresh] = renewed_ms_.try_emplace(t.name, now);
  if (it->second + lease_ms > now) return out;
  storage::TrialUpdate& update = out.update.emplace();
  update.phase = TrialPhase::kFailed;
  update.reason = "Abandoned";
  update.message = "no report for " + std::to_string((now - it->second) / 1000) +
                   " s (trialLeaseSeconds " + std::to_string(spec_->trial_lease_seconds) +
                   "): the client that asked for it stopped reporting; its slot is free";
  update.completion_time_ms = now;
  out.note = "abandoned (" + *update.message + ")";
  Forget(t.name);
  return out;
}


}  // namespace hpt::controller
