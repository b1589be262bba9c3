#include "storage/assignment_json.h"

#include <nlohmann/json.hpp>

namespace hpt::storage {
namespace {

using nlohmann::json;

json ToJson(const api::Assignment& assignment) {
  json out = json::array();
  for (const auto& p : assignment) out.push_back({{"name", p.name}, {"value", p.value}});
  return out;
}

std::optional<api::Assignment> FromJson(const json& j) {
  if (!j.is_array()) return std::nullopt;
  api::Assignment assignment;
  for (const auto& item : j) {
    if (!item.is_object()) return std::nullopt;
    auto name = item.find("name");
    auto value = item.find("value");
    if (name == item.end() || value == item.end() || !name->is_string() ||
        !value->is_string()) {
      return std::nullopt;
    }
    assignment.push_back({name->get<std::string>(), value->get<std::string>()});
  }
  return assignment;
}

std::string Dump(const json& j) {
  return j.dump(-1, ' ', false, json::error_handler_t::replace);
}

}  // namespace

std::string AssignmentToJson(const api::Assignment& assignment) {
  return Dump(ToJson(assignment));
}

std::optional<api::Assignment> AssignmentFromJson(const std::string& text) {
  return FromJson(json::parse(text, nullptr, false));
}

std::string QueueToJson(const std::vector<api::Assignment>& queue) {
  json out = json::array();
  for (const auto& a : queue) out.push_back(ToJson(a));
  return Dump(out);
}

std::optional<std::vector<api::Assignment>> QueueFromJson(const std::string& text) {
  json j = json::parse(text, nullptr, false);
  if (!j.is_array()) return std::nullopt;
  std::vector<api::Assignment> queue;
  for (const auto& item : j) {
    auto a = FromJson(item);
    if (!a) return std::nullopt;
    queue.push_back(std::move(*a));
  }
  return queue;
}

std::string UserAttrsToText(const std::map<std::string, std::string>& attrs) {
  json out = json::object();
  for (const auto& [key, value] : attrs) {
    // Values come from the API's JSON; text that is not JSON is kept as a string.
    json v = json::parse(value, nullptr, false);
    out[key] = v.is_discarded() ? json(value) : std::move(v);
  }
  return out.dump();
}

std::map<std::string, std::string> UserAttrsFromText(const std::string& text) {
  std::map<std::string, std::string> attrs;
  json j = json::parse(text, nullptr, false);
  if (!j.is_object()) return attrs;
  for (const auto& [key, value] : j.items()) attrs[key] = value.dump();
  return attrs;
}

}  // namespace hpt::storage
