#pragma once
// Experiment spec codecs: JSON and YAML (Katib's field names) to
// ExperimentSpec and back. Decoding reports every problem it finds, each
// with its field path ("parameters[1].feasibleSpace.min: ..."), joined by
// "; " in one InvalidArgument. Semantic checks (min <= max, ...) are in
// validation.h.

#include <string>
#include <string_view>

#include <nlohmann/json.hpp>

#include "api/status.h"
#include "api/types.h"

namespace hpt::api {

// Types are strict (`maxTrialCount: "10"` and `name: 123` are errors naming
// the field) except where Katib writes numbers as strings: feasibleSpace
// min/max/step and objective.goal take a number or numeric text, and
// feasibleSpace.list entries and setting values take text or a number.
StatusOr<ExperimentSpec> SpecFromJson(const nlohmann::json& json);
// YAML text (a bare spec, or a Katib v1beta1 Experiment is unwrapped later).
StatusOr<ExperimentSpec> SpecFromYaml(std::string_view yaml);
// YAML text as JSON: plain scalars that look like numbers or booleans
// become numbers and booleans (`maxTrialCount: 10` is an integer); quoted
// ones stay strings, as in JSON. InvalidArgument with the line on a syntax
// error.
StatusOr<nlohmann::json> YamlToJson(std::string_view yaml);

// JSON as block-style YAML (for people reading `hpt get -o yaml`).
std::string JsonToYaml(const nlohmann::json& json);

// The canonical JSON form; SpecFromJson(SpecToJson(s)) == s.
nlohmann::json SpecToJson(const ExperimentSpec& spec);

// Building blocks shared by the spec's codecs (spec_codec.cc, nas_codec.cc).
class JsonReader;
void DecodeParameter(JsonReader& r, const nlohmann::json& j,
                     const std::string& path, ParameterSpec& param);
nlohmann::json ParameterToJson(const ParameterSpec& param);
// nasConfig: graphConfig {numLayers, inputSizes, outputSizes} and
// operations [{operationType, parameters}].
void DecodeNasConfig(JsonReader& r, const nlohmann::json& j, NasConfig& config);
nlohmann::json NasConfigToJson(const NasConfig& config);

// Shortest text that reads back as the same double ("0.1", "1e-05", "3").
std::string FormatDouble(double value);

}  // namespace hpt::api
