#include "api/resources_codec.h"

#include <cmath>

#include "api/quantity.h"

namespace hpt::api {
namespace {

using nlohmann::json;

// A quantity given as a JSON number or as Kubernetes text ("10Gi", "500m").
template <typename T, typename Parse>
std::optional<T> Quantity(JsonReader& r, const json& obj, const std::string& p,
                          const std::string& key, Parse parse, const char* example) {
  auto it = obj.find(key);
  if (it == obj.end()) return std::nullopt;
  std::optional<T> value;
  if (it->is_number()) {
    value = parse(it->dump());
  } else if (it->is_string()) {
    value = parse(it->get<std::string>());
  }
  if (!value) {
    r.Problem(p + "." + key, "'" + (it->is_string() ? it->get<std::string>() : it->dump()) +
                                 "' is not a quantity (e.g. " + example + ")");
  }
  return value;
}

}  // namespace

std::optional<int64_t> DecodeBytes(JsonReader& r, const json& obj, const std::string& p,
                                   const std::string& key) {
  return Quantity<int64_t>(r, obj, p, key, ParseBytes, "4Gi");
}

std::optional<double> DecodeCpus(JsonReader& r, const json& obj, const std::string& p,
                                 const std::string& key) {
  return Quantity<double>(r, obj, p, key, ParseCpus, "2 or 500m");
}

void DecodeResources(JsonReader& r, const json& j, const std::string& p, Resources& out) {
  r.RejectUnknown(j, p, {"gpu", "gpuMemory", "cpu", "memory", "pids"});
  if (auto g = r.Number(j, p, "gpu", false)) out.gpu = *g;
  if (auto m = Quantity<int64_t>(r, j, p, "gpuMemory", ParseBytes, "10Gi")) out.gpu_memory = *m;
  if (auto c = DecodeCpus(r, j, p, "cpu")) out.cpu = *c;
  if (auto m = DecodeBytes(r, j, p, "memory")) out.memory = *m;
  if (auto it = j.find("pids"); it != j.end()) {
    double n = it->is_number() ? it->get<double>() : 0;
    if (n >= 1 && n <= kMaxTrialPids && n == std::floor(n)) {
      out.pids = static_cast<int64_t>(n);
    } else {
      r.Problem(p + ".pids", "must be a positive integer (at most " +
                                 std::to_string(kMaxTrialPids) + "), not " +
                                 (it->is_number() ? it->dump() : JsonTypeName(*it)));
    }
  }
}

json ResourcesToJson(const Resources& res) {
  json out = {{"gpu", res.gpu}};
  if (res.gpu == std::floor(res.gpu)) out["gpu"] = static_cast<int64_t>(res.gpu);
  if (res.gpu_memory > 0) out["gpuMemory"] = FormatBytes(res.gpu_memory);
  if (res.cpu > 0) out["cpu"] = res.cpu;
  if (res.memory > 0) out["memory"] = FormatBytes(res.memory);
  if (res.pids > 0) out["pids"] = res.pids;
  return out;
}

}  // namespace hpt::api
