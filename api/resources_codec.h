#pragma once
// JSON for resource amounts: a trial template's `resources` and the
// quantities namespaces' quotas are written in (Kubernetes' "10Gi",
// "500m", or plain numbers).

#include <cstdint>
#include <optional>
#include <string>

#include <nlohmann/json.hpp>

#include "api/json_reader.h"
#include "api/types.h"

namespace hpt::api {

// obj[key] as bytes ("4Gi", 4294967296); a problem at p.key when it is no
// quantity. nullopt when absent or bad.
std::optional<int64_t> DecodeBytes(JsonReader& r, const nlohmann::json& obj,
                                   const std::string& p, const std::string& key);
// obj[key] as cores ("2", 0.5, "500m").
std::optional<double> DecodeCpus(JsonReader& r, const nlohmann::json& obj,
                                 const std::string& p, const std::string& key);

// trialTemplate.resources: gpu, gpuMemory, cpu, memory, pids.
void DecodeResources(JsonReader& r, const nlohmann::json& j, const std::string& p,
                     Resources& out);
nlohmann::json ResourcesToJson(const Resources& res);

}  // namespace hpt::api
