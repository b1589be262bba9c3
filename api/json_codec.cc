#include "api/json_codec.h"

#include <algorithm>
#include <ctime>
#include <optional>

#include "api/constraints.h"
#include "api/experiment_status.h"
#include "api/pareto.h"
#include "api/spec_codec.h"
#include "api/user_attrs.h"

namespace hpt::api {

using nlohmann::json;

json TimeToJson(int64_t millis) {
  if (millis <= 0) return nullptr;
  std::time_t secs = millis / 1000;
  std::tm tm{};
  gmtime_r(&secs, &tm);
  char buf[40];
  size_t n = std::strftime(buf, sizeof(buf), "%Y-%m-%dT%H:%M:%S", &tm);
  std::snprintf(buf + n, sizeof(buf) - n, ".%03dZ", int(millis % 1000));
  return std::string(buf);
}

json AssignmentToJson(const Assignment& assignment) {
  json arr = json::array();
  for (const auto& p : assignment) {
    arr.push_back({{"name", p.name}, {"value", p.value}});
  }
  return arr;
}

json TrialToJson(const Trial& t, const Objective& objective) {
  json metrics = json::array();
  for (const auto& m : t.metrics) {
    metrics.push_back(
        {{"name", m.name}, {"min", m.min}, {"max", m.max}, {"latest", m.latest}});
  }
  std::optional<double> value = ObjectiveValue(t, objective);
  json j = {{"name", t.name},
            {"index", t.index},
            {"parameterAssignments", AssignmentToJson(t.assignment)},
            {"phase", ToString(t.phase)},
            {"reason", t.reason},
            {"message", t.message},
            {"metrics", metrics},
            {"objectiveValue", value ? json(*value) : json(nullptr)},
            {"creationTime", TimeToJson(t.creation_time_ms)},
            {"startTime", TimeToJson(t.start_time_ms)},
            {"completionTime", TimeToJson(t.completion_time_ms)}};
  if (t.exit_code) j["exitCode"] = *t.exit_code;
  j["preemptions"] = t.preemptions;
  if (!t.outputs.empty()) j["outputs"] = t.outputs;
  if (HasConstraints(t)) {
    j["constraints"] = ConstraintValues(t);
    j["feasible"] = IsFeasible(t);
  }
  j["userAttrs"] = UserAttrsToJson(t.user_attrs);
  return j;
}

json ObservationToJson(const Observation& o) {
  return {{"step", o.step},
          {"timestamp", TimeToJson(o.timestamp_ms)},
          {"metrics", o.metrics}};
}

json ExperimentToJson(const Experiment& e, const std::vector<Trial>& trials) {
  TrialCounts c = CountTrials(trials);
  const auto preempted = std::count_if(trials.begin(), trials.end(),
                                       [](const Trial& t) { return t.preemptions > 0; });
  json status = {
      {"phase", ToString(e.phase)},
      {"reason", e.reason},
      {"message", e.message},
      {"creationTime", TimeToJson(e.creation_time_ms)},
      {"startTime", TimeToJson(e.start_time_ms)},
      {"completionTime", TimeToJson(e.completion_time_ms)},
      {"trials",
       {{"total", c.total},
        {"pending", c.pending},
        {"running", c.running},
        {"succeeded", c.succeeded},
        {"failed", c.failed},
        {"earlyStopped", c.early_stopped},
        {"metricsUnavailable", c.metrics_unavailable},
        {"killed", c.killed},
        {"imported", c.imported},
        {"preempted", preempted}}},
      {"currentOptimalTrial", nullptr},
      {"queuedTrials", e.queue.size()}};
  if (auto best = BestTrialIndex(trials, e.spec.objective)) {
    const Trial& t = trials[*best];
    status["currentOptimalTrial"] = {
        {"name", t.name},
        {"parameterAssignments", AssignmentToJson(t.assignment)},
        {"objectiveValue", *ObjectiveValue(t, e.spec.objective)}};
    if (!t.outputs.empty()) status["currentOptimalTrial"]["outputs"] = t.outputs;
  }
  json warnings = json::array();
  for (const ExperimentWarning& w : ExperimentWarnings(trials, e.spec)) {
    warnings.push_back({{"reason", w.reason}, {"message", w.message}, {"trial", w.trial}});
  }
  status["warnings"] = std::move(warnings);
  if (IsMultiObjective(e.spec.objective)) {
    // The trials no other dominates; their values in Objectives() order.
    json front = json::array();
    for (const FrontMember& m : ParetoFront(trials, e.spec.objective)) {
      front.push_back({{"name", trials[m.index].name},
                       {"parameterAssignments", AssignmentToJson(trials[m.index].assignment)},
                       {"objectiveValues", m.values}});
    }
    status["paretoFront"] = std::move(front);
  }
  json j = {{"name", e.spec.name},
            {"namespace", e.spec.namespace_name},
            {"spec", SpecToJson(e.spec)},
            {"userAttrs", UserAttrsToJson(e.user_attrs)},
            {"status", status}};
  return j;
}

}  // namespace hpt::api
