#include "api/json_reader.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

namespace hpt::api {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;
using nlohmann::json;

TEST(JsonReader, Paths) {
  EXPECT_EQ(JsonReader::Path("", "name"), "name");
  EXPECT_EQ(JsonReader::Path("objective", "type"), "objective.type");
  EXPECT_EQ(JsonReader::Path("parameters", 2), "parameters[2]");
}

TEST(JsonReader, NumberIsAJsonNumberOnly) {
  json j = {{"a", 1.5}, {"b", "2e3"}, {"d", true}, {"e", nullptr}};
  JsonReader r;
  EXPECT_EQ(r.Number(j, "p", "a", true), 1.5);
  EXPECT_TRUE(r.ok());
  EXPECT_FALSE(r.Number(j, "p", "b", true));
  EXPECT_FALSE(r.Number(j, "p", "d", true));
  EXPECT_FALSE(r.Number(j, "p", "e", false));  // null = absent
  EXPECT_FALSE(r.Number(j, "p", "missing", true));
  EXPECT_THAT(r.problems(), ElementsAre("p.b: must be a number, not a string",
                                        "p.d: must be a number, not a boolean",
                                        "p.missing: is required"));
}

TEST(JsonReader, NumberOrStringTakesKatibNumericText) {
  json j = {{"a", 1.5}, {"b", "2e3"}, {"c", "x"}, {"d", true}};
  JsonReader r;
  EXPECT_EQ(r.NumberOrString(j, "p", "a", true), 1.5);
  EXPECT_EQ(r.NumberOrString(j, "p", "b", true), 2000.0);
  EXPECT_TRUE(r.ok());
  EXPECT_FALSE(r.NumberOrString(j, "p", "c", true));
  EXPECT_FALSE(r.NumberOrString(j, "p", "d", true));
  EXPECT_THAT(r.problems(),
              ElementsAre("p.c: 'x' is not a finite number",
                          "p.d: must be a finite number, not a boolean"));
}

TEST(JsonReader, IntIsAnIntegralJsonNumber) {
  json j = {{"a", 3}, {"b", "10"}, {"c", 2.5}, {"d", true}, {"e", 3e9}};
  JsonReader r;
  EXPECT_EQ(r.Int(j, "", "a", true), 3);
  EXPECT_FALSE(r.Int(j, "", "b", true));
  EXPECT_FALSE(r.Int(j, "", "c", true));
  EXPECT_FALSE(r.Int(j, "", "d", true));
  EXPECT_FALSE(r.Int(j, "", "e", true));
  EXPECT_THAT(r.problems(),
              ElementsAre("b: must be an integer, not a string",
                          "c: 2.5 is not an integer",
                          "d: must be an integer, not a boolean",
                          "e: 3000000000 is out of range (-2000000000 to "
                          "2000000000)"));
}

TEST(JsonReader, StringIsAJsonStringOnly) {
  json j = {{"s", "abc"}, {"i", 123}, {"b", false}, {"o", json::object()}};
  JsonReader r;
  EXPECT_EQ(r.String(j, "", "s", true), "abc");
  EXPECT_TRUE(r.ok());
  EXPECT_FALSE(r.String(j, "", "i", true));
  EXPECT_FALSE(r.String(j, "", "b", true));
  EXPECT_FALSE(r.String(j, "", "o", true));
  EXPECT_FALSE(r.StringValue(json(1), "list[0]"));
  EXPECT_THAT(r.problems(), ElementsAre("i: must be a string, not a number",
                                        "b: must be a string, not a boolean",
                                        "o: must be a string, not a mapping",
                                        "list[0]: must be a string, not a number"));
}

TEST(JsonReader, TextAcceptsScalarsAsText) {
  json j = {{"s", "abc"}, {"i", 7}, {"f", 0.25}, {"b", false}, {"o", json::object()}};
  JsonReader r;
  EXPECT_EQ(r.Text(j, "", "s", true), "abc");
  EXPECT_EQ(r.Text(j, "", "i", true), "7");
  EXPECT_EQ(r.Text(j, "", "f", true), "0.25");
  EXPECT_EQ(r.Text(j, "", "b", true), "false");
  EXPECT_EQ(r.Text(json(18446744073709551615u), "u"), "18446744073709551615");
  EXPECT_TRUE(r.ok());
  EXPECT_FALSE(r.Text(j, "", "o", true));
  EXPECT_THAT(r.problems(), ElementsAre("o: must be a string, not a mapping"));
}

TEST(JsonReader, KeepsTheFirstProblemsAndCountsTheRest) {
  JsonReader r;
  for (size_t i = 0; i < JsonReader::kMaxProblems + 7; ++i) {
    r.Problem(JsonReader::Path("list", i), "bad");
  }
  EXPECT_EQ(r.problems().size(), JsonReader::kMaxProblems);
  EXPECT_THAT(r.ToStatus().message(), HasSubstr("; ... and 7 more problems"));
}

TEST(JsonReader, BoolObjectAndArray) {
  json j = {{"b", true}, {"nb", 1}, {"o", {{"k", 1}}}, {"a", {1, 2}}};
  JsonReader r;
  EXPECT_EQ(r.Bool(j, "", "b"), true);
  EXPECT_FALSE(r.Bool(j, "", "nb"));
  EXPECT_NE(r.Object(j, "", "o", true), nullptr);
  EXPECT_NE(r.Array(j, "", "a", true), nullptr);
  EXPECT_EQ(r.Object(j, "", "a", true), nullptr);
  EXPECT_EQ(r.Array(j, "", "o", true), nullptr);
  EXPECT_EQ(r.Array(j, "", "none", false), nullptr);
  EXPECT_THAT(r.problems(), ElementsAre("nb: must be true or false, not a number",
                                        "a: must be a mapping, not a list",
                                        "o: must be a list, not a mapping"));
}

TEST(JsonReader, RejectUnknownAndToStatus) {
  JsonReader r;
  EXPECT_TRUE(r.ToStatus().ok());
  r.RejectUnknown(json{{"name", 1}, {"nmae", 2}, {"extra", 3}}, "spec", {"name"});
  Status s = r.ToStatus();
  EXPECT_EQ(s.code(), StatusCode::kInvalidArgument);
  EXPECT_EQ(s.message(), "spec.extra: unknown field; spec.nmae: unknown field");
}

TEST(JsonTypeName, NamesEveryType) {
  EXPECT_EQ(JsonTypeName(json("x")), "a string");
  EXPECT_EQ(JsonTypeName(json(1)), "a number");
  EXPECT_EQ(JsonTypeName(json(true)), "a boolean");
  EXPECT_EQ(JsonTypeName(json::array()), "a list");
  EXPECT_EQ(JsonTypeName(json::object()), "a mapping");
  EXPECT_EQ(JsonTypeName(json(nullptr)), "null");
}

TEST(JsonNestedDeeperThan, CountsBracketsOutsideStrings) {
  EXPECT_FALSE(JsonNestedDeeperThan(R"({"a": [[1], {"b": 2}]})", 3));
  EXPECT_TRUE(JsonNestedDeeperThan(R"({"a": [[1], {"b": [2]}]})", 3));
  EXPECT_FALSE(JsonNestedDeeperThan(R"({"a": "[[[[[[", "b": "\\\"[[[["})", 1));
  EXPECT_TRUE(JsonNestedDeeperThan(std::string(200, '['), 128));
  EXPECT_FALSE(JsonNestedDeeperThan("", 0));
}

TEST(DuplicateKeyCallback, FindsTheFirstKeyTwiceInOneObject) {
  std::string twice;
  json j = json::parse(R"({"a": {"x": 1, "y": 2}, "b": {"x": 3}})", DuplicateKeyCallback(&twice));
  EXPECT_EQ(twice, "");
  EXPECT_EQ(j["b"]["x"], 3);
  json k = json::parse(R"({"a": [{"k": 1, "k": 2}], "z": 1, "z": 2})", DuplicateKeyCallback(&twice));
  EXPECT_EQ(k["z"], 2);
  EXPECT_EQ(twice, "k");
}

}  // namespace
}  // namespace hpt::api
