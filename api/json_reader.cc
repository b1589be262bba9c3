#include "api/json_reader.h"

#include <cmath>
#include <cstdlib>

#include "api/spec_codec.h"

namespace hpt::api {

std::string JsonReader::Path(const std::string& parent, const std::string& key) {
  return parent.empty() ? key : parent + "." + key;
}

std::string JsonReader::Path(const std::string& parent, size_t index) {
  return parent + "[" + std::to_string(index) + "]";
}

std::optional<double> ParseNumber(const std::string& text) {
  size_t b = text.find_first_not_of(" \t");
  size_t e = text.find_last_not_of(" \t");
  if (b == std::string::npos) return std::nullopt;
  std::string t = text.substr(b, e - b + 1);
  char* end = nullptr;
  errno = 0;
  double v = std::strtod(t.c_str(), &end);
  if (end != t.c_str() + t.size() || errno == ERANGE || !std::isfinite(v)) {
    return std::nullopt;
  }
  return v;
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
  problems_.push_back(path + ": " + what);
}

Status JsonReader::ToStatus() const {
  if (problems_.empty()) return Status::Ok();
  std::string msg;
  for (const auto& p : problems_) msg += (msg.empty() ? "" : "; ") + p;
  return InvalidArgument(msg);
}

std::optional<std::string> JsonReader::Text(const nlohmann::json& v,
                                            const std::string& path) {
  if (v.is_string()) return v.get<std::string>();
  if (v.is_number_integer()) return std::to_string(v.get<int64_t>());
  if (v.is_number_unsigned()) return std::to_string(v.get<uint64_t>());
  if (v.is_number_float()) return FormatDouble(v.get<double>());
  if (v.is_boolean()) return v.get<bool>() ? "true" : "false";
  Problem(path, "must be a string, not " + JsonTypeName(v));
  return std::nullopt;
}

std::optional<std::string> JsonReader::String(const nlohmann::json& obj,
                                              const std::string& parent,
                                              const std::string& key,
                                              bool required) {
  std::string path = Path(parent, key);
  auto it = obj.find(key);
  if (it == obj.end() || it->is_null()) {
    if (required) Problem(path, "is required");
    return std::nullopt;
  }
  if (it->is_object() || it->is_array()) {
    Problem(path, "must be a string, not " + JsonTypeName(*it));
    return std::nullopt;
  }
  return Text(*it, path);
}

std::optional<double> JsonReader::Number(const nlohmann::json& obj,
                                         const std::string& parent,
                                         const std::string& key,
                                         bool required) {
  std::string path = Path(parent, key);
  auto it = obj.find(key);
  if (it == obj.end() || it->is_null()) {
    if (required) Problem(path, "is required");
    return std::nullopt;
  }
  if (it->is_number()) {
    double v = it->get<double>();
    if (std::isfinite(v)) return v;
  } else if (it->is_string()) {
    if (auto v = ParseNumber(it->get<std::string>())) return v;
    Problem(path, "'" + it->get<std::string>() + "' is not a finite number");
    return std::nullopt;
  }
  Problem(path, "must be a finite number, not " + JsonTypeName(*it));
  return std::nullopt;
}

std::optional<int> JsonReader::Int(const nlohmann::json& obj,
                                   const std::string& parent,
                                   const std::string& key, bool required) {
  size_t before = problems_.size();
  auto v = Number(obj, parent, key, required);
  if (!v) return std::nullopt;
  if (*v != std::floor(*v) || std::fabs(*v) > 2e9) {
    if (problems_.size() == before) {
      Problem(Path(parent, key), FormatDouble(*v) + " is not an integer");
    }
    return std::nullopt;
  }
  return static_cast<int>(*v);
}

std::optional<bool> JsonReader::Bool(const nlohmann::json& obj,
                                     const std::string& parent,
                                     const std::string& key) {
  auto it = obj.find(key);
  if (it == obj.end() || it->is_null()) return std::nullopt;
  if (it->is_boolean()) return it->get<bool>();
  Problem(Path(parent, key), "must be true or false, not " + JsonTypeName(*it));
  return std::nullopt;
}

const nlohmann::json* JsonReader::Object(const nlohmann::json& obj,
                                         const std::string& parent,
                                         const std::string& key,
                                         bool required) {
  auto it = obj.find(key);
  if (it == obj.end() || it->is_null()) {
    if (required) Problem(Path(parent, key), "is required");
    return nullptr;
  }
  if (!it->is_object()) {
    Problem(Path(parent, key), "must be a mapping, not " + JsonTypeName(*it));
    return nullptr;
  }
  return &*it;
}

const nlohmann::json* JsonReader::Array(const nlohmann::json& obj,
                                        const std::string& parent,
                                        const std::string& key,
                                        bool required) {
  auto it = obj.find(key);
  if (it == obj.end() || it->is_null()) {
    if (required) Problem(Path(parent, key), "is required");
    return nullptr;
  }
  if (!it->is_array()) {
    Problem(Path(parent, key), "must be a list, not " + JsonTypeName(*it));
    return nullptr;
  }
  return &*it;
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

}  // namespace hpt::api
