#pragma once
// SchemaValidator: checks JSON values against the schemas of an OpenAPI 3.0
// document, for the keywords api/openapi/openapi.json uses: type, nullable,
// required, properties, additionalProperties, items, enum, $ref (to
// "#/..." in the same document), oneOf, minimum, maximum, minItems,
// maxItems, maxProperties, maxLength, pattern (ECMAScript) and format
// date-time. description, example and default are annotations.
//
// A keyword outside that subset is reported as a problem, so the document
// cannot use a rule that the contract test would silently skip.
//
// Stricter than JSON Schema on purpose: an object schema that lists
// `properties` and says nothing of `additionalProperties` admits no other
// property (every field the server sends or reads must be documented), and
// "integer" admits only JSON integers (not 2.0).

#include <string>
#include <vector>

#include <nlohmann/json.hpp>

namespace hpt::testing {

class SchemaValidator {
 public:
  // `document` must outlive the validator; $refs resolve inside it.
  explicit SchemaValidator(const nlohmann::json& document) : document_(document) {}

  // The problems of `value` against `schema`, each "<json pointer>: <what>";
  // empty when it is valid.
  std::vector<std::string> Validate(const nlohmann::json& schema,
                                    const nlohmann::json& value) const;

  // Whether `keyword` is one this validator checks (or an annotation).
  static bool Supports(const std::string& keyword);

  // The object a "#/a/b" reference names, or null when it names nothing.
  const nlohmann::json* Resolve(const std::string& ref) const;

 private:
  void Check(const nlohmann::json& schema, const nlohmann::json& value, const std::string& at,
             int depth, std::vector<std::string>* problems) const;

  const nlohmann::json& document_;
};

}  // namespace hpt::testing
