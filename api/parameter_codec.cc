// A parameter's entry of the spec (also a NAS operation's), decoded and
// encoded: the building blocks spec_codec.h declares for spec_codec.cc and
// nas_codec.cc.
#include <charconv>
#include <cmath>
#include <cstdlib>
#include <string>

#include "api/json_reader.h"
#include "api/spec_codec.h"

namespace hpt::api {

using nlohmann::json;

namespace {

// A list entry or parent value: any JSON scalar, as the text the
// algorithms see ("null", "true", "3", "0.5", FormatDouble for a float)
// and the JSON type it came with.
std::optional<std::string> ChoiceText(JsonReader& r, const json& v, const std::string& path,
                                      ChoiceType* type) {
  *type = ChoiceType::kString;
  if (v.is_null()) {
    *type = ChoiceType::kNull;
    return "null";
  }
  if (v.is_boolean()) *type = ChoiceType::kBool;
  if (v.is_number_integer()) *type = ChoiceType::kInteger;  // unsigned too
  if (v.is_number_float()) {
    *type = ChoiceType::kFloat;
    if (!std::isfinite(v.get<double>())) {
      r.Problem(path, "must be a finite number");
      return std::nullopt;
    }
  }
  if (v.is_object() || v.is_array()) {
    r.Problem(path, "must be a string, number, true, false or null, not " + JsonTypeName(v));
    return std::nullopt;
  }
  return r.Text(v, path);
}

// The inverse of ChoiceText: entry i of the list as the JSON it was given.
json ChoiceToJson(const FeasibleSpace& s, size_t i) {
  const std::string& text = s.list[i];
  switch (s.TypeOf(i)) {
    case ChoiceType::kNull:
      return nullptr;
    case ChoiceType::kBool:
      return text == "true";
    case ChoiceType::kInteger: {
      int64_t n = 0;
      if (std::from_chars(text.data(), text.data() + text.size(), n).ec == std::errc()) return n;
      uint64_t u = 0;
      if (std::from_chars(text.data(), text.data() + text.size(), u).ec == std::errc()) return u;
      return text;
    }
    case ChoiceType::kFloat:
      return std::strtod(text.c_str(), nullptr);
    case ChoiceType::kString:
      break;
  }
  return text;
}

}  // namespace

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
        ChoiceType type;
        if (auto v = ChoiceText(r, (*values)[i], JsonReader::Path(pp + ".values", i), &type)) {
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
      ChoiceType type;
      if (auto v = ChoiceText(r, (*list)[i], JsonReader::Path(fp + ".list", i), &type)) {
        space.list.push_back(*v);
        space.list_types.push_back(type);
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
  if (!s.list.empty()) {
    json list = json::array();
    for (size_t i = 0; i < s.list.size(); ++i) list.push_back(ChoiceToJson(s, i));
    fs["list"] = std::move(list);
  }
  if (s.distribution != Distribution::kUniform) {
    fs["distribution"] = ToString(s.distribution);
  }
  json out = {{"name", p.name}, {"parameterType", ToString(p.type)}, {"feasibleSpace", fs}};
  if (p.parent) out["parent"] = {{"name", p.parent->name}, {"values", p.parent->values}};
  if (p.defined_by_run) out["definedByRun"] = true;
  return out;
}

}  // namespace hpt::api
