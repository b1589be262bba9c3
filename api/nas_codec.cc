// Katib's nasConfig in the spec's JSON form, both ways.

#include <string>

#include "api/json_reader.h"
#include "api/spec_codec.h"

namespace hpt::api {
namespace {

using json = nlohmann::json;

void DecodeSizes(JsonReader& r, const json& g, const std::string& p,
                 const char* key, std::vector<int>& out) {
  const json* list = r.Array(g, p, key, false);
  if (!list) return;
  std::string lp = JsonReader::Path(p, key);
  for (size_t i = 0; i < list->size(); ++i) {
    std::string ip = JsonReader::Path(lp, i);
    std::optional<std::string> text = r.Text((*list)[i], ip);
    if (!text) continue;
    std::optional<int64_t> v = ParseInt(*text);
    if (!v || *v < 1 || *v > 1 << 20) {
      r.Problem(ip, "must be a positive integer, got '" + *text + "'");
      continue;
    }
    out.push_back(static_cast<int>(*v));
  }
}

}  // namespace

void DecodeNasConfig(JsonReader& r, const json& j, NasConfig& config) {
  const std::string p = "nasConfig";
  r.RejectUnknown(j, p, {"graphConfig", "operations"});
  if (const json* g = r.Object(j, p, "graphConfig", true)) {
    std::string gp = p + ".graphConfig";
    r.RejectUnknown(*g, gp, {"numLayers", "inputSizes", "outputSizes"});
    if (auto n = r.Int(*g, gp, "numLayers", true)) config.num_layers = *n;
    DecodeSizes(r, *g, gp, "inputSizes", config.input_sizes);
    DecodeSizes(r, *g, gp, "outputSizes", config.output_sizes);
  }
  const json* ops = r.Array(j, p, "operations", true);
  if (!ops) return;
  for (size_t i = 0; i < ops->size(); ++i) {
    std::string op = JsonReader::Path(p + ".operations", i);
    const json& o = (*ops)[i];
    if (!o.is_object()) {
      r.Problem(op, "must be a mapping, not " + JsonTypeName(o));
      continue;
    }
    r.RejectUnknown(o, op, {"operationType", "parameters"});
    NasOperation operation;
    if (auto t = r.String(o, op, "operationType", true)) {
      operation.operation_type = *t;
    }
    if (const json* params = r.Array(o, op, "parameters", false)) {
      for (size_t k = 0; k < params->size(); ++k) {
        std::string pp = JsonReader::Path(op + ".parameters", k);
        if (!(*params)[k].is_object()) {
          r.Problem(pp, "must be a mapping, not " + JsonTypeName((*params)[k]));
          continue;
        }
        ParameterSpec param;
        DecodeParameter(r, (*params)[k], pp, param);
        if (param.parent) r.Problem(pp + ".parent", "is for the experiment's parameters only");
        operation.parameters.push_back(std::move(param));
      }
    }
    config.operations.push_back(std::move(operation));
  }
}

json NasConfigToJson(const NasConfig& config) {
  json graph = {{"numLayers", config.num_layers}};
  if (!config.input_sizes.empty()) graph["inputSizes"] = config.input_sizes;
  if (!config.output_sizes.empty()) graph["outputSizes"] = config.output_sizes;
  json ops = json::array();
  for (const NasOperation& o : config.operations) {
    json params = json::array();
    for (const ParameterSpec& p : o.parameters) {
      params.push_back(ParameterToJson(p));
    }
    ops.push_back({{"operationType", o.operation_type}, {"parameters", params}});
  }
  return {{"graphConfig", graph}, {"operations", ops}};
}

}  // namespace hpt::api
