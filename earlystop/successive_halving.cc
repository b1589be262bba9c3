#include "earlystop/successive_halving.h"

#include <cmath>
#include <cstdint>
#include <optional>
#include <string>

#include "api/spec_codec.h"
#include "earlystop/curve.h"
#include "earlystop/settings.h"

namespace hpt::earlystop {
namespace {

// Guards rung arithmetic in floating point: 1 * 3^4 must reach step 81.
constexpr double kSlack = 1e-9;

struct Settings {
  double eta = SuccessiveHalving::kDefaultEta;
  int64_t min_resource = SuccessiveHalving::kDefaultMinResource;
};

StatusOr<Settings> ReadSettings(const api::ExperimentSpec& spec) {
  const api::EarlyStoppingSpec& es = spec.early_stopping;
  HPT_RETURN_IF_ERROR(CheckSettingNames(
      es, SuccessiveHalving::kName,
      {SuccessiveHalving::kEta, SuccessiveHalving::kMinResource,
       SuccessiveHalving::kResourceName}));
  Settings s;
  HPT_ASSIGN_OR_RETURN(std::optional<double> eta,
                       NumberSetting(es, SuccessiveHalving::kEta));
  if (eta) {
    if (*eta <= 1) {
      return InvalidArgument(
          SettingPath(*FindSetting(es, SuccessiveHalving::kEta)) +
          ".value: eta must be greater than 1, got " + api::FormatDouble(*eta));
    }
    s.eta = *eta;
  }
  HPT_ASSIGN_OR_RETURN(std::optional<int64_t> min_resource,
                       IntSetting(es, SuccessiveHalving::kMinResource));
  if (min_resource) {
    if (*min_resource < 1) {
      return InvalidArgument(
          SettingPath(*FindSetting(es, SuccessiveHalving::kMinResource)) +
          ".value: min_resource must be at least 1, got " +
          std::to_string(*min_resource));
    }
    s.min_resource = *min_resource;
  }
  if (std::optional<size_t> i =
          FindSetting(es, SuccessiveHalving::kResourceName)) {
    const std::string& step_key = spec.metrics_collector.step_key;
    if (es.settings[*i].value != step_key) {
      return InvalidArgument(
          SettingPath(*i) + ".value: asha's resource is the step trials " +
          "report, which the metrics collector reads from '" + step_key +
          "'; resource_name must be '" + step_key + "' or be left out, got '" +
          es.settings[*i].value + "'");
    }
  }
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
