#include "api/spec_codec.h"

#include <algorithm>
#include <charconv>
#include <cmath>

#include "api/container_codec.h"
#include "api/json_reader.h"
#include "api/nas.h"
#include "api/quantity.h"
#include "api/resources_codec.h"
#include "api/validation.h"

namespace hpt::api {
namespace {

using nlohmann::json;

// A list of {name, value} mappings under `p`.`key`, as Katib writes
// algorithm settings and metric strategies.
std::vector<AlgorithmSetting> DecodeSettings(JsonReader& r, const json& j,
                                             const std::string& p, const std::string& key) {
  std::vector<AlgorithmSetting> out;
  const json* list = r.Array(j, p, key, false);
  if (!list) return out;
  for (size_t i = 0; i < list->size(); ++i) {
    std::string sp = JsonReader::Path(p + "." + key, i);
    const json& s = (*list)[i];
    if (!s.is_object()) {
      r.Problem(sp, "must be a mapping with name and value");
      continue;
    }
    r.RejectUnknown(s, sp, {"name", "value"});
    auto name = r.String(s, sp, "name", true);
    auto value = r.Text(s, sp, "value", true);
    if (name && value) out.push_back({*name, *value});
  }
  return out;
}

void DecodeObjective(JsonReader& r, const json& j, Objective& o) {
  const std::string p = "objective";
  r.RejectUnknown(j, p, {"type", "objectiveMetricName", "goal", "objectives",
                         "additionalMetricNames", "metricStrategies"});
  const json* list = r.Array(j, p, "objectives", false);
  // With objectives listed, the top-level pair is optional and, when
  // given, must be the first entry (it is what Katib clients read).
  if (auto t = r.String(j, p, "type", !list)) {
    if (auto parsed = ParseObjectiveType(*t)) {
      o.type = *parsed;
    } else {
      r.Problem(p + ".type", "'" + *t + "' must be minimize or maximize");
    }
  }
  if (auto m = r.String(j, p, "objectiveMetricName", !list)) o.metric_name = *m;
  if (list) {
    std::vector<ObjectiveMetric> all;
    for (size_t i = 0; i < list->size(); ++i) {
      const std::string ip = JsonReader::Path(p + ".objectives", i);
      const json& e = (*list)[i];
      if (!e.is_object()) {
        r.Problem(ip, "must be an object with type and objectiveMetricName");
        continue;
      }
      r.RejectUnknown(e, ip, {"type", "objectiveMetricName"});
      ObjectiveMetric m;
      if (auto t = r.String(e, ip, "type", true)) {
        if (auto parsed = ParseObjectiveType(*t)) {
          m.type = *parsed;
        } else {
          r.Problem(ip + ".type", "'" + *t + "' must be minimize or maximize");
        }
      }
      if (auto n = r.String(e, ip, "objectiveMetricName", true)) m.metric_name = *n;
      all.push_back(m);
    }
    if (list->empty()) r.Problem(p + ".objectives", "must list at least one objective");
    if (!all.empty() && r.ok()) {
      if (j.contains("objectiveMetricName") && o.metric_name != all[0].metric_name) {
        r.Problem(p + ".objectiveMetricName",
                  "'" + o.metric_name + "' must be the first of objectives ('" +
                      all[0].metric_name + "')");
      }
      if (j.contains("type") && o.type != all[0].type) {
        r.Problem(p + ".type", "must be the first objective's type, " +
                                   std::string(ToString(all[0].type)));
      }
      o.metric_name = all[0].metric_name;
      o.type = all[0].type;
      o.more_objectives.assign(all.begin() + 1, all.end());
    }
  }
  o.goal = r.NumberOrString(j, p, "goal", false);
  if (const json* names = r.Array(j, p, "additionalMetricNames", false)) {
    for (size_t i = 0; i < names->size(); ++i) {
      auto n = r.StringValue((*names)[i],
                             JsonReader::Path(p + ".additionalMetricNames", i));
      if (n) o.additional_metric_names.push_back(*n);
    }
  }
  for (const auto& [name, value] : DecodeSettings(r, j, p, "metricStrategies")) {
    o.metric_strategies[name] = value;
  }
}

// Decodes {algorithmName, algorithmSettings} under `p` ("algorithm" or
// "earlyStopping"; Katib spells both blocks the same way).
void DecodeAlgorithm(JsonReader& r, const json& j, const std::string& p,
                     AlgorithmSpec& a) {
  r.RejectUnknown(j, p, {"algorithmName", "algorithmSettings"});
  if (auto n = r.String(j, p, "algorithmName", true)) a.name = *n;
  a.settings = DecodeSettings(r, j, p, "algorithmSettings");
}

json EncodeAlgorithm(const AlgorithmSpec& a) {
  json settings = json::array();
  for (const auto& s : a.settings) {
    settings.push_back({{"name", s.name}, {"value", s.value}});
  }
  return {{"algorithmName", a.name}, {"algorithmSettings", settings}};
}

const json* Find(const json& j, const char* key) {
  auto it = j.find(key);
  return it == j.end() ? nullptr : &*it;
}

void DecodeTrialTemplate(JsonReader& r, const json& j, TrialTemplate& t) {
  const std::string p = "trialTemplate";
  r.RejectUnknown(j, p, {"command", "trialParameters", "workingDir", "env",
                         "resources", "timeoutSeconds", "executor", "container"});
  const json* container = r.Object(j, p, "container", false);
  if (container) DecodeContainer(r, *container, p + ".container", t.container);
  // With an image, no command: the image's ENTRYPOINT (api/container.h).
  if (const json* cmd = r.Array(j, p, "command", !container || !Find(*container, "image"))) {
    for (size_t i = 0; i < cmd->size(); ++i) {
      if (auto a = r.StringValue((*cmd)[i], JsonReader::Path(p + ".command", i))) {
        t.command.push_back(*a);
      }
    }
  }
  if (const json* tps = r.Array(j, p, "trialParameters", false)) {
    for (size_t i = 0; i < tps->size(); ++i) {
      std::string tp = JsonReader::Path(p + ".trialParameters", i);
      const json& e = (*tps)[i];
      if (!e.is_object()) {
        r.Problem(tp, "must be a mapping with name and reference");
        continue;
      }
      r.RejectUnknown(e, tp, {"name", "reference", "description"});
      TrialParameter param;
      if (auto n = r.String(e, tp, "name", true)) param.name = *n;
      if (auto ref = r.String(e, tp, "reference", true)) param.reference = *ref;
      if (auto d = r.String(e, tp, "description", false)) param.description = *d;
      t.trial_parameters.push_back(param);
    }
  }
  if (auto wd = r.String(j, p, "workingDir", false)) t.working_dir = *wd;
  if (const json* env = r.Object(j, p, "env", false)) {
    for (const auto& [k, v] : env->items()) {
      if (auto text = r.StringValue(v, p + ".env." + k)) t.env[k] = *text;
    }
  }
  if (const json* res = r.Object(j, p, "resources", false)) {
    DecodeResources(r, *res, p + ".resources", t.resources);
  }
  if (auto to = r.Int(j, p, "timeoutSeconds", false)) t.timeout_seconds = *to;
  if (auto ex = r.String(j, p, "executor", false)) t.executor = *ex;
}

void DecodeCollector(JsonReader& r, const json& j, MetricsCollector& c) {
  const std::string p = "metricsCollectorSpec";
  r.RejectUnknown(j, p, {"collector", "source", "stepKey"});
  if (const json* col = r.Object(j, p, "collector", false)) {
    // customCollector comes with kind Custom, which validation names.
    r.RejectUnknown(*col, p + ".collector", {"kind", "customCollector"});
    if (auto k = r.String(*col, p + ".collector", "kind", false)) c.kind = *k;
  }
  if (auto s = r.String(j, p, "stepKey", false)) c.step_key = *s;
  const json* src = r.Object(j, p, "source", false);
  if (!src) return;
  std::string sp = p + ".source";
  r.RejectUnknown(*src, sp, {"filter", "fileSystemPath"});
  if (const json* filter = r.Object(*src, sp, "filter", false)) {
    r.RejectUnknown(*filter, sp + ".filter", {"metricsFormat"});
    if (const json* fmts = r.Array(*filter, sp + ".filter", "metricsFormat", false)) {
      for (size_t i = 0; i < fmts->size(); ++i) {
        auto f = r.StringValue((*fmts)[i],
                               JsonReader::Path(sp + ".filter.metricsFormat", i));
        if (f) c.metrics_format.push_back(*f);
      }
    }
  }
  if (const json* fsp = r.Object(*src, sp, "fileSystemPath", false)) {
    r.RejectUnknown(*fsp, sp + ".fileSystemPath", {"path", "kind", "format"});
    if (auto path = r.String(*fsp, sp + ".fileSystemPath", "path", false)) {
      c.file_path = *path;
    }
  }
}

}  // namespace

std::string FormatDouble(double value) {
  if (value == std::floor(value) && std::fabs(value) < 1e15) {
    return std::to_string(static_cast<int64_t>(value));
  }
  char buf[64];
  auto res = std::to_chars(buf, buf + sizeof(buf), value);
  return std::string(buf, res.ptr);
}

StatusOr<ExperimentSpec> SpecFromJson(const json& j) {
  if (!j.is_object()) {
    return InvalidArgument("experiment spec must be a mapping, not " +
                           JsonTypeName(j));
  }
  JsonReader r;
  ExperimentSpec spec;
  r.RejectUnknown(j, "", {"name", "namespace", "priority", "objective", "algorithm", "parallelTrialCount",
                          "maxTrialCount", "maxFailedTrialCount", "trialLeaseSeconds",
                          "parameters", "trialTemplate", "metricsCollectorSpec", "earlyStopping",
                          "nasConfig", "warmStart", "resumePolicy"});
  if (auto n = r.String(j, "", "name", true)) spec.name = *n;
  if (auto ns = r.String(j, "", "namespace", false)) {
    if (IsDnsLabel(*ns)) {
      spec.namespace_name = *ns;
    } else {
      r.Problem("namespace", "'" + *ns + "' must be a lowercase DNS label");
    }
  }
  if (auto v = r.Int(j, "", "priority", false)) spec.priority = *v;
  if (auto v = r.String(j, "", "resumePolicy", false)) {
    if (auto parsed = ParseResumePolicy(*v)) {
      spec.resume_policy = *parsed;
    } else {
      r.Problem("resumePolicy", "'" + *v + "' must be Never, LongRunning or FromVolume");
    }
  }
  if (const json* w = r.Object(j, "", "warmStart", false)) {
    r.RejectUnknown(*w, "warmStart", {"fromExperiments"});
    if (const json* list = r.Array(*w, "warmStart", "fromExperiments", true)) {
      for (size_t i = 0; i < list->size(); ++i) {
        auto n = r.StringValue((*list)[i], JsonReader::Path("warmStart.fromExperiments", i));
        if (n) spec.warm_start_from.push_back(*n);
      }
    }
  }
  if (const json* o = r.Object(j, "", "objective", true)) {
    DecodeObjective(r, *o, spec.objective);
  }
  if (const json* a = r.Object(j, "", "algorithm", true)) {
    DecodeAlgorithm(r, *a, "algorithm", spec.algorithm);
  }
  if (const json* es = r.Object(j, "", "earlyStopping", false)) {
    DecodeAlgorithm(r, *es, "earlyStopping", spec.early_stopping);
  }
  std::optional<int> parallel = r.Int(j, "", "parallelTrialCount", false);
  if (auto v = r.Int(j, "", "maxTrialCount", true)) spec.max_trial_count = *v;
  // Unset, it is 3 but never more than the budget (a user who never wrote
  // it must not be told it is too large).
  if (parallel) {
    spec.parallel_trial_count = *parallel;
  } else if (spec.max_trial_count > 0) {
    spec.parallel_trial_count = std::min(spec.parallel_trial_count, spec.max_trial_count);
  }
  // Unset, it is 3 but never more than the budget, so a small experiment
  // needs no extra field.
  // Above maxTrialCount it could never be reached: taken as maxTrialCount
  // (the same budget), as Katib files that say so are, and PATCHes.
  if (auto v = r.Int(j, "", "maxFailedTrialCount", false)) {
    spec.max_failed_trial_count = spec.max_trial_count > 0 ? std::min(*v, spec.max_trial_count) : *v;
  } else if (spec.max_trial_count > 0) {
    spec.max_failed_trial_count = std::min(3, spec.max_trial_count);
  }
  if (auto v = r.Int(j, "", "trialLeaseSeconds", false)) spec.trial_lease_seconds = *v;
  // A neural architecture search has its space in nasConfig instead.
  bool nas = j.contains("nasConfig");
  if (const json* n = r.Object(j, "", "nasConfig", false)) {
    spec.nas_config.emplace();
    DecodeNasConfig(r, *n, *spec.nas_config);
  }
  // darts without nasConfig is told that nasConfig is missing (by its
  // validation), not that parameters are.
  if (const json* params = r.Array(j, "", "parameters", !nas && spec.algorithm.name != "darts")) {
    for (size_t i = 0; i < params->size(); ++i) {
      std::string pp = JsonReader::Path("parameters", i);
      if (!(*params)[i].is_object()) {
        r.Problem(pp, "must be a mapping, not " + JsonTypeName((*params)[i]));
        continue;
      }
      ParameterSpec param;
      DecodeParameter(r, (*params)[i], pp, param);
      spec.parameters.push_back(std::move(param));
    }
  }
  if (const json* t = r.Object(j, "", "trialTemplate", false)) {
    spec.trial_template.emplace();
    DecodeTrialTemplate(r, *t, *spec.trial_template);
  }
  if (const json* c = r.Object(j, "", "metricsCollectorSpec", false)) {
    DecodeCollector(r, *c, spec.metrics_collector);
  }
  // Validation (which checks the name) runs only on a decoded spec; when
  // decoding fails, a bad name is still worth reporting beside the rest.
  if (!r.ok() && !spec.name.empty() && !IsDnsLabel(spec.name)) {
    r.Problem("name", "'" + spec.name + "' must be a lowercase DNS label");
  }
  HPT_RETURN_IF_ERROR(r.ToStatus());
  CompleteNasSpec(spec);
  return spec;
}

StatusOr<ExperimentSpec> SpecFromYaml(std::string_view yaml) {
  HPT_ASSIGN_OR_RETURN(json j, YamlToJson(yaml));
  return SpecFromJson(j);
}

json SpecToJson(const ExperimentSpec& spec) {
  json j;
  j["name"] = spec.name;
  j["namespace"] = spec.namespace_name;
  if (spec.priority != 0) j["priority"] = spec.priority;
  if (spec.resume_policy != ResumePolicy::kNever) {
    j["resumePolicy"] = ToString(spec.resume_policy);
  }
  json obj = {{"type", ToString(spec.objective.type)},
              {"objectiveMetricName", spec.objective.metric_name},
              {"additionalMetricNames", spec.objective.additional_metric_names}};
  if (spec.objective.goal) obj["goal"] = *spec.objective.goal;
  if (!spec.objective.metric_strategies.empty()) {
    json strategies = json::array();
    for (const auto& [name, value] : spec.objective.metric_strategies) {
      strategies.push_back({{"name", name}, {"value", value}});
    }
    obj["metricStrategies"] = strategies;
  }
  if (IsMultiObjective(spec.objective)) {
    json list = json::array();
    for (const ObjectiveMetric& m : Objectives(spec.objective)) {
      list.push_back({{"type", ToString(m.type)}, {"objectiveMetricName", m.metric_name}});
    }
    obj["objectives"] = list;
  }
  j["objective"] = obj;
  j["algorithm"] = EncodeAlgorithm(spec.algorithm);
  j["parallelTrialCount"] = spec.parallel_trial_count;
  j["maxTrialCount"] = spec.max_trial_count;
  j["maxFailedTrialCount"] = spec.max_failed_trial_count;
  if (!spec.trial_template) j["trialLeaseSeconds"] = spec.trial_lease_seconds;
  json params = json::array();
  for (const auto& p : spec.parameters) params.push_back(ParameterToJson(p));
  j["parameters"] = params;
  if (spec.nas_config) j["nasConfig"] = NasConfigToJson(*spec.nas_config);
  if (!spec.warm_start_from.empty()) {
    j["warmStart"] = {{"fromExperiments", spec.warm_start_from}};
  }
  if (spec.trial_template) {
    const TrialTemplate& t = *spec.trial_template;
    json tps = json::array();
    for (const auto& tp : t.trial_parameters) {
      json e = {{"name", tp.name}, {"reference", tp.reference}};
      if (!tp.description.empty()) e["description"] = tp.description;
      tps.push_back(e);
    }
    json tj = {{"command", t.command}, {"trialParameters", tps},
               {"env", t.env}, {"resources", ResourcesToJson(t.resources)},
               {"timeoutSeconds", t.timeout_seconds}};
    if (!t.working_dir.empty()) tj["workingDir"] = t.working_dir;
    if (!t.executor.empty()) tj["executor"] = t.executor;
    if (!t.container.image.empty()) tj["container"] = ContainerToJson(t.container);
    j["trialTemplate"] = tj;
  }
  const MetricsCollector& c = spec.metrics_collector;
  json mc = {{"collector", {{"kind", c.kind}}}, {"stepKey", c.step_key}};
  json source = json::object();
  if (!c.metrics_format.empty()) {
    source["filter"] = {{"metricsFormat", c.metrics_format}};
  }
  if (!c.file_path.empty()) source["fileSystemPath"] = {{"path", c.file_path}};
  if (!source.empty()) mc["source"] = source;
  j["metricsCollectorSpec"] = mc;
  if (!spec.early_stopping.name.empty()) {
    j["earlyStopping"] = EncodeAlgorithm(spec.early_stopping);
  }
  return j;
}

}  // namespace hpt::api
