#pragma once
// JsonReader: typed access to a JSON document that records every problem
// with its field path instead of stopping at the first one. Used by the
// spec decoder and the REST request decoders.

#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "api/status.h"

namespace hpt::api {

class JsonReader {
 public:
  // Field path of `key` under `parent` ("objective" + "type" ->
  // "objective.type"; "parameters" + 2 -> "parameters[2]").
  static std::string Path(const std::string& parent, const std::string& key);
  static std::string Path(const std::string& parent, size_t index);

  // Each getter returns nullopt both when the field is absent (no problem
  // recorded unless `required`) and when it has the wrong type (problem
  // recorded). Numbers may be JSON numbers or numeric strings.
  std::optional<std::string> String(const nlohmann::json& obj,
                                    const std::string& parent,
                                    const std::string& key, bool required);
  std::optional<double> Number(const nlohmann::json& obj,
                               const std::string& parent,
                               const std::string& key, bool required);
  std::optional<int> Int(const nlohmann::json& obj, const std::string& parent,
                         const std::string& key, bool required);
  std::optional<bool> Bool(const nlohmann::json& obj, const std::string& parent,
                           const std::string& key);
  // A scalar (string, number or bool) as text; numbers via FormatDouble.
  std::optional<std::string> Text(const nlohmann::json& value,
                                  const std::string& path);
  // The field when it is an object/array; records a problem otherwise.
  const nlohmann::json* Object(const nlohmann::json& obj,
                               const std::string& parent,
                               const std::string& key, bool required);
  const nlohmann::json* Array(const nlohmann::json& obj,
                              const std::string& parent,
                              const std::string& key, bool required);
  // Records a problem for every key of `obj` not in `known`.
  void RejectUnknown(const nlohmann::json& obj, const std::string& parent,
                     const std::vector<std::string>& known);

  void Problem(const std::string& path, const std::string& what);
  bool ok() const { return problems_.empty(); }
  const std::vector<std::string>& problems() const { return problems_; }
  // OK, or InvalidArgument with every problem joined by "; ".
  Status ToStatus() const;

 private:
  std::vector<std::string> problems_;
};

// Parses "1e-5", " 3 " as a finite double; nullopt otherwise.
std::optional<double> ParseNumber(const std::string& text);
// JSON type name for messages ("a string", "an array").
std::string JsonTypeName(const nlohmann::json& value);

}  // namespace hpt::api
