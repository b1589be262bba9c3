#include "earlystop/successive_halving.h"

#include <cmath>
#include <cstdint>
#include <optional>
#include <string>

#include "api/settings.h"
#include "api/spec_codec.h"
#include "earlystop/curve.h"

namespace hpt::earlystop {
namespace {

// Guards rung arithmetic in floating point: 1 * 3^4 must reach step 81.
constexpr double kSlack = 1e-9;

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
  std::optional<int64_t> step = LastStep(trial);
  if (!step) return StopDecision{};
  const double last = static_cast<double>(*step);
  double rung = static_cast<double>(settings.min_resource);
  if (last < rung - kSlack) return StopDecision{};
  int k = 0;
  while (rung * settings.eta <= last * (1 + kSlack)) {
    rung *= settings.eta;
    ++k;
  }
  // Snap 2.9999999 back to the integer rung it stands for.
  if (std::abs(rung - std::round(rung)) < kSlack * rung)
    rung = std::round(rung);

  const api::ObjectiveType type = spec.objective.type;
  const CurvePoint* mine = FirstAtOrAfter(trial, rung);
  if (mine == nullptr) return StopDecision{};
  int reached = 1;
  int better = 0;
  for (const TrialCurve& other : others) {
    if (other.name == trial.name) continue;
    const CurvePoint* p = FirstAtOrAfter(other, rung);
    if (p == nullptr) continue;
    ++reached;
    if (api::IsBetter(p->value, mine->value, type)) ++better;
  }
  int keep = static_cast<int>(std::floor(reached / settings.eta + kSlack));
  if (keep < 1) keep = 1;
  if (better < keep) return StopDecision{};
  return StopDecision{
      true, spec.objective.metric_name + " " + api::FormatDouble(mine->value) +
                " at step " + std::to_string(mine->step) + " (rung " +
                std::to_string(k) + ", step " + api::FormatDouble(rung) +
                ") is not in the top " + std::to_string(keep) + " of the " +
                std::to_string(reached) + " trials that reached the rung; " +
                std::to_string(better) + " did better"};
}

}  // namespace hpt::earlystop
