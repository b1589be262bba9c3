#include "earlystop/patient_stop.h"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>

#include "api/settings.h"
#include "api/spec_codec.h"
#include "api/text.h"

namespace hpt::earlystop {
namespace {

using PS = PatientStop;

struct Settings {
  int64_t patience = 0;
  double min_delta = 0;
  std::unique_ptr<Policy> wrapped;       // null: stop
  api::ExperimentSpec wrapped_spec;      // its settings, when wrapped
};

bool IsOwn(const std::string& name) {
  return name == PS::kPatience || name == PS::kMinDelta ||
         name == PS::kWrappedPruner;
}

// `message` with each "<settings path>[i]" naming index[i] instead: the
// settings were split, their problems name the spec's positions.
std::string Renumber(const std::string& message,
                     const std::vector<size_t>& index) {
  const std::string key = std::string(api::kEarlyStoppingSettingsPath) + "[";
  std::string out;
  size_t at = 0;
  while (true) {
    size_t found = message.find(key, at);
    if (found == std::string::npos) break;
    size_t digits = found + key.size();
    size_t close = message.find(']', digits);
    out += message.substr(at, digits - at);
    size_t i = std::stoul(message.substr(digits, close - digits));
    out += std::to_string(i < index.size() ? index[i] : i);
    at = close;
  }
  return out + message.substr(at);
}

StatusOr<Settings> ReadSettings(const api::ExperimentSpec& spec,
                                const Registry<Policy>& policies) {
  const auto& all = spec.early_stopping.settings;
  const bool wraps = std::any_of(all.begin(), all.end(), [](const auto& s) {
    return s.name == PS::kWrappedPruner;
  });
  // Without a wrapped policy every setting is patient's; with one, the
  // others are the wrapped policy's.
  std::vector<api::AlgorithmSetting> own, rest;
  std::vector<size_t> own_index, rest_index;
  for (size_t i = 0; i < all.size(); ++i) {
    bool mine = !wraps || IsOwn(all[i].name);
    (mine ? own : rest).push_back(all[i]);
    (mine ? own_index : rest_index).push_back(i);
  }
  api::SettingsReader r(own, api::kEarlyStoppingSettingsPath, PS::kName,
                        {PS::kPatience, PS::kMinDelta, PS::kWrappedPruner});
  Settings s;
  if (!r.Has(PS::kPatience)) {
    r.Missing(PS::kPatience,
              "the reports without improvement a trial is allowed");
  }
  s.patience = r.Int(PS::kPatience, 0, {.min = 0});
  s.min_delta = r.Number(PS::kMinDelta, 0, {.min = 0});
  std::string problems;
  if (std::optional<std::string> name = r.OptionalText(PS::kWrappedPruner)) {
    std::string wrapped(api::Trim(*name));
    for (char& c : wrapped) c = static_cast<char>(std::tolower(c));
    if (wrapped == PS::kName) {
      r.Invalid(PS::kWrappedPruner, "patient cannot wrap patient");
    } else if (!wrapped.empty() && wrapped != "none") {
      auto policy = policies.Create(wrapped);
      if (!policy.ok()) {
        r.Invalid(PS::kWrappedPruner, policy.status().message());
      } else {
        s.wrapped = std::move(*policy);
        s.wrapped_spec = spec;
        s.wrapped_spec.early_stopping.name = wrapped;
        s.wrapped_spec.early_stopping.settings = rest;
        if (Status v = s.wrapped->Validate(s.wrapped_spec); !v.ok()) {
          problems = Renumber(v.message(), rest_index);
        }
      }
    }
  }
  if (!r.ok()) {
    std::string own_problems = Renumber(r.ToStatus().message(), own_index);
    problems = problems.empty() ? own_problems : own_problems + "; " + problems;
  }
  if (!problems.empty()) return InvalidArgument(problems);
  return s;
}

}  // namespace

Status PatientStop::Validate(const api::ExperimentSpec& spec) const {
  return ReadSettings(spec, *policies_).status();
}

StatusOr<StopDecision> PatientStop::ShouldStop(
    const api::ExperimentSpec& spec, const TrialCurve& trial,
    const std::vector<TrialCurve>& others) const {
  HPT_ASSIGN_OR_RETURN(Settings s, ReadSettings(spec, *policies_));
  if (api::IsFinished(trial.phase)) return StopDecision{};
  std::vector<CurvePoint> points;
  for (const CurvePoint& p : trial.points) {
    if (std::isfinite(p.value)) points.push_back(p);
  }
  std::sort(points.begin(), points.end(),
            [](const CurvePoint& a, const CurvePoint& b) {
              return a.step < b.step;
            });
  const size_t window = static_cast<size_t>(s.patience) + 1;
  if (points.size() <= window) return StopDecision{};
  const api::ObjectiveType type = spec.objective.type;
  auto best_of = [&](size_t from, size_t to) {
    double best = points[from].value;
    for (size_t i = from; i < to; ++i) {
      if (api::IsBetter(points[i].value, best, type)) best = points[i].value;
    }
    return best;
  };
  const size_t split = points.size() - window;
  const double before = best_of(0, split);
  const double after = best_of(split, points.size());
  const bool stalled = type == api::ObjectiveType::kMaximize
                           ? before - s.min_delta > after
                           : before + s.min_delta < after;
  if (!stalled) return StopDecision{};
  if (s.wrapped) return s.wrapped->ShouldStop(s.wrapped_spec, trial, others);
  return StopDecision{
      true, "best " + spec.objective.metric_name + " " +
                api::FormatDouble(after) + " over the last " +
                std::to_string(window) + " reports (to step " +
                std::to_string(points.back().step) + ") is worse than " +
                api::FormatDouble(before) + " before them" +
                (s.min_delta > 0
                     ? " by more than min_delta " + api::FormatDouble(s.min_delta)
                     : "")};
}

std::vector<std::string> PatientStop::Notes(
    const api::ExperimentSpec& spec) const {
  StatusOr<Settings> s = ReadSettings(spec, *policies_);
  if (!s.ok() || !s->wrapped) return {};
  return s->wrapped->Notes(s->wrapped_spec);
}

}  // namespace hpt::earlystop
