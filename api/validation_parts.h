#pragma once
// Pieces of ValidateSpec (validation.cc) that check one part of a spec,
// each adding its problems to `r` under the part's field path.

#include <string>

#include "api/json_reader.h"
#include "api/types.h"

namespace hpt::api::validation {

// A NUL ends a C string: the trial's argv, environment or file name would
// silently lose everything after it, while the spec keeps it.
inline bool HasNul(const std::string& s) { return s.find('\0') != std::string::npos; }
constexpr char kNulProblem[] = "must not contain a NUL character";

void ValidateResources(JsonReader& r, const Resources& res, const std::string& path);
void ValidateTemplate(JsonReader& r, const ExperimentSpec& spec);
void ValidateCollector(JsonReader& r, const ExperimentSpec& spec);

}  // namespace hpt::api::validation
