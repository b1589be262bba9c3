// ExperimentRunner's early stopping. The objective curve of every trial is
// read from the store once, then kept in step as observations arrive, so a
// decision costs the policy's own work and no store reads or copies.
#include <spdlog/spdlog.h>

#include <algorithm>

#include "controller/experiment_runner.h"
#include "earlystop/curve.h"

namespace hpt::controller {

using api::Trial;
using api::TrialPhase;

void ExperimentRunner::LoadCurvesLocked() {
  if (curves_loaded_) return;
  auto stored = deps_.store->ListMetricCurves(name_, exp_.spec.objective.metric_name);
  if (!stored.ok()) {
    spdlog::warn("experiment {}: cannot read curves: {}", name_, stored.status().message());
    return;
  }
  curves_.clear();
  curve_index_.clear();
  for (const Trial& t : trials_) {
    earlystop::TrialCurve curve{t.name, t.phase, {}};
    auto points = stored->find(t.name);
    if (points != stored->end()) {
      for (const auto& p : points->second) {
        // A step reported twice counts once, with its latest value.
        if (!curve.points.empty() && curve.points.back().step == p.step) {
          curve.points.back().value = p.value;
        } else {
          curve.points.push_back({p.step, p.value});
        }
      }
    }
    curve_index_[t.name] = curves_.size();
    curves_.push_back(std::move(curve));
  }
  curves_loaded_ = true;
}

void ExperimentRunner::AppendCurveLocked(const std::string& trial,
                                         const api::Observation& observation) {
  if (!curves_loaded_) return;  // the first load reads it from the store
  auto value = observation.metrics.find(exp_.spec.objective.metric_name);
  if (value == observation.metrics.end()) return;
  auto it = curve_index_.find(trial);
  if (it == curve_index_.end()) {
    const Trial* t = FindLocked(trial);
    it = curve_index_.emplace(trial, curves_.size()).first;
    curves_.push_back({trial, t ? t->phase : TrialPhase::kRunning, {}});
  }
  earlystop::SetPoint(curves_[it->second], {observation.step, value->second});
}

void ExperimentRunner::SetCurvePhaseLocked(const std::string& trial, TrialPhase phase) {
  auto it = curve_index_.find(trial);
  if (it != curve_index_.end()) curves_[it->second].phase = phase;
}

StatusOr<earlystop::StopDecision> ExperimentRunner::EvaluateLocked(const std::string& trial) {
  if (!policy_) return earlystop::StopDecision{};
  LoadCurvesLocked();
  if (!curves_loaded_) return Unavailable("experiment '" + name_ + "': curves unreadable");
  // Trials created since the load, with no point yet.
  if (curves_.size() != trials_.size()) {
    for (const Trial& t : trials_) {
      if (curve_index_.count(t.name)) continue;
      curve_index_[t.name] = curves_.size();
      curves_.push_back({t.name, t.phase, {}});
    }
  }
  auto it = curve_index_.find(trial);
  if (it == curve_index_.end()) {
    return NotFound("trial '" + trial + "' not found in experiment '" + name_ + "'");
  }
  return policy_->ShouldStop(exp_.spec, curves_[it->second], curves_);
}

void ExperimentRunner::StopIfHopelessLocked(Trial& t) {
  if (!policy_ || t.phase != TrialPhase::kRunning) return;
  auto decision = EvaluateLocked(t.name);
  if (!decision.ok() || !decision->stop) return;
  ApplyLocked(t, event::EarlyStop{decision->reason});
}

StatusOr<earlystop::StopDecision> ExperimentRunner::ShouldStop(const std::string& trial) {
  Locked lock(this);
  Trial* t = FindLocked(trial);
  if (!t) return NotFound("trial '" + trial + "' not found in experiment '" + name_ + "'");
  if (t->phase == TrialPhase::kEarlyStopped) return earlystop::StopDecision{true, t->message};
  if (api::IsFinished(t->phase)) return earlystop::StopDecision{};
  if (!runner_run_) ApplyLocked(*t, event::Renewed{});  // asking is a sign of life
  HPT_ASSIGN_OR_RETURN(earlystop::StopDecision decision, EvaluateLocked(trial));
  if (decision.stop && t->reason != "EarlyStopAdvised") {
    // Stored, so that the advice outlives a restart: the trial completes as
    // EarlyStopped.
    storage::TrialUpdate update;
    update.reason = "EarlyStopAdvised";
    update.message = decision.reason;
    HPT_RETURN_IF_ERROR(WriteNowLocked(*t, update));
  }
  return decision;
}

}  // namespace hpt::controller
