#include "controller/builtins.h"

#include "api/container.h"
#include "api/text.h"
#include "api/validation.h"
#include "api/nas.h"

namespace hpt::controller {

std::unique_ptr<Builtins> NewBuiltins() {
  auto builtins = std::make_unique<Builtins>();
  suggestion::RegisterBuiltins(builtins->algorithms, api::DartsAvailable());
  earlystop::RegisterBuiltins(builtins->policies);
  runner::RegisterBuiltinExecutors(builtins->executors);
  return builtins;
}

std::map<std::string, std::string> UnavailableAlgorithms() {
  std::map<std::string, std::string> out;
  if (Status s = api::DartsAvailable(); !s.ok()) out["darts"] = s.message();
  return out;
}

Status ValidateWithAlgorithms(const api::ExperimentSpec& spec,
                              const Registry<suggestion::Algorithm>& algorithms,
                              const Registry<earlystop::Policy>& policies) {
  Status spec_status = api::ValidateSpec(spec);
  std::string problems = spec_status.ok() ? "" : spec_status.message();
  auto add = [&](const std::string& p) { problems += (problems.empty() ? "" : "; ") + p; };
  if (!spec.algorithm.name.empty()) {
    auto algorithm = algorithms.Create(spec.algorithm.name);
    if (!algorithm.ok()) {
      add("algorithm.algorithmName: " + algorithm.status().message());
    } else if (spec_status.ok()) {
      // Algorithms may assume a structurally valid spec.
      Status s = (*algorithm)->Validate(spec);
      if (!s.ok()) add(s.message());
    }
  }
  if (!spec.early_stopping.name.empty()) {
    auto policy = policies.Create(spec.early_stopping.name);
    if (!policy.ok()) {
      add("earlyStopping.algorithmName: " + policy.status().message());
    } else if (spec_status.ok()) {
      Status s = (*policy)->Validate(spec);
      if (!s.ok()) add(s.message());
    }
  }
  if (problems.empty()) return Status::Ok();
  return InvalidArgument(problems);
}

std::vector<std::string> EarlyStoppingNotes(
    const api::ExperimentSpec& spec, const Registry<earlystop::Policy>& policies) {
  if (spec.early_stopping.name.empty()) return {};
  auto policy = policies.Create(spec.early_stopping.name);
  if (!policy.ok() || !(*policy)->Validate(spec).ok()) return {};
  return (*policy)->Notes(spec);
}

Status ValidateExperimentSpec(const api::ExperimentSpec& spec) {
  auto builtins = NewBuiltins();
  Status s = ValidateWithAlgorithms(spec, builtins->algorithms, builtins->policies);
  // Without a server, any executor hpt has is fine (a server may offer fewer).
  const std::string executor = spec.trial_template ? spec.trial_template->executor : "";
  if (executor.empty() || executor == api::kContainerExecutor ||
      builtins->executors.Contains(executor)) {
    return s;
  }
  std::string problem = "trialTemplate.executor: '" + executor + "' is not one of hpt's executors (" +
                        api::Join(builtins->executors.Names(), ", ") + ")";
  return InvalidArgument(s.ok() ? problem : s.message() + "; " + problem);
}

}  // namespace hpt::controller
