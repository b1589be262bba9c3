#pragma once
// How assignments are stored: a trial's assignment_json and an
// experiment's queue_json (its trials:enqueue'd assignments).

#include <map>
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

// User attributes (api::Trial::user_attrs, api::Experiment::user_attrs) as
// one JSON object of key -> value. Reading leaves out what is not such an
// object (a damaged file): the row stays readable.
std::string UserAttrsToText(const std::map<std::string, std::string>& attrs);
std::map<std::string, std::string> UserAttrsFromText(const std::string& text);

}  // namespace hpt::storage
