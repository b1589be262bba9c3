// Categorical choices of any JSON scalar (issue 33, Optuna's
// CategoricalDistribution): each keeps its JSON type through the spec
// codec, the algorithms and conditions see its text, and choices that
// read the same as text are refused, naming the field.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "api/assignment_check.h"
#include "api/conditions.h"
#include "api/spec_codec.h"
#include "api/validation.h"
#include "tests/api/spec_examples.h"

namespace hpt::api {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;
using nlohmann::json;

// The full example spec, client-run (its command names other parameters),
// with one categorical parameter.
json WithChoices(const json& list) {
  json j = json::parse(testing::kFullJson);
  j.erase("trialTemplate");
  j["parameters"] = {{{"name", "c"},
                      {"parameterType", "categorical"},
                      {"feasibleSpace", {{"list", list}}}}};
  return j;
}

std::string Refusal(const json& j) {
  auto spec = SpecFromJson(j);
  if (!spec.ok()) return spec.status().message();
  Status s = ValidateSpec(*spec);
  return s.ok() ? "" : s.message();
}

TEST(ChoiceTypes, EveryJsonScalarKeepsItsTypeAndReadsAsText) {
  const json list = json::parse(R"([null, true, false, 1, 2.5, 1.5e-05, 3.0, "balanced", -7])");
  auto spec = SpecFromJson(WithChoices(list));
  ASSERT_TRUE(spec.ok()) << spec.status().ToString();
  ASSERT_TRUE(ValidateSpec(*spec).ok()) << ValidateSpec(*spec).ToString();
  const FeasibleSpace& fs = spec->parameters[0].feasible_space;
  EXPECT_THAT(fs.list, ElementsAre("null", "true", "false", "1", "2.5", "1.5e-05", "3",
                                   "balanced", "-7"));
  // Back in the spec's JSON as given: 3.0 stays a float, 1 an integer.
  const json back = SpecToJson(*spec)["parameters"][0]["feasibleSpace"]["list"];
  EXPECT_EQ(back.dump(), list.dump());
  EXPECT_TRUE(back[6].is_number_float());
  EXPECT_TRUE(back[3].is_number_integer());
  // A second round trip (the store's) changes nothing.
  auto again = SpecFromJson(SpecToJson(*spec));
  ASSERT_TRUE(again.ok());
  EXPECT_EQ(SpecToJson(*again).dump(), SpecToJson(*spec).dump());
}

TEST(ChoiceTypes, KatibStringListsStayStrings) {
  auto spec = SpecFromJson(WithChoices({"true", "null", "1"}));
  ASSERT_TRUE(spec.ok());
  EXPECT_TRUE(ValidateSpec(*spec).ok());
  EXPECT_EQ(SpecToJson(*spec)["parameters"][0]["feasibleSpace"]["list"],
            json({"true", "null", "1"}));
}

TEST(ChoiceTypes, ChoicesThatReadTheSameAreRefusedNamingTheField) {
  EXPECT_THAT(Refusal(WithChoices(json::parse(R"([1, "a", 1.0])"))),
              HasSubstr("parameters[0].feasibleSpace.list[2]: '1' is listed twice (as 1 and "
                        "1.0: choices must differ as text)"));
  EXPECT_THAT(Refusal(WithChoices(json::parse(R"([null, "null"])"))),
              HasSubstr("parameters[0].feasibleSpace.list[1]: 'null' is listed twice (as null "
                        "and \"null\": choices must differ as text)"));
  EXPECT_THAT(Refusal(WithChoices(json::parse(R"([true, "true"])"))),
              HasSubstr("list[1]: 'true' is listed twice"));
  EXPECT_THAT(Refusal(WithChoices(json::parse(R"(["1", 1])"))),
              HasSubstr("list[1]: '1' is listed twice (as \"1\" and 1"));
  EXPECT_THAT(Refusal(WithChoices(json::parse(R"([null, null])"))),
              HasSubstr("list[1]: 'null' is listed twice"));
  // true and 1 are two choices (JSON's types, not Python's ==).
  EXPECT_EQ(Refusal(WithChoices(json::parse(R"([true, 1])"))), "");
}

TEST(ChoiceTypes, NonScalarsAreRefusedNamingTheField) {
  EXPECT_THAT(Refusal(WithChoices(json::parse(R"(["a", {"b": 1}])"))),
              HasSubstr("parameters[0].feasibleSpace.list[1]: must be a string, number, true, "
                        "false or null, not a mapping"));
  EXPECT_THAT(Refusal(WithChoices(json::parse(R"([[1]])"))),
              HasSubstr("list[0]: must be a string, number, true, false or null, not a list"));
  json discrete = WithChoices(json::parse(R"([1, null])"));
  discrete["parameters"][0]["parameterType"] = "discrete";
  EXPECT_THAT(Refusal(discrete), HasSubstr("list[1]: 'null' is not a number"));
}

TEST(ChoiceTypes, AssignmentsAndConditionsUseTheText) {
  json j = WithChoices(json::parse(R"([null, "balanced"])"));
  j["parameters"].push_back({{"name", "w"},
                             {"parameterType", "double"},
                             {"feasibleSpace", {{"min", 0}, {"max", 1}}},
                             {"parent", {{"name", "c"}, {"values", {nullptr}}}}});
  auto spec = SpecFromJson(j);
  ASSERT_TRUE(spec.ok()) << spec.status().ToString();
  ASSERT_TRUE(ValidateSpec(*spec).ok()) << ValidateSpec(*spec).ToString();
  EXPECT_THAT(spec->parameters[1].parent->values, ElementsAre("null"));

  auto with_null = CheckAssignment(*spec, {{"c", "null"}, {"w", "0.5"}}, "trials[0]");
  ASSERT_TRUE(with_null.ok()) << with_null.status().ToString();
  EXPECT_EQ(with_null->size(), 2u);
  auto balanced = CheckAssignment(*spec, {{"c", "balanced"}}, "trials[0]");
  ASSERT_TRUE(balanced.ok()) << balanced.status().ToString();
  EXPECT_EQ(balanced->size(), 1u);  // w is inactive
  auto none = CheckAssignment(*spec, {{"c", "None"}}, "trials[0]");
  ASSERT_FALSE(none.ok());
  EXPECT_THAT(none.status().message(), HasSubstr("trials[0].c: 'None' is not one of null, balanced"));
}

}  // namespace
}  // namespace hpt::api
