// The Controller's early stopping: the experiment's policy judges a trial on
// every trial's objective curve whenever it reports (runner-run trials) or
// asks (client-run trials, through :shouldStop).
#include "server/controller.h"

namespace hpt::server {

using api::Experiment;
using api::TrialPhase;

std::shared_ptr<const Experiment> Controller::CachedExperiment(const std::string& name) {
  std::lock_guard<std::mutex> lock(cache_mu_);
  auto it = experiments_.find(name);
  if (it != experiments_.end()) return it->second;
  auto exp = store_->GetExperiment(name);
  if (!exp.ok()) return nullptr;
  auto shared = std::make_shared<const Experiment>(std::move(*exp));
  experiments_[name] = shared;
  return shared;
}

StatusOr<earlystop::StopDecision> Controller::EvaluateStopping(const Experiment& exp,
                                                               const std::string& trial) {
  const api::ExperimentSpec& spec = exp.spec;
  if (spec.early_stopping.name.empty()) return earlystop::StopDecision{};
  HPT_ASSIGN_OR_RETURN(auto policy, policies_->Create(spec.early_stopping.name));
  HPT_ASSIGN_OR_RETURN(auto trials, store_->ListTrials(spec.name));
  HPT_ASSIGN_OR_RETURN(auto curves,
                       store_->ListMetricCurves(spec.name, spec.objective.metric_name));
  std::vector<earlystop::TrialCurve> all;
  const earlystop::TrialCurve* target = nullptr;
  all.reserve(trials.size());
  for (const auto& t : trials) {
    earlystop::TrialCurve curve{t.name, t.phase, {}};
    auto points = curves.find(t.name);
    if (points != curves.end()) {
      for (const auto& p : points->second) {
        // A step reported twice counts once, with its latest value.
        if (!curve.points.empty() && curve.points.back().step == p.step) {
          curve.points.back().value = p.value;
        } else {
          curve.points.push_back({p.step, p.value});
        }
      }
    }
    all.push_back(std::move(curve));
  }
  for (const auto& c : all) {
    if (c.name == trial) target = &c;
  }
  if (!target) return NotFound("trial '" + trial + "' not found in experiment '" + spec.name + "'");
  return policy->ShouldStop(spec, *target, all);
}

void Controller::StopIfHopeless(const std::string& experiment, const std::string& trial) {
  auto exp = CachedExperiment(experiment);
  if (!exp || exp->spec.early_stopping.name.empty()) return;
  auto decision = EvaluateStopping(*exp, trial);
  if (!decision.ok() || !decision->stop) return;
  std::lock_guard<std::mutex> lock(mu_);
  auto t = store_->GetTrial(experiment, trial);
  if (!t.ok() || t->phase != TrialPhase::kRunning) return;
  storage::TrialUpdate update;
  update.phase = TrialPhase::kEarlyStopped;
  update.reason = "EarlyStopped";
  update.message = decision->reason;
  update.completion_time_ms = api::NowMillis();
  if (store_->UpdateTrial(experiment, trial, update).ok() && executor_) {
    executor_->Kill(experiment, trial);  // its exit keeps the EarlyStopped phase
  }
  MarkDirty(experiment);
}

StatusOr<earlystop::StopDecision> Controller::ShouldStop(const std::string& experiment,
                                                         const std::string& trial) {
  HPT_ASSIGN_OR_RETURN(api::Trial t, store_->GetTrial(experiment, trial));
  if (t.phase == TrialPhase::kEarlyStopped) return earlystop::StopDecision{true, t.message};
  if (api::IsFinished(t.phase)) return earlystop::StopDecision{};
  auto exp = CachedExperiment(experiment);
  if (!exp) return NotFound("experiment '" + experiment + "' not found");
  HPT_ASSIGN_OR_RETURN(earlystop::StopDecision decision, EvaluateStopping(*exp, trial));
  if (decision.stop) {
    std::lock_guard<std::mutex> lock(mu_);
    stop_advised_.insert(experiment + "/" + trial);
  }
  return decision;
}

}  // namespace hpt::server
