// The contract test's schema validator (tests/testing/json_schema_subset.h)
// rejects what the contract relies on it to reject.
#include <functional>

#include <gtest/gtest.h>

#include "api/openapi.h"
#include "tests/testing/json_schema_subset.h"

namespace hpt::testing {
namespace {

using nlohmann::json;

json Doc() {
  return json::parse(R"({
    "components": {"schemas": {
      "Name": {"type": "string", "pattern": "^[a-z]+$", "maxLength": 5},
      "Thing": {"type": "object", "required": ["name"], "properties": {
        "name": {"$ref": "#/components/schemas/Name"},
        "count": {"type": "integer", "minimum": 1, "maximum": 3},
        "when": {"type": "string", "format": "date-time", "nullable": true},
        "kind": {"type": "string", "enum": ["a", "b"]},
        "tags": {"type": "array", "maxItems": 2, "items": {"type": "string"}},
        "value": {"oneOf": [{"type": "number"}, {"type": "string"}]},
        "extra": {"type": "object", "additionalProperties": {"type": "number"}}}}}}})");
}

TEST(SchemaValidatorTest, AcceptsWhatFits) {
  json doc = Doc();
  SchemaValidator v(doc);
  json thing = {{"name", "abc"}, {"count", 2}, {"when", "2024-01-02T03:04:05.6Z"},
                {"kind", "a"}, {"tags", {"x"}}, {"value", "1"}, {"extra", {{"k", 1.5}}}};
  EXPECT_TRUE(v.Validate({{"$ref", "#/components/schemas/Thing"}}, thing).empty());
  thing["when"] = nullptr;
  EXPECT_TRUE(v.Validate({{"$ref", "#/components/schemas/Thing"}}, thing).empty());
}

TEST(SchemaValidatorTest, RejectsWhatDoesNot) {
  json doc = Doc();
  SchemaValidator v(doc);
  const json schema = {{"$ref", "#/components/schemas/Thing"}};
  const json good = {{"name", "abc"}};
  const std::vector<std::pair<json, std::string>> bad = {
      {json::object(), "missing required \"name\""},
      {{{"name", "ABC"}}, "does not match"},
      {{{"name", "abcdef"}}, "longer than 5"},
      {{{"name", 7}}, "expected string"},
      {{{"name", "a"}, {"count", 2.0}}, "expected integer"},
      {{{"name", "a"}, {"count", 4}}, "above the maximum"},
      {{{"name", "a"}, {"count", 0}}, "below the minimum"},
      {{{"name", "a"}, {"count", nullptr}}, "not say nullable"},
      {{{"name", "a"}, {"when", "yesterday"}}, "RFC 3339"},
      {{{"name", "a"}, {"kind", "c"}}, "is not one of"},
      {{{"name", "a"}, {"tags", {"x", "y", "z"}}}, "more than 2 items"},
      {{{"name", "a"}, {"tags", {1}}}, "/tags/0: expected string"},
      {{{"name", "a"}, {"value", true}}, "matches 0 of the oneOf"},
      {{{"name", "a"}, {"extra", {{"k", "v"}}}}, "/extra/k: expected number"},
      {{{"name", "a"}, {"surprise", 1}}, "property 'surprise' is not in the document"},
  };
  EXPECT_TRUE(v.Validate(schema, good).empty());
  for (const auto& [value, want] : bad) {
    auto problems = v.Validate(schema, value);
    ASSERT_FALSE(problems.empty()) << value.dump();
    EXPECT_NE(problems.front().find(want), std::string::npos)
        << value.dump() << ": " << problems.front();
  }
  EXPECT_FALSE(v.Validate({{"$ref", "#/components/schemas/Nope"}}, good).empty());
  EXPECT_FALSE(v.Validate({{"type", "object"}, {"allOf", json::array()}}, good).empty())
      << "an unsupported keyword must not pass silently";
}

// The document itself uses no keyword the validator would skip: every
// schema, and every schema inside one.
TEST(SchemaValidatorTest, TheDocumentUsesOnlySupportedKeywords) {
  json doc = json::parse(api::OpenApiDocument());
  int schemas = 0;
  std::function<void(const json&, const std::string&)> schema = [&](const json& s,
                                                                  const std::string& at) {
    ASSERT_TRUE(s.is_object()) << at;
    ++schemas;
    for (const auto& [key, value] : s.items()) {
      EXPECT_TRUE(SchemaValidator::Supports(key)) << at << ": " << key;
      if (key == "properties") {
        for (const auto& [name, member] : value.items()) schema(member, at + "/" + name);
      } else if (key == "items" || (key == "additionalProperties" && value.is_object())) {
        schema(value, at + "/" + key);
      } else if (key == "oneOf") {
        for (const auto& branch : value) schema(branch, at + "/oneOf");
      }
    }
  };
  std::function<void(const json&, const std::string&)> walk = [&](const json& j,
                                                                const std::string& at) {
    if (!j.is_object()) return;
    for (const auto& [key, value] : j.items()) {
      if (key == "schema") {
        schema(value, at + "/schema");
      } else if (key != "example") {
        walk(value, at + "/" + key);
      }
    }
  };
  for (const auto& [name, s] : doc["components"]["schemas"].items()) schema(s, name);
  walk(doc["paths"], "paths");
  walk(doc["components"]["responses"], "responses");
  walk(doc["components"]["parameters"], "parameters");
  EXPECT_GE(schemas, 200);
}

}  // namespace
}  // namespace hpt::testing
