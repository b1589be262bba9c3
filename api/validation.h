#pragma once
// Semantic validation of an experiment spec, following Katib's rules. Every
// problem is reported with its field path in one InvalidArgument. Whether
// the algorithm and its settings are known is the server's check (it owns
// the algorithm registry).

#include "api/status.h"
#include "api/types.h"

namespace hpt::api {

Status ValidateSpec(const ExperimentSpec& spec);

// True for a lowercase RFC 1123 DNS label of at most 63 characters.
bool IsDnsLabel(const std::string& name);

}  // namespace hpt::api
