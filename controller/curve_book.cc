// An experiment's objective curves for early stopping (curve_book.h).
#include "controller/curve_book.h"

#include <spdlog/spdlog.h>

#include "earlystop/curve.h"

namespace hpt::controller {

CurveBook::CurveBook(std::unique_ptr<earlystop::Policy> policy, std::string metric)
    : policy_(std::move(policy)), metric_(std::move(metric)) {}

void CurveBook::Load(const std::string& experiment, const std::vector<api::Trial>& trials,
                     storage::Store& store) {
  if (loaded_) return;
  auto stored = store.ListMetricCurves(experiment, metric_);
  if (!stored.ok()) {
    spdlog::warn("experiment {}: cannot read curves: {}", experiment, stored.status().message());
    return;
  }
  curves_.clear();
  index_.clear();
  for (const api::Trial& t : trials) {
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
    index_[t.name] = curves_.size();
    curves_.push_back(std::move(curve));
  }
  loaded_ = true;
}

void CurveBook::Append(const api::Trial& trial, const api::Observation& observation) {
  if (!loaded_) return;  // the first load reads it from the store
  auto value = observation.metrics.find(metric_);
  if (value == observation.metrics.end()) return;
  auto it = index_.find(trial.name);
  if (it == index_.end()) {
    it = index_.emplace(trial.name, curves_.size()).first;
    curves_.push_back({trial.name, trial.phase, {}});
  }
  earlystop::SetPoint(curves_[it->second], {observation.step, value->second});
}

void CurveBook::SetPhase(const std::string& trial, api::TrialPhase phase) {
  auto it = index_.find(trial);
  if (it != index_.end()) curves_[it->second].phase = phase;
}

StatusOr<earlystop::StopDecision> CurveBook::Evaluate(const api::ExperimentSpec& spec,
                                                      const std::vector<api::Trial>& trials,
                                                      const std::string& trial,
                                                      storage::Store& store) {
  if (!policy_) return earlystop::StopDecision{};
  Load(api::KeyOf(spec), trials, store);
  if (!loaded_) return Unavailable("experiment '" + spec.name + "': curves unreadable");
  // Trials created since the load, with no point yet.
  if (curves_.size() != trials.size()) {
    for (const api::Trial& t : trials) {
      if (index_.count(t.name)) continue;
      index_[t.name] = curves_.size();
      curves_.push_back({t.name, t.phase, {}});
    }
  }
  auto it = index_.find(trial);
  if (it == index_.end()) {
    return NotFound("trial '" + trial + "' not found in experiment '" + spec.name + "'");
  }
  return policy_->ShouldStop(spec, curves_[it->second], curves_);
}

}  // namespace hpt::controller
