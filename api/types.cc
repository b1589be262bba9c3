#include "api/types.h"

#include <algorithm>
#include <chrono>

namespace hpt::api {
namespace {

template <typename E, size_t N>
std::optional<E> Lookup(const std::string& s, const char* const (&names)[N]) {
  for (size_t i = 0; i < N; ++i) {
    if (s == names[i]) return static_cast<E>(i);
  }
  return std::nullopt;
}

constexpr const char* kParameterTypes[] = {"double", "int", "discrete",
                                           "categorical"};
constexpr const char* kDistributions[] = {"uniform", "logUniform", "normal",
                                          "logNormal"};
constexpr const char* kObjectiveTypes[] = {"minimize", "maximize"};
constexpr const char* kTrialPhases[] = {
    "Pending",      "Running", "Succeeded",          "Failed",
    "EarlyStopped", "MetricsUnavailable", "Killed"};
constexpr const char* kResumePolicies[] = {"Never", "LongRunning", "FromVolume"};
constexpr const char* kExperimentPhases[] = {"Created", "Running", "Succeeded",
                                             "Failed", "Stopped"};

}  // namespace

const char* ToString(ParameterType t) { return kParameterTypes[int(t)]; }
std::string ChoiceLiteral(const FeasibleSpace& space, size_t i) {
  const std::string& text = space.list[i];
  switch (space.TypeOf(i)) {
    case ChoiceType::kString:
      return "\"" + text + "\"";
    case ChoiceType::kFloat:  // 1.0 is listed as "1"
      return text.find_first_of(".eE") == std::string::npos ? text + ".0" : text;
    default:
      return text;
  }
}

const char* ToString(Distribution d) { return kDistributions[int(d)]; }
const char* ToString(ObjectiveType t) { return kObjectiveTypes[int(t)]; }
const char* ToString(TrialPhase p) { return kTrialPhases[int(p)]; }
const char* ToString(ExperimentPhase p) { return kExperimentPhases[int(p)]; }
const char* ToString(ResumePolicy p) { return kResumePolicies[int(p)]; }
std::optional<ResumePolicy> ParseResumePolicy(const std::string& s) {
  return Lookup<ResumePolicy>(s, kResumePolicies);
}

std::optional<ParameterType> ParseParameterType(const std::string& s) {
  return Lookup<ParameterType>(s, kParameterTypes);
}
std::optional<Distribution> ParseDistribution(const std::string& s) {
  return Lookup<Distribution>(s, kDistributions);
}
std::optional<ObjectiveType> ParseObjectiveType(const std::string& s) {
  return Lookup<ObjectiveType>(s, kObjectiveTypes);
}
std::optional<TrialPhase> ParseTrialPhase(const std::string& s) {
  return Lookup<TrialPhase>(s, kTrialPhases);
}
std::optional<ExperimentPhase> ParseExperimentPhase(const std::string& s) {
  return Lookup<ExperimentPhase>(s, kExperimentPhases);
}

bool IsFinished(TrialPhase p) {
  return p != TrialPhase::kPending && p != TrialPhase::kRunning;
}
bool IsFinished(ExperimentPhase p) {
  return p == ExperimentPhase::kSucceeded || p == ExperimentPhase::kFailed ||
         p == ExperimentPhase::kStopped;
}

namespace {

// Katib's defaulting webhook: a metric without a strategy takes its
// objective's direction (min to minimize, max to maximize); an additional
// metric takes the first objective's.
std::string DefaultStrategy(const Objective& objective, const std::string& name) {
  ObjectiveType type = objective.type;
  for (const ObjectiveMetric& m : objective.more_objectives) {
    if (m.metric_name == name) type = m.type;
  }
  return type == ObjectiveType::kMaximize ? "max" : "min";
}

std::optional<double> MetricValue(const Trial& trial, const Objective& objective,
                                  const std::string& name) {
  auto given = objective.metric_strategies.find(name);
  const std::string strategy = given != objective.metric_strategies.end()
                                   ? given->second
                                   : DefaultStrategy(objective, name);
  for (const auto& m : trial.metrics) {
    if (m.name != name) continue;
    if (strategy == "min") return m.min;
    if (strategy == "max") return m.max;
    return m.latest;
  }
  return std::nullopt;
}

}  // namespace

std::optional<double> ObjectiveValue(const Trial& trial,
                                     const Objective& objective) {
  return MetricValue(trial, objective, objective.metric_name);
}

std::vector<ObjectiveMetric> Objectives(const Objective& objective) {
  std::vector<ObjectiveMetric> out = {{objective.metric_name, objective.type}};
  out.insert(out.end(), objective.more_objectives.begin(),
             objective.more_objectives.end());
  return out;
}

bool IsMultiObjective(const Objective& objective) {
  return !objective.more_objectives.empty();
}

std::optional<std::vector<double>> ObjectiveValues(const Trial& trial,
                                                   const Objective& objective) {
  std::vector<double> out;
  for (const ObjectiveMetric& m : Objectives(objective)) {
    std::optional<double> v = MetricValue(trial, objective, m.metric_name);
    if (!v) return std::nullopt;
    out.push_back(*v);
  }
  return out;
}

std::string MissingObjective(const Trial& trial, const Objective& objective) {
  for (const ObjectiveMetric& m : Objectives(objective)) {
    if (!MetricValue(trial, objective, m.metric_name)) return m.metric_name;
  }
  return "";
}

void MergeLatest(std::vector<MetricSummary>& summaries,
                 const std::map<std::string, double>& metrics) {
  for (const auto& entry : metrics) {
    const std::string& name = entry.first;
    const double value = entry.second;
    auto it = std::find_if(summaries.begin(), summaries.end(),
                           [&](const MetricSummary& m) { return m.name == name; });
    if (it == summaries.end()) {
      summaries.push_back({name, value, value, value});
      continue;
    }
    it->min = std::min(it->min, value);
    it->max = std::max(it->max, value);
    it->latest = value;
  }
}

bool IsBetter(double a, double b, ObjectiveType type) {
  return type == ObjectiveType::kMinimize ? a < b : a > b;
}

const std::string* FindValue(const Assignment& a, const std::string& name) {
  for (const auto& p : a) {
    if (p.name == name) return &p.value;
  }
  return nullptr;
}

int64_t NowMillis() {
  return std::chrono::duration_cast<std::chrono::milliseconds>(
             std::chrono::system_clock::now().time_since_epoch())
      .count();
}

}  // namespace hpt::api
