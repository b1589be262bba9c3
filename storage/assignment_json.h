#pragma once
// How assignments are stored: a trial's assignment_json and an
// experiment's queue_json (its trials:enqueue'd assignments).

#include <optional>
#include <string>
#include <vector>

#include "api/types.h"

namespace hpt::storage {

// An array of {"name", "value"} objects, which keeps the parameter order.
std::string AssignmentToJson(const api::Assignment& assignment);
std::optional<api::Assignment> AssignmentFromJson(const std::string& text);

// An array of such arrays.
std::string QueueToJson(const std::vector<api::Assignment>& queue);
std::optional<std::vector<api::Assignment>> QueueFromJson(const std::string& text);

}  // namespace hpt::storage
