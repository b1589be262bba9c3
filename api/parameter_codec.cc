// A parameter's entry of the spec (also a NAS operation's), decoded and
// encoded: the building blocks spec_codec.h declares for spec_codec.cc and
// nas_codec.cc.
#include <string>

#include "api/json_reader.h"
#include "api/spec_codec.h"

namespace hpt::api {

using nlohmann::json;

void DecodeParameter(JsonReader& r, const json& j, const std::string& p,
                     ParameterSpec& param) {
  r.RejectUnknown(j, p, {"name", "parameterType", "feasibleSpace", "parent", "definedByRun"});
  if (auto n = r.String(j, p, "name", true)) param.name = *n;
  if (auto b = r.Bool(j, p, "definedByRun")) param.defined_by_run = *b;
  if (const json* parent = r.Object(j, p, "parent", false)) {
    // api/conditions.h: active only when `name` takes one of `values`.
    const std::string pp = p + ".parent";
    r.RejectUnknown(*parent, pp, {"name", "values"});
    ParentCondition& c = param.parent.emplace();
    if (auto n = r.String(*parent, pp, "name", true)) c.name = *n;
    if (const json* values = r.Array(*parent, pp, "values", true)) {
      for (size_t i = 0; i < values->size(); ++i) {
        if (auto v = r.Text((*values)[i], JsonReader::Path(pp + ".values", i))) {
          c.values.push_back(*v);
        }
      }
    }
  }
  if (auto t = r.String(j, p, "parameterType", true)) {
    if (auto parsed = ParseParameterType(*t)) {
      param.type = *parsed;
    } else {
      r.Problem(p + ".parameterType",
                "'" + *t + "' must be double, int, discrete or categorical");
    }
  }
  const json* fs = r.Object(j, p, "feasibleSpace", true);
  if (!fs) return;
  std::string fp = p + ".feasibleSpace";
  r.RejectUnknown(*fs, fp, {"min", "max", "step", "list", "distribution"});
  FeasibleSpace& space = param.feasible_space;
  space.min = r.NumberOrString(*fs, fp, "min", false);
  space.max = r.NumberOrString(*fs, fp, "max", false);
  space.step = r.NumberOrString(*fs, fp, "step", false);
  if (const json* list = r.Array(*fs, fp, "list", false)) {
    for (size_t i = 0; i < list->size(); ++i) {
      if (auto v = r.Text((*list)[i], JsonReader::Path(fp + ".list", i))) {
        space.list.push_back(*v);
      }
    }
  }
  if (auto d = r.String(*fs, fp, "distribution", false)) {
    if (auto parsed = ParseDistribution(*d)) {
      space.distribution = *parsed;
    } else {
      r.Problem(fp + ".distribution",
                "'" + *d + "' must be uniform, logUniform, normal or logNormal");
    }
  }
}

json ParameterToJson(const ParameterSpec& p) {
  json fs = json::object();
  const FeasibleSpace& s = p.feasible_space;
  if (s.min) fs["min"] = *s.min;
  if (s.max) fs["max"] = *s.max;
  if (s.step) fs["step"] = *s.step;
  if (!s.list.empty()) fs["list"] = s.list;
  if (s.distribution != Distribution::kUniform) {
    fs["distribution"] = ToString(s.distribution);
  }
  json out = {{"name", p.name}, {"parameterType", ToString(p.type)}, {"feasibleSpace", fs}};
  if (p.parent) out["parent"] = {{"name", p.parent->name}, {"values", p.parent->values}};
  if (p.defined_by_run) out["definedByRun"] = true;
  return out;
}

}  // namespace hpt::api
