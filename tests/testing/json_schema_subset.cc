#include "tests/testing/json_schema_subset.h"

#include <regex>
#include <set>

namespace hpt::testing {
namespace {

using nlohmann::json;

const std::set<std::string>& KnownKeywords() {
  static const std::set<std::string> known = {
      "type",     "nullable",    "required",  "properties",    "additionalProperties",
      "items",    "enum",        "$ref",      "oneOf",         "minimum",
      "maximum",  "minItems",    "maxItems",  "maxProperties", "maxLength",
      "pattern",  "format",      "description", "example",     "default"};
  return known;
}

bool HasType(const json& value, const std::string& type) {
  if (type == "object") return value.is_object();
  if (type == "array") return value.is_array();
  if (type == "string") return value.is_string();
  if (type == "integer") return value.is_number_integer();
  if (type == "number") return value.is_number();
  if (type == "boolean") return value.is_boolean();
  return false;
}

size_t CodePoints(const std::string& s) {
  size_t n = 0;
  for (unsigned char c : s) n += (c & 0xC0) != 0x80;
  return n;
}

bool IsDateTime(const std::string& s) {
  static const std::regex rfc3339(
      R"(^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?(Z|[+-]\d{2}:\d{2})$)");
  return std::regex_match(s, rfc3339);
}

std::string Child(const std::string& at, const std::string& key) {
  std::string escaped;
  for (char c : key) escaped += c == '~' ? "~0" : c == '/' ? "~1" : std::string(1, c);
  return at + "/" + escaped;
}

}  // namespace

bool SchemaValidator::Supports(const std::string& keyword) {
  return KnownKeywords().count(keyword) > 0;
}

const json* SchemaValidator::Resolve(const std::string& ref) const {
  if (ref.rfind("#/", 0) != 0) return nullptr;
  try {
    json::json_pointer pointer(ref.substr(1));
    if (!document_.contains(pointer)) return nullptr;
    return &document_.at(pointer);
  } catch (const json::exception&) {
    return nullptr;
  }
}

std::vector<std::string> SchemaValidator::Validate(const json& schema, const json& value) const {
  std::vector<std::string> problems;
  Check(schema, value, "", 0, &problems);
  return problems;
}

void SchemaValidator::Check(const json& schema, const json& value, const std::string& at,
                            int depth, std::vector<std::string>* problems) const {
  auto problem = [&](const std::string& what) {
    problems->push_back((at.empty() ? "/" : at) + ": " + what);
  };
  if (depth > 64) return problem("schema nests deeper than 64 levels (a $ref cycle?)");
  if (!schema.is_object()) return problem("schema is not an object: " + schema.dump());
  for (const auto& [key, _] : schema.items()) {
    if (!KnownKeywords().count(key)) problem("schema keyword '" + key + "' is not supported");
  }
  if (auto ref = schema.find("$ref"); ref != schema.end()) {
    const json* target = Resolve(ref->get<std::string>());
    if (!target) return problem("dangling $ref " + ref->dump());
    // OpenAPI 3.0 ignores whatever stands beside a $ref: nothing may.
    if (schema.size() > 1) problem("keywords beside $ref are ignored: " + schema.dump());
    return Check(*target, value, at, depth + 1, problems);
  }
  if (value.is_null()) {
    if (!schema.value("nullable", false)) problem("null where the schema does not say nullable");
    return;
  }
  if (auto one_of = schema.find("oneOf"); one_of != schema.end()) {
    int matching = 0;
    std::vector<std::string> why;
    for (const json& branch : *one_of) {
      std::vector<std::string> branch_problems;
      Check(branch, value, at, depth + 1, &branch_problems);
      if (branch_problems.empty()) {
        ++matching;
      } else {
        why.push_back(branch_problems.front());
      }
    }
    if (matching != 1) {
      std::string text = "matches " + std::to_string(matching) + " of the oneOf branches";
      for (const auto& w : why) text += "; " + w;
      problem(text);
    }
  }
  if (auto type = schema.find("type"); type != schema.end()) {
    if (!HasType(value, type->get<std::string>())) {
      return problem("expected " + type->get<std::string>() + ", got " + value.dump());
    }
  }
  if (auto values = schema.find("enum"); values != schema.end()) {
    if (std::find(values->begin(), values->end(), value) == values->end()) {
      problem(value.dump() + " is not one of " + values->dump());
    }
  }
  if (value.is_number()) {
    double v = value.get<double>();
    if (schema.contains("minimum") && v < schema["minimum"].get<double>()) {
      problem(value.dump() + " is below the minimum " + schema["minimum"].dump());
    }
    if (schema.contains("maximum") && v > schema["maximum"].get<double>()) {
      problem(value.dump() + " is above the maximum " + schema["maximum"].dump());
    }
  }
  if (value.is_string()) {
    const std::string& s = value.get_ref<const std::string&>();
    if (schema.contains("maxLength") && CodePoints(s) > schema["maxLength"].get<size_t>()) {
      problem("longer than " + schema["maxLength"].dump() + " characters");
    }
    if (auto pattern = schema.find("pattern"); pattern != schema.end()) {
      if (!std::regex_search(s, std::regex(pattern->get<std::string>()))) {
        problem(value.dump() + " does not match " + pattern->dump());
      }
    }
    if (schema.value("format", "") == "date-time" && !IsDateTime(s)) {
      problem(value.dump() + " is not an RFC 3339 date-time");
    }
  }
  if (value.is_array()) {
    if (schema.contains("minItems") && value.size() < schema["minItems"].get<size_t>()) {
      problem("fewer than " + schema["minItems"].dump() + " items");
    }
    if (schema.contains("maxItems") && value.size() > schema["maxItems"].get<size_t>()) {
      problem("more than " + schema["maxItems"].dump() + " items");
    }
    if (auto items = schema.find("items"); items != schema.end()) {
      for (size_t i = 0; i < value.size(); ++i) {
        Check(*items, value[i], Child(at, std::to_string(i)), depth + 1, problems);
      }
    }
  }
  if (value.is_object()) {
    if (schema.contains("maxProperties") &&
        value.size() > schema["maxProperties"].get<size_t>()) {
      problem("more than " + schema["maxProperties"].dump() + " properties");
    }
    for (const json& name : schema.value("required", json::array())) {
      if (!value.contains(name.get<std::string>())) problem("missing required " + name.dump());
    }
    const json properties = schema.value("properties", json::object());
    auto additional = schema.find("additionalProperties");
    for (const auto& [key, member] : value.items()) {
      if (properties.contains(key)) {
        Check(properties[key], member, Child(at, key), depth + 1, problems);
      } else if (additional != schema.end() && additional->is_object()) {
        Check(*additional, member, Child(at, key), depth + 1, problems);
      } else if (additional != schema.end() ? additional->is_boolean() && !additional->get<bool>()
                                            : schema.contains("properties")) {
        problem("property '" + key + "' is not in the document");
      }
    }
  }
}

}  // namespace hpt::testing
