#include "earlystop/hyperband_stop.h"

#include <cmath>
#include <optional>
#include <string>

#include "api/settings.h"
#include "api/spec_codec.h"
#include "earlystop/rungs.h"

namespace hpt::earlystop {
namespace {

// Tolerance for powers of eta in floating point: 3^3 is 27.
constexpr double kSlack = 1e-9;

struct Settings {
  double r_l = 0;
  double eta = HyperbandStop::kDefaultEta;
  int64_t min_resource = HyperbandStop::kDefaultMinResource;
};

StatusOr<Settings> ReadSettings(const api::ExperimentSpec& spec) {
  using HS = HyperbandStop;
  api::SettingsReader r(
      spec.early_stopping.settings, api::kEarlyStoppingSettingsPath, HS::kName,
      {HS::kRl, HS::kEta, HS::kMinResource, HS::kResourceName});
  Settings s;
  std::optional<double> r_l = r.OptionalNumber(HS::kRl, {.min = 1});
  if (!r.Has(HS::kRl)) {
    r.Missing(HS::kRl, "the step a trial reaches when it runs to the end");
  }
  s.eta = r.Number(HS::kEta, HS::kDefaultEta, {.above = 1});
  s.min_resource = r.Int(HS::kMinResource, HS::kDefaultMinResource, {.min = 1});
  if (r_l && *r_l < static_cast<double>(s.min_resource)) {
    r.Invalid(HS::kRl, "r_l " + api::FormatDouble(*r_l) +
                           " must be at least min_resource " +
                           std::to_string(s.min_resource));
  }
  const std::string& step_key = spec.metrics_collector.step_key;
  std::optional<std::string> resource = r.OptionalText(HS::kResourceName);
  if (resource && *resource != step_key) {
    r.Invalid(HS::kResourceName,
              "hyperband's resource is the step trials report, which the "
              "metrics collector reads from '" +
                  step_key + "'; resource_name must be '" + step_key +
                  "' or be left out, got '" + *resource + "'");
  }
  HPT_RETURN_IF_ERROR(r.ToStatus());
  s.r_l = *r_l;
  return s;
}

int SMax(double eta, double min_resource, double r_l) {
  int s = 0;
  while (min_resource * std::pow(eta, s + 1) <= r_l * (1 + kSlack)) ++s;
  return s;
}

}  // namespace

std::vector<int64_t> HyperbandBracketWeights(double eta, double min_resource,
                                             double r_l) {
  const int s_max = SMax(eta, min_resource, r_l);
  std::vector<int64_t> weights;
  for (int s = s_max; s >= 0; --s) {
    double n = (s_max + 1.0) / (s + 1.0) * std::pow(eta, s);
    weights.push_back(static_cast<int64_t>(std::ceil(n * (1 - kSlack))));
  }
  return weights;
}

int HyperbandBracketOf(std::string_view name,
                       const std::vector<int64_t>& weights) {
  uint64_t hash = 14695981039346656037ull;
  for (unsigned char c : name) {
    hash ^= c;
    hash *= 1099511628211ull;
  }
  uint64_t total = 0;
  for (int64_t w : weights) total += static_cast<uint64_t>(w);
  uint64_t at = hash % total;
  for (size_t b = 0; b < weights.size(); ++b) {
    if (at < static_cast<uint64_t>(weights[b])) return static_cast<int>(b);
    at -= static_cast<uint64_t>(weights[b]);
  }
  HPT_CHECK(false);
  return 0;
}

Status HyperbandStop::Validate(const api::ExperimentSpec& spec) const {
  return ReadSettings(spec).status();
}

StatusOr<StopDecision> HyperbandStop::ShouldStop(
    const api::ExperimentSpec& spec, const TrialCurve& trial,
    const std::vector<TrialCurve>& others) const {
  HPT_ASSIGN_OR_RETURN(Settings settings, ReadSettings(spec));
  if (api::IsFinished(trial.phase)) return StopDecision{};
  const double min_resource = static_cast<double>(settings.min_resource);
  const std::vector<int64_t> weights =
      HyperbandBracketWeights(settings.eta, min_resource, settings.r_l);
  const int bracket = HyperbandBracketOf(trial.name, weights);
  std::vector<const TrialCurve*> peers;
  for (const TrialCurve& other : others) {
    if (HyperbandBracketOf(other.name, weights) == bracket) {
      peers.push_back(&other);
    }
  }
  Rungs rungs{settings.eta, min_resource * std::pow(settings.eta, bracket),
              settings.r_l};
  if (std::abs(rungs.first - std::round(rungs.first)) < kSlack * rungs.first)
    rungs.first = std::round(rungs.first);
  StopDecision d = JudgeAtRung(spec, trial, peers, rungs);
  if (d.stop) {
    d.reason += " in bracket " + std::to_string(bracket) + " of " +
                std::to_string(weights.size());
  }
  return d;
}

}  // namespace hpt::earlystop
