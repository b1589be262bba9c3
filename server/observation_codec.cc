#include "server/observation_codec.h"

#include <set>

#include "api/constraints.h"
#include "api/input_limits.h"
#include "api/json_reader.h"

namespace hpt::server {
namespace {

using api::JsonReader;
using nlohmann::json;

constexpr size_t kMaxBatch = 100000;

// Adds the metrics of `obj` to `out`; `names` collects the distinct names of
// the whole request, which may hold at most kMaxMetricsPerReport.
void DecodeMetrics(JsonReader& r, const json& obj, const std::string& path,
                   std::map<std::string, double>* out,
                   std::set<std::string>* names) {
  if (!obj.is_object()) {
    r.Problem(path, "must be a mapping of metric name to number, not " +
                        api::JsonTypeName(obj));
    return;
  }
  for (const auto& [name, value] : obj.items()) {
    if (!api::IsSafeName(name)) {
      r.Problem(path, "metric name " + api::SafeNameProblem(name));
      continue;
    }
    if (names->insert(name).second && names->size() > api::kMaxMetricsPerReport) {
      r.Problem(path, "at most " + std::to_string(api::kMaxMetricsPerReport) +
                          " distinct metric names per request");
      return;
    }
    std::string p = path + "." + name;
    if (!value.is_number()) {
      r.Problem(p, "must be a finite number, not " + api::JsonTypeName(value));
    } else if (!std::isfinite(value.get<double>())) {
      r.Problem(p, "must be finite");
    } else {
      (*out)[name] = value.get<double>();
    }
  }
}

void DecodeOne(JsonReader& r, const json& obj, const std::string& path,
               int64_t timestamp_ms, std::vector<api::Observation>* out,
               std::set<std::string>* names) {
  if (!obj.is_object()) {
    r.Problem(path.empty() ? "body" : path, "must be a mapping with step and metrics");
    return;
  }
  r.RejectUnknown(obj, path, {"step", "metrics"});
  api::Observation o;
  o.timestamp_ms = timestamp_ms;
  auto step = r.Number(obj, path, "step", false);
  if (step && (*step != std::floor(*step) || *step < 0 || *step > 9e15)) {
    r.Problem(JsonReader::Path(path, "step"), "must be a non-negative integer");
  } else if (step) {
    o.step = static_cast<int64_t>(*step);
  }
  auto m = obj.find("metrics");
  if (m == obj.end()) {
    r.Problem(JsonReader::Path(path, "metrics"), "is required");
    return;
  }
  DecodeMetrics(r, *m, JsonReader::Path(path, "metrics"), &o.metrics, names);
  if (o.metrics.empty() && m->is_object()) {
    r.Problem(JsonReader::Path(path, "metrics"), "must name at least one metric");
  }
  out->push_back(std::move(o));
}

}  // namespace

StatusOr<std::vector<api::Observation>> DecodeObservations(const json& body,
                                                           int64_t timestamp_ms) {
  JsonReader r;
  std::vector<api::Observation> out;
  std::set<std::string> names;
  if (body.is_object() && body.contains("observations")) {
    r.RejectUnknown(body, "", {"observations"});
    const json* list = r.Array(body, "", "observations", true);
    if (list && list->empty()) r.Problem("observations", "must not be empty");
    if (list && list->size() > kMaxBatch) {
      r.Problem("observations", "at most " + std::to_string(kMaxBatch) +
                                    " per request, not " + std::to_string(list->size()));
    } else if (list) {
      out.reserve(list->size());
      for (size_t i = 0; i < list->size(); ++i) {
        DecodeOne(r, (*list)[i], JsonReader::Path("observations", i), timestamp_ms, &out,
                  &names);
        if (r.problems().size() > 20) break;  // enough to act on
      }
    }
  } else {
    DecodeOne(r, body, "", timestamp_ms, &out, &names);
  }
  HPT_RETURN_IF_ERROR(r.ToStatus());
  return out;
}

namespace {

// `"constraints": [c0, c1, ...]`, finite numbers (<= 0: satisfied), added
// to the completion's metrics as constraint_0, constraint_1, ...
void DecodeConstraints(JsonReader& r, const json& obj, const std::string& path,
                       controller::Completion* c) {
  const std::string at = JsonReader::Path(path, "constraints");
  const json* list = r.Array(obj, path, "constraints", false);
  if (!list) return;
  if (c->infeasible) {
    r.Problem(at, "an infeasible trial reports no constraint values");
    return;
  }
  if (list->size() > api::kMaxConstraints) {
    r.Problem(at, "at most " + std::to_string(api::kMaxConstraints) + " values, not " +
                      std::to_string(list->size()));
    return;
  }
  for (size_t i = 0; i < list->size(); ++i) {
    const json& v = (*list)[i];
    const std::string p = JsonReader::Path(at, i);
    const std::string name = api::ConstraintMetricName(i);
    if (!v.is_number()) {
      r.Problem(p, "must be a finite number (<= 0: satisfied), not " + api::JsonTypeName(v));
    } else if (!std::isfinite(v.get<double>())) {
      r.Problem(p, "must be finite");
    } else if (c->metrics.count(name)) {
      r.Problem(p, "metrics also names " + name + ", the same value");
    } else {
      c->metrics[name] = v.get<double>();
    }
  }
}

// One completion at `path` ("" for a whole body); problems go to `r`.
controller::Completion DecodeCompletionAt(JsonReader& r, const json& obj,
                                          const std::string& path) {
  controller::Completion c;
  c.infeasible = r.Bool(obj, path, "infeasible").value_or(false);
  if (auto reason = r.String(obj, path, "reason", false)) {
    if (reason->size() > api::kMaxReasonLength) {
      r.Problem(path.empty() ? "reason" : path + ".reason",
                "must be at most " + std::to_string(api::kMaxReasonLength) + " bytes, not " +
                    std::to_string(reason->size()));
    }
    c.reason = *reason;
  }
  const std::string used_path = path.empty() ? "usedParameters" : path + ".usedParameters";
  if (const json* used = r.Array(obj, path, "usedParameters", false)) {
    auto& names = c.used_parameters.emplace();
    for (size_t i = 0; i < used->size() && i < api::kMaxParameters; ++i) {
      if (auto n = r.Text((*used)[i], JsonReader::Path(used_path, i))) names.push_back(*n);
    }
    if (used->size() > api::kMaxParameters) {
      r.Problem(used_path, "at most " + std::to_string(api::kMaxParameters) + " names");
    }
  }
  auto m = obj.find("metrics");
  if (m != obj.end()) {
    std::set<std::string> names;
    const std::string at = path.empty() ? "metrics" : path + ".metrics";
    DecodeMetrics(r, *m, at, &c.metrics, &names);
    if (c.infeasible && !c.metrics.empty()) {
      r.Problem(at, "an infeasible trial reports no metrics");
    }
  }
  DecodeConstraints(r, obj, path, &c);
  return c;
}

}  // namespace

StatusOr<controller::Completion> DecodeCompletion(const json& body) {
  JsonReader r;
  if (!body.is_object()) return InvalidArgument("body must be a JSON object");
  r.RejectUnknown(body, "", {"metrics", "infeasible", "reason", "constraints", "usedParameters"});
  controller::Completion c = DecodeCompletionAt(r, body, "");
  HPT_RETURN_IF_ERROR(r.ToStatus());
  return c;
}

StatusOr<std::vector<controller::NamedCompletion>> DecodeCompletions(const json& body) {
  constexpr size_t kMaxCompletions = 1000;
  if (!body.is_object()) return InvalidArgument("body must be a JSON object");
  JsonReader r;
  r.RejectUnknown(body, "", {"trials"});
  auto list = body.find("trials");
  if (list == body.end() || !list->is_array() || list->empty()) {
    return InvalidArgument("trials: a non-empty list of {\"name\", \"metrics\"} is required");
  }
  if (list->size() > kMaxCompletions) {
    return InvalidArgument("trials: at most " + std::to_string(kMaxCompletions) +
                           " per request, not " + std::to_string(list->size()));
  }
  std::vector<controller::NamedCompletion> out;
  for (size_t i = 0; i < list->size(); ++i) {
    const std::string path = "trials[" + std::to_string(i) + "]";
    const json& entry = (*list)[i];
    if (!entry.is_object()) {
      r.Problem(path, "must be an object");
      continue;
    }
    r.RejectUnknown(entry, path,
                    {"name", "metrics", "infeasible", "reason", "constraints", "usedParameters"});
    controller::NamedCompletion named;
    if (auto name = r.String(entry, path, "name", true)) named.trial = *name;
    named.completion = DecodeCompletionAt(r, entry, path);
    out.push_back(std::move(named));
  }
  HPT_RETURN_IF_ERROR(r.ToStatus());
  return out;
}

}  // namespace hpt::server
