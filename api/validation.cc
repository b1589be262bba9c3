#include "api/validation.h"

#include <cctype>

#include <cmath>
#include <map>
#include <optional>
#include <regex>
#include <set>

#include "api/conditions.h"
#include "api/container.h"
#include "api/input_limits.h"
#include "api/json_reader.h"
#include "api/nas.h"
#include "api/metrics_format.h"
#include "api/spec_codec.h"
#include "api/trial_template.h"
#include "api/validation_parts.h"

namespace hpt::api {
namespace {

constexpr int kMaxLeaseSeconds = 7 * 24 * 3600;

using validation::HasNul;
using validation::kNulProblem;
using validation::ValidateCollector;
using validation::ValidateResources;
using validation::ValidateTemplate;

void ValidateParameter(JsonReader& r, const ParameterSpec& p,
                       const std::string& path) {
  const FeasibleSpace& s = p.feasible_space;
  const std::string fp = path + ".feasibleSpace";
  if (!IsSafeName(p.name)) r.Problem(path + ".name", SafeNameProblem(p.name));
  bool numeric = p.type == ParameterType::kDouble || p.type == ParameterType::kInt;
  if (numeric) {
    if (!s.list.empty()) {
      r.Problem(fp + ".list", std::string("is only for discrete and categorical "
                                          "parameters, not ") + ToString(p.type));
    }
    if (!s.min) r.Problem(fp + ".min", "is required");
    if (!s.max) r.Problem(fp + ".max", "is required");
    if (s.min && s.max && *s.min > *s.max) {
      r.Problem(fp, "min " + FormatDouble(*s.min) + " is above max " +
                        FormatDouble(*s.max));
    } else if (s.min && s.max && !std::isfinite(*s.max - *s.min)) {
      // Every algorithm scales by the width: an infinite one has no scale.
      r.Problem(fp, "the width max - min overflows a double (min " +
                        FormatDouble(*s.min) + ", max " + FormatDouble(*s.max) + ")");
    }
    if (p.type == ParameterType::kInt) {
      for (auto [v, key] : {std::pair{s.min, "min"}, {s.max, "max"}, {s.step, "step"}}) {
        if (v && *v != std::floor(*v)) {
          r.Problem(fp + "." + key, FormatDouble(*v) + " is not an integer");
        }
      }
    }
    if (s.step && *s.step <= 0) {
      r.Problem(fp + ".step", "must be positive, not " + FormatDouble(*s.step));
    }
    bool log = s.distribution == Distribution::kLogUniform ||
               s.distribution == Distribution::kLogNormal;
    if (log && s.min && *s.min <= 0) {
      r.Problem(fp + ".min", std::string("must be positive for a ") +
                                 ToString(s.distribution) + " distribution, not " +
                                 FormatDouble(*s.min));
    }
    return;
  }
  for (auto [v, key] : {std::pair{s.min, "min"}, {s.max, "max"}, {s.step, "step"}}) {
    if (v) r.Problem(fp + "." + key, std::string("is not used by ") + ToString(p.type) +
                                         " parameters (give a list)");
  }
  if (s.distribution != Distribution::kUniform) {
    r.Problem(fp + ".distribution", std::string("is not used by ") + ToString(p.type) +
                                        " parameters");
  }
  if (s.list.empty()) r.Problem(fp + ".list", "must have at least one value");
  // Discrete: by number, so 1 is 1.0. Categorical: by text, which the
  // algorithms and the trial's command see, so 1 and 1.0 and "1" are one
  // choice, and so are null and "null", true and "true".
  std::map<std::string, size_t> seen;
  for (size_t i = 0; i < s.list.size(); ++i) {
    std::string ip = JsonReader::Path(fp + ".list", i);
    std::optional<double> number =
        p.type == ParameterType::kDiscrete ? ParseNumber(s.list[i]) : std::nullopt;
    std::string key = number ? FormatDouble(*number) : s.list[i];
    auto [first, fresh] = seen.emplace(key, i);
    if (!fresh) {
      const size_t j = first->second;
      std::string as;
      if (s.list[j] != s.list[i]) {
        as = " (as '" + s.list[j] + "')";
      } else if (s.TypeOf(j) != s.TypeOf(i)) {
        as = " (as " + ChoiceLiteral(s, j) + " and " + ChoiceLiteral(s, i) +
             ": choices must differ as text)";
      }
      r.Problem(ip, "'" + s.list[i] + "' is listed twice" + as);
    }
    if (p.type == ParameterType::kDiscrete && !number) {
      r.Problem(ip, "'" + s.list[i] + "' is not a number (discrete values are "
                                      "numbers; use categorical for text)");
    }
    if (s.list[i].empty()) r.Problem(ip, "must not be empty");
    if (HasNul(s.list[i])) r.Problem(ip, kNulProblem);
  }
}


// Caps on every list a user gives, checked before anything else so that an
// oversized spec costs no more than its decoding.
void ValidateSizes(JsonReader& r, const ExperimentSpec& spec) {
  auto cap = [&r](const std::string& path, size_t size, size_t max) {
    if (size > max) {
      r.Problem(path, "at most " + std::to_string(max) + " entries, not " +
                          std::to_string(size));
    }
  };
  cap("parameters", spec.parameters.size(), kMaxParameters);
  for (size_t i = 0; i < spec.parameters.size() && r.ok(); ++i) {
    cap(JsonReader::Path("parameters", i) + ".feasibleSpace.list",
        spec.parameters[i].feasible_space.list.size(), kMaxListValues);
    if (spec.parameters[i].parent) {
      cap(JsonReader::Path("parameters", i) + ".parent.values",
          spec.parameters[i].parent->values.size(), kMaxListValues);
    }
  }
  cap("objective.objectives", spec.objective.more_objectives.size() + 1,
      kMaxObjectives);
  cap("objective.additionalMetricNames",
      spec.objective.additional_metric_names.size(), kMaxMetricNames - 1);
  cap("warmStart.fromExperiments", spec.warm_start_from.size(), kMaxWarmStartExperiments);
  cap("algorithm.algorithmSettings", spec.algorithm.settings.size(),
      kMaxSettings);
  cap("earlyStopping.algorithmSettings", spec.early_stopping.settings.size(),
      kMaxSettings);
  if (spec.trial_template) {
    const TrialTemplate& t = *spec.trial_template;
    cap("trialTemplate.command", t.command.size(), kMaxCommandArgs);
    cap("trialTemplate.container.args", t.container.args.size(), kMaxCommandArgs);
    cap("trialTemplate.trialParameters", t.trial_parameters.size(),
        kMaxParameters);
    cap("trialTemplate.env", t.env.size(), kMaxEnvVars);
  }
  cap("metricsCollectorSpec.source.filter.metricsFormat",
      spec.metrics_collector.metrics_format.size(), kMaxMetricsFormats);
}

}  // namespace

bool IsDnsLabel(const std::string& name) {
  static const std::regex kLabel("[a-z0-9]([-a-z0-9]*[a-z0-9])?");
  return !name.empty() && name.size() <= 63 && std::regex_match(name, kLabel);
}

Status ValidateSpec(const ExperimentSpec& spec) {
  JsonReader r;
  ValidateSizes(r, spec);
  if (!r.ok()) return r.ToStatus();
  if (!IsDnsLabel(spec.name)) {
    r.Problem("name", "'" + spec.name +
                          "' must be a lowercase DNS label (a-z, 0-9 and '-', "
                          "starting and ending with a letter or digit, at most 63)");
  }
  const Objective& o = spec.objective;
  if (!IsSafeName(o.metric_name)) {
    r.Problem("objective.objectiveMetricName", SafeNameProblem(o.metric_name));
  }
  std::set<std::string> metrics = {o.metric_name};
  for (size_t i = 0; i < o.more_objectives.size(); ++i) {
    const std::string& m = o.more_objectives[i].metric_name;
    std::string path =
        JsonReader::Path("objective.objectives", i + 1) + ".objectiveMetricName";
    if (!IsSafeName(m)) {
      r.Problem(path, SafeNameProblem(m));
    } else if (!metrics.insert(m).second) {
      r.Problem(path, "'" + m + "' is listed twice");
    }
  }
  const std::set<std::string> objective_metrics = metrics;
  if (IsMultiObjective(o) && o.goal) {
    r.Problem("objective.goal", "a goal needs a single objective; a multi-objective "
                                "search runs until maxTrialCount");
  }
  for (size_t i = 0; i < o.additional_metric_names.size(); ++i) {
    const std::string& m = o.additional_metric_names[i];
    std::string path = JsonReader::Path("objective.additionalMetricNames", i);
    if (!IsSafeName(m)) {
      r.Problem(path, SafeNameProblem(m));
    } else if (objective_metrics.count(m)) {
      r.Problem(path, "must not repeat the objective metric '" + m + "'");
    } else if (!metrics.insert(m).second) {
      r.Problem(path, "'" + m + "' is listed twice");
    }
  }
  for (const auto& [name, value] : o.metric_strategies) {
    if (!metrics.count(name)) {
      r.Problem("objective.metricStrategies", "'" + name +
                                                  "' is neither the objective nor an "
                                                  "additional metric");
    }
    if (value != "min" && value != "max" && value != "latest") {
      r.Problem("objective.metricStrategies", "'" + value + "' for '" + name +
                                                  "' must be min, max or latest");
    }
  }
  for (size_t i = 0; i < spec.warm_start_from.size(); ++i) {
    const std::string& from = spec.warm_start_from[i];
    const std::string path = JsonReader::Path("warmStart.fromExperiments", i);
    if (!IsDnsLabel(from)) {
      r.Problem(path, "'" + from + "' is not an experiment name");
    } else if (from == spec.name) {
      r.Problem(path, "an experiment cannot warm-start from itself");
    }
  }
  if (spec.max_trial_count <= 0) {
    r.Problem("maxTrialCount", "must be positive, not " +
                                   std::to_string(spec.max_trial_count));
  }
  if (spec.parallel_trial_count <= 0) {
    r.Problem("parallelTrialCount", "must be positive, not " +
                                        std::to_string(spec.parallel_trial_count));
  } else if (spec.max_trial_count > 0 &&
             spec.parallel_trial_count > spec.max_trial_count) {
    r.Problem("parallelTrialCount",
              std::to_string(spec.parallel_trial_count) +
                  " must not exceed maxTrialCount " +
                  std::to_string(spec.max_trial_count));
  }
  if (spec.max_failed_trial_count < 0 ||
      spec.max_failed_trial_count > std::max(spec.max_trial_count, 0)) {
    r.Problem("maxFailedTrialCount",
              std::to_string(spec.max_failed_trial_count) +
                  " must be between 0 and maxTrialCount " +
                  std::to_string(spec.max_trial_count));
  }
  if (spec.trial_lease_seconds < 0 || spec.trial_lease_seconds > kMaxLeaseSeconds) {
    r.Problem("trialLeaseSeconds", std::to_string(spec.trial_lease_seconds) +
                                       " must be between 0 (no lease) and " +
                                       std::to_string(kMaxLeaseSeconds) + " (a week)");
  }
  if (spec.nas_config) {
    if (!spec.parameters.empty()) {
      r.Problem("parameters", "a neural architecture search (nasConfig) takes no "
                              "parameters; its space is nasConfig.operations");
    }
    // Only darts reads nasConfig: another NAS algorithm's operations and
    // trial parameters (ENAS's) are not checked against darts' rules.
    auto primitives = spec.algorithm.name == "darts"
                          ? DartsPrimitives(*spec.nas_config)
                          : StatusOr<std::vector<std::string>>(std::vector<std::string>());
    if (spec.algorithm.name != "darts") {
      r.Problem("algorithm.algorithmName",
                "nasConfig is searched by darts only, not '" + spec.algorithm.name + "'");
    } else if (!primitives.ok()) {
      // One problem per "path: what", as every other field reports them.
      std::string all = primitives.status().message();
      for (size_t start = 0; start < all.size();) {
        size_t end = all.find("; ", start);
        if (end == std::string::npos) end = all.size();
        std::string p = all.substr(start, end - start);
        size_t colon = p.find(": ");
        r.Problem(p.substr(0, colon), colon == std::string::npos ? "invalid" : p.substr(colon + 2));
        start = end + 2;
      }
    }
  } else if (spec.parameters.empty() && spec.algorithm.name != "darts" && spec.trial_template) {
    // darts says nasConfig is missing. A client-run experiment may start
    // empty: its trials define its parameters as they ask for them.
    r.Problem("parameters", "must not be empty");
  }
  std::set<std::string> names;
  for (size_t i = 0; i < spec.parameters.size(); ++i) {
    std::string path = JsonReader::Path("parameters", i);
    if (!spec.parameters[i].name.empty() &&
        !names.insert(spec.parameters[i].name).second) {
      r.Problem(path + ".name", "'" + spec.parameters[i].name + "' is defined twice");
    }
    ValidateParameter(r, spec.parameters[i], path);
  }
  for (const ConditionProblem& c : ConditionProblems(spec.parameters)) {
    r.Problem(c.path, c.what);
  }
  if (spec.algorithm.name.empty()) {
    r.Problem("algorithm.algorithmName", "must not be empty");
  }
  // A NAS algorithm hpt lacks has trial parameters nobody here can give.
  bool foreign_nas = spec.nas_config && spec.algorithm.name != "darts";
  if (spec.trial_template && !foreign_nas) ValidateTemplate(r, spec);
  ValidateCollector(r, spec);
  return r.ToStatus();
}

}  // namespace hpt::api
