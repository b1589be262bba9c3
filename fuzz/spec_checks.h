#pragma once
// What every spec fuzzer checks once it holds a JSON document: the path a
// POST /api/v1/experiments body takes (server/api_handlers.cc
// CreateExperiment), and that decoded specs survive the canonical JSON and
// YAML forms unchanged. Exceptions are not caught: none may leave the
// codecs (api/status.h), so one that does is a finding.

#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "api/katib_compat.h"
#include "api/spec_codec.h"
#include "api/validation.h"
#include "fuzz/fuzz_check.h"

namespace hpt::fuzz {

inline void CheckError(const Status& status, const char* what) {
  FUZZ_CHECK(status.code() == StatusCode::kInvalidArgument,
             std::string(what) + ": " + status.ToString());
  FUZZ_CHECK(!status.message().empty(), what);
}

inline std::string Dump(const nlohmann::json& j) {
  return j.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
}

// Decodes, validates and round-trips `doc` as the server would.
inline void CheckSpecDocument(nlohmann::json doc) {
  if (api::IsKatibExperiment(doc)) {
    std::vector<std::string> notes;
    auto converted = api::FromKatibExperiment(doc, &notes);
    if (!converted.ok()) {
      CheckError(converted.status(), "FromKatibExperiment");
      return;
    }
    doc = std::move(*converted);
  }
  auto spec = api::SpecFromJson(doc);
  if (!spec.ok()) {
    CheckError(spec.status(), "SpecFromJson");
    return;
  }
  Status valid = api::ValidateSpec(*spec);
  if (!valid.ok()) CheckError(valid, "ValidateSpec");

  // SpecFromJson(SpecToJson(s)) == s (api/spec_codec.h), compared through
  // the canonical form since ExperimentSpec has no operator==.
  const nlohmann::json canonical = api::SpecToJson(*spec);
  auto again = api::SpecFromJson(canonical);
  FUZZ_CHECK(again.ok(),
             again.status().ToString() + "\n  canonical: " + Dump(canonical));
  FUZZ_CHECK(api::SpecToJson(*again) == canonical,
             Dump(canonical) + "\n  became: " + Dump(api::SpecToJson(*again)));
  FUZZ_CHECK(api::ValidateSpec(*again).ok() == valid.ok(), Dump(canonical));

  // `hpt get -o yaml` output reads back as the same spec.
  const std::string yaml = api::JsonToYaml(canonical);
  auto from_yaml = api::SpecFromYaml(yaml);
  FUZZ_CHECK(from_yaml.ok(),
             from_yaml.status().ToString() + "\n  yaml:\n" + yaml);
  FUZZ_CHECK(api::SpecToJson(*from_yaml) == canonical,
             "yaml:\n" + yaml +
                 "  read back as: " + Dump(api::SpecToJson(*from_yaml)));
}

}  // namespace hpt::fuzz
