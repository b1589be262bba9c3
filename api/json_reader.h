#pragma once
// JsonReader: typed access to a JSON document that records every problem
// with its field path instead of stopping at the first one. Used by the
// spec decoder and the REST request decoders.

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include "api/status.h"
#include "api/text.h"  // ParseNumber, which the Katib-style getters use

namespace hpt::api {

class JsonReader {
 public:
  // Field path of `key` under `parent` ("objective" + "type" ->
  // "objective.type"; "parameters" + 2 -> "parameters[2]").
  static std::string Path(const std::string& parent, const std::string& key);
  static std::string Path(const std::string& parent, size_t index);

  // Each getter returns nullopt both when the field is absent (no problem
  // recorded unless `required`) and when it has the wrong type (problem
  // recorded, e.g. "maxTrialCount: must be an integer, not a string").
  // Types are strict: a string is never read as a number nor a number as a
  // string, except by the Katib-style getters below that say so.
  std::optional<std::string> String(const nlohmann::json& obj,
                                    const std::string& parent,
                                    const std::string& key, bool required);
  // A finite JSON number.
  std::optional<double> Number(const nlohmann::json& obj,
                               const std::string& parent,
                               const std::string& key, bool required);
  // A JSON number with an integral value within +-2e9.
  std::optional<int> Int(const nlohmann::json& obj, const std::string& parent,
                         const std::string& key, bool required);
  std::optional<bool> Bool(const nlohmann::json& obj, const std::string& parent,
                           const std::string& key);
  // A list element that must be a string.
  std::optional<std::string> StringValue(const nlohmann::json& value,
                                         const std::string& path);

  // Katib writes numbers as strings: a finite number given as a JSON number
  // or as numeric text ("1e-5"). For feasibleSpace bounds and goal.
  std::optional<double> NumberOrString(const nlohmann::json& obj,
                                       const std::string& parent,
                                       const std::string& key, bool required);
  // Katib's value-like text (setting values, feasibleSpace.list entries): a
  // string, or a number or boolean taken as its text (numbers via
  // FormatDouble), since unquoted YAML makes them numbers.
  std::optional<std::string> Text(const nlohmann::json& value,
                                  const std::string& path);
  std::optional<std::string> Text(const nlohmann::json& obj,
                                  const std::string& parent,
                                  const std::string& key, bool required);
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

  // Records "path: what". Only the first kMaxProblems are kept (a huge
  // document must not make a huge message); the rest are counted.
  void Problem(const std::string& path, const std::string& what);
  bool ok() const { return problems_.empty(); }
  const std::vector<std::string>& problems() const { return problems_; }
  // OK, or InvalidArgument with every kept problem joined by "; " (and
  // "... and N more problems" when some were dropped).
  Status ToStatus() const;

  static constexpr size_t kMaxProblems = 50;

 private:
  // The field `key` of `obj`; nullptr when absent or null (a problem
  // recorded when `required`).
  const nlohmann::json* Field(const nlohmann::json& obj,
                              const std::string& parent,
                              const std::string& key, bool required);

  std::vector<std::string> problems_;
  size_t dropped_ = 0;
};

// JSON type name for messages ("a string", "an array").
std::string JsonTypeName(const nlohmann::json& value);

// A callback for nlohmann::json::parse that sets `*first` to the first key
// given twice in one object (JSON leaves it to the reader; the last one
// would win without a word).
nlohmann::json::parser_callback_t DuplicateKeyCallback(std::string* first);

// Whether JSON text nests arrays and objects more than `limit` deep,
// found without parsing it (brackets inside strings do not count).
bool JsonNestedDeeperThan(std::string_view text, int limit);

}  // namespace hpt::api
