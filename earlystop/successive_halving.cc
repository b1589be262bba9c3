#include "earlystop/successive_halving.h"

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "api/settings.h"
#include "earlystop/rungs.h"

namespace hpt::earlystop {
namespace {

struct Settings {
  double eta = SuccessiveHalving::kDefaultEta;
  int64_t min_resource = SuccessiveHalving::kDefaultMinResource;
};

StatusOr<Settings> ReadSettings(const api::ExperimentSpec& spec) {
  using SH = SuccessiveHalving;
  api::SettingsReader r(spec.early_stopping.settings,
                        api::kEarlyStoppingSettingsPath, SH::kName,
                        {SH::kEta, SH::kMinResource, SH::kResourceName});
  Settings s;
  s.eta = r.Number(SH::kEta, SH::kDefaultEta, {.above = 1});
  s.min_resource = r.Int(SH::kMinResource, SH::kDefaultMinResource, {.min = 1});
  const std::string& step_key = spec.metrics_collector.step_key;
  std::optional<std::string> resource = r.OptionalText(SH::kResourceName);
  if (resource && *resource != step_key) {
    r.Invalid(SH::kResourceName,
              "asha's resource is the step trials report, which the metrics "
              "collector reads from '" +
                  step_key + "'; resource_name must be '" + step_key +
                  "' or be left out, got '" + *resource + "'");
  }
  HPT_RETURN_IF_ERROR(r.ToStatus());
  return s;
}

}  // namespace

Status SuccessiveHalving::Validate(const api::ExperimentSpec& spec) const {
  return ReadSettings(spec).status();
}

StatusOr<StopDecision> SuccessiveHalving::ShouldStop(
    const api::ExperimentSpec& spec, const TrialCurve& trial,
    const std::vector<TrialCurve>& others) const {
  HPT_ASSIGN_OR_RETURN(Settings settings, ReadSettings(spec));
  if (api::IsFinished(trial.phase)) return StopDecision{};
  std::vector<const TrialCurve*> peers;
  peers.reserve(others.size());
  for (const TrialCurve& other : others) peers.push_back(&other);
  return JudgeAtRung(
      spec, trial, peers,
      {settings.eta, static_cast<double>(settings.min_resource)});
}

}  // namespace hpt::earlystop
