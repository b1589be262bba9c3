#include "api/json_reader.h"

#include <cmath>
#include <memory>
#include <set>
#include <vector>

#include "api/spec_codec.h"

namespace hpt::api {

std::string JsonReader::Path(const std::string& parent, const std::string& key) {
  return parent.empty() ? key : parent + "." + key;
}

std::string JsonReader::Path(const std::string& parent, size_t index) {
  return parent + "[" + std::to_string(index) + "]";
}

std::string JsonTypeName(const nlohmann::json& v) {
  if (v.is_string()) return "a string";
  if (v.is_boolean()) return "a boolean";
  if (v.is_number()) return "a number";
  if (v.is_array()) return "a list";
  if (v.is_object()) return "a mapping";
  return "null";
}

void JsonReader::Problem(const std::string& path, const std::string& what) {
  if (problems_.size() >= kMaxProblems) {
    ++dropped_;
    return;
  }
  problems_.push_back(path + ": " + what);
}

Status JsonReader::ToStatus() const {
  if (problems_.empty()) return Status::Ok();
  std::string msg;
  for (const auto& p : problems_) msg += (msg.empty() ? "" : "; ") + p;
  if (dropped_ > 0) {
    msg += "; ... and " + std::to_string(dropped_) + " more problems";
  }
  return InvalidArgument(msg);
}

const nlohmann::json* JsonReader::Field(const nlohmann::json& obj,
                                        const std::string& parent,
                                        const std::string& key,
                                        bool required) {
  auto it = obj.find(key);
  if (it == obj.end() || it->is_null()) {
    if (required) Problem(Path(parent, key), "is required");
    return nullptr;
  }
  return &*it;
}

std::optional<std::string> JsonReader::StringValue(const nlohmann::json& v,
                                                   const std::string& path) {
  if (v.is_string()) return v.get<std::string>();
  Problem(path, "must be a string, not " + JsonTypeName(v));
  return std::nullopt;
}

std::optional<std::string> JsonReader::Text(const nlohmann::json& v,
                                            const std::string& path) {
  if (v.is_string()) return v.get<std::string>();
  if (v.is_number_unsigned()) return std::to_string(v.get<uint64_t>());
  if (v.is_number_integer()) return std::to_string(v.get<int64_t>());
  if (v.is_number_float()) return FormatDouble(v.get<double>());
  if (v.is_boolean()) return v.get<bool>() ? "true" : "false";
  Problem(path, "must be a string, not " + JsonTypeName(v));
  return std::nullopt;
}

std::optional<std::string> JsonReader::Text(const nlohmann::json& obj,
                                            const std::string& parent,
                                            const std::string& key,
                                            bool required) {
  const nlohmann::json* v = Field(obj, parent, key, required);
  return v ? Text(*v, Path(parent, key)) : std::nullopt;
}

std::optional<std::string> JsonReader::String(const nlohmann::json& obj,
                                              const std::string& parent,
                                              const std::string& key,
                                              bool required) {
  const nlohmann::json* v = Field(obj, parent, key, required);
  return v ? StringValue(*v, Path(parent, key)) : std::nullopt;
}

std::optional<double> JsonReader::Number(const nlohmann::json& obj,
                                         const std::string& parent,
                                         const std::string& key,
                                         bool required) {
  const nlohmann::json* v = Field(obj, parent, key, required);
  if (!v) return std::nullopt;
  if (!v->is_number()) {
    Problem(Path(parent, key), "must be a number, not " + JsonTypeName(*v));
    return std::nullopt;
  }
  double d = v->get<double>();
  if (!std::isfinite(d)) {
    Problem(Path(parent, key), "must be a finite number");
    return std::nullopt;
  }
  return d;
}

std::optional<double> JsonReader::NumberOrString(const nlohmann::json& obj,
                                                 const std::string& parent,
                                                 const std::string& key,
                                                 bool required) {
  const nlohmann::json* v = Field(obj, parent, key, required);
  if (!v) return std::nullopt;
  if (v->is_string()) {
    if (auto d = ParseNumber(v->get<std::string>())) return d;
    Problem(Path(parent, key),
            "'" + v->get<std::string>() + "' is not a finite number");
    return std::nullopt;
  }
  if (v->is_number() && std::isfinite(v->get<double>())) {
    return v->get<double>();
  }
  Problem(Path(parent, key),
          "must be a finite number, not " + JsonTypeName(*v));
  return std::nullopt;
}

std::optional<int> JsonReader::Int(const nlohmann::json& obj,
                                   const std::string& parent,
                                   const std::string& key, bool required) {
  const nlohmann::json* v = Field(obj, parent, key, required);
  if (!v) return std::nullopt;
  if (!v->is_number()) {
    Problem(Path(parent, key), "must be an integer, not " + JsonTypeName(*v));
    return std::nullopt;
  }
  double d = v->get<double>();
  if (!std::isfinite(d) || d != std::floor(d)) {
    Problem(Path(parent, key), FormatDouble(d) + " is not an integer");
    return std::nullopt;
  }
  if (std::fabs(d) > 2e9) {
    Problem(Path(parent, key),
            FormatDouble(d) + " is out of range (-2000000000 to 2000000000)");
    return std::nullopt;
  }
  return static_cast<int>(d);
}

std::optional<bool> JsonReader::Bool(const nlohmann::json& obj,
                                     const std::string& parent,
                                     const std::string& key) {
  const nlohmann::json* v = Field(obj, parent, key, false);
  if (!v) return std::nullopt;
  if (v->is_boolean()) return v->get<bool>();
  Problem(Path(parent, key), "must be true or false, not " + JsonTypeName(*v));
  return std::nullopt;
}

const nlohmann::json* JsonReader::Object(const nlohmann::json& obj,
                                         const std::string& parent,
                                         const std::string& key,
                                         bool required) {
  const nlohmann::json* v = Field(obj, parent, key, required);
  if (v && !v->is_object()) {
    Problem(Path(parent, key), "must be a mapping, not " + JsonTypeName(*v));
    return nullptr;
  }
  return v;
}

const nlohmann::json* JsonReader::Array(const nlohmann::json& obj,
                                        const std::string& parent,
                                        const std::string& key,
                                        bool required) {
  const nlohmann::json* v = Field(obj, parent, key, required);
  if (v && !v->is_array()) {
    Problem(Path(parent, key), "must be a list, not " + JsonTypeName(*v));
    return nullptr;
  }
  return v;
}

void JsonReader::RejectUnknown(const nlohmann::json& obj,
                               const std::string& parent,
                               const std::vector<std::string>& known) {
  for (const auto& [key, _] : obj.items()) {
    bool found = false;
    for (const auto& k : known) found = found || k == key;
    if (!found) Problem(Path(parent, key), "unknown field");
  }
}

bool JsonNestedDeeperThan(std::string_view text, int limit) {
  int depth = 0;
  bool in_string = false;
  for (size_t i = 0; i < text.size(); ++i) {
    const char c = text[i];
    if (in_string) {
      if (c == '\\') {
        ++i;
      } else if (c == '"') {
        in_string = false;
      }
    } else if (c == '"') {
      in_string = true;
    } else if (c == '[' || c == '{') {
      if (++depth > limit) return true;
    } else if (c == ']' || c == '}') {
      --depth;
    }
  }
  return false;
}

nlohmann::json::parser_callback_t DuplicateKeyCallback(std::string* first) {
  auto keys = std::make_shared<std::vector<std::set<std::string>>>();
  return [keys, first](int, nlohmann::json::parse_event_t event, nlohmann::json& parsed) {
    using Event = nlohmann::json::parse_event_t;
    if (event == Event::object_start) {
      keys->emplace_back();
    } else if (event == Event::object_end && !keys->empty()) {
      keys->pop_back();
    } else if (event == Event::key && !keys->empty() && first->empty() &&
               !keys->back().insert(parsed.get<std::string>()).second) {
      *first = parsed.get<std::string>();
    }
    return true;
  };
}

}  // namespace hpt::api
