// Categorical choices of any JSON scalar (issue 33) through a real server
// on a real SQLite file: the spec keeps each choice's type across a
// restart, trials carry the choice's text, enqueue takes typed values, and
// duplicate choices are a 400 naming the field.
#include <memory>
#include <optional>
#include <set>
#include <string>

#include <gtest/gtest.h>

#include "tests/testing/hpt_process.h"
#include "tests/testing/temp_dir.h"

namespace hpt::testing {
namespace {

using nlohmann::json;

const char kChoices[] = R"([1, "a", null, 2.5, true])";

json Spec(const std::string& name) {
  return {{"name", name},
          {"objective", {{"type", "minimize"}, {"objectiveMetricName", "loss"}}},
          {"algorithm", {{"algorithmName", "random"}}},
          {"parallelTrialCount", 20},
          {"maxTrialCount", 20},
          {"parameters",
           {{{"name", "mixed"},
             {"parameterType", "categorical"},
             {"feasibleSpace", {{"list", json::parse(kChoices)}}}},
            {{"name", "rate"},
             {"parameterType", "discrete"},
             {"feasibleSpace", {{"list", json::parse("[0.1, 1, 10.0]")}}}},
            {{"name", "w"},
             {"parameterType", "double"},
             {"feasibleSpace", {{"min", 0}, {"max", 1}}},
             {"parent", {{"name", "mixed"}, {"values", {nullptr, true}}}}}}}};
}

std::optional<std::string> Value(const json& trial, const std::string& name) {
  for (const auto& a : trial["parameterAssignments"]) {
    if (a["name"] == name) return a["value"].get<std::string>();
  }
  return std::nullopt;
}

class CategoricalChoicesTest : public ::testing::Test {
 protected:
  CategoricalChoicesTest()
      : server_(std::make_unique<HptProcess>(dir_.File("hpt.db"))), client_(server_->Client()) {}

  json Call(const std::string& method, const std::string& path, const json& body = nullptr) {
    auto r = client_->Json(method, "/api/v1/experiments" + path, body);
    EXPECT_TRUE(r.ok()) << method << " " << path << ": " << r.status().ToString();
    return r.ok() ? *r : json();
  }
  std::string Refused(const std::string& method, const std::string& path, const json& body) {
    auto r = client_->Call(method, "/api/v1/experiments" + path, body.dump());
    EXPECT_TRUE(r.ok());
    if (!r.ok()) return "";
    EXPECT_EQ(r->status, 400) << r->body;
    return json::parse(r->body, nullptr, false)["error"].value("message", "");
  }

  TempDir dir_;
  std::unique_ptr<HptProcess> server_;
  std::unique_ptr<hpt::client::ApiClient> client_;
};

TEST_F(CategoricalChoicesTest, TypesSurviveTheStoreAndTrialsCarryTheText) {
  Call("POST", "", Spec("typed"));
  // A fresh server on the same file reads the types from SQLite.
  client_.reset();
  server_.reset();  // first: the file is locked by its server
  server_ = std::make_unique<HptProcess>(dir_.File("hpt.db"));
  client_ = server_->Client();
  json spec = Call("GET", "/typed")["spec"];
  EXPECT_EQ(spec["parameters"][0]["feasibleSpace"]["list"].dump(), json::parse(kChoices).dump());
  EXPECT_EQ(spec["parameters"][1]["feasibleSpace"]["list"].dump(), "[0.1,1,10.0]");

  json trials = Call("POST", "/typed/trials:suggest", {{"count", 20}})["trials"];
  ASSERT_EQ(trials.size(), 20u);
  std::set<std::string> seen;
  for (const json& t : trials) {
    const std::string mixed = Value(t, "mixed").value_or("(missing)");
    EXPECT_TRUE(std::set<std::string>({"1", "a", "null", "2.5", "true"}).count(mixed)) << mixed;
    EXPECT_TRUE(std::set<std::string>({"0.1", "1", "10"}).count(Value(t, "rate").value_or("")));
    // w is active only for the choices null and true.
    EXPECT_EQ(Value(t, "w").has_value(), mixed == "null" || mixed == "true") << t.dump();
    seen.insert(mixed);
  }
  EXPECT_GE(seen.size(), 3u);  // random over 20 trials
}

TEST_F(CategoricalChoicesTest, EnqueueTakesTypedValues) {
  Call("POST", "", Spec("enq"));
  json typed = {{"parameterAssignments",
                 {{{"name", "mixed"}, {"value", nullptr}},
                  {{"name", "rate"}, {"value", 10}},
                  {{"name", "w"}, {"value", 0.5}}}}};
  json r = Call("POST", "/enq/trials:enqueue", {{"trials", {typed}}});
  ASSERT_EQ(r["queued"].size(), 1u);
  // The same choice spelt as its text is the same trial.
  json text = {{"parameterAssignments",
                {{{"name", "mixed"}, {"value", "null"}},
                 {{"name", "rate"}, {"value", "10"}},
                 {{"name", "w"}, {"value", "0.5"}}}}};
  r = Call("POST", "/enq/trials:enqueue", {{"trials", {text}}, {"skipIfExists", true}});
  EXPECT_EQ(r["skipped"], 1);
  json first = Call("POST", "/enq/trials:suggest", {{"count", 1}})["trials"];
  ASSERT_EQ(first.size(), 1u);
  EXPECT_EQ(Value(first[0], "mixed"), "null");
  EXPECT_EQ(Value(first[0], "rate"), "10");

  json bool_choice = {{"parameterAssignments", {{{"name", "mixed"}, {"value", true}},
                                                {{"name", "rate"}, {"value", 0.1}},
                                                {{"name", "w"}, {"value", 0}}}}};
  EXPECT_EQ(Call("POST", "/enq/trials:enqueue", {{"trials", {bool_choice}}})["queued"].size(), 1u);
  json unknown = {{"parameterAssignments",
                   {{{"name", "mixed"}, {"value", false}}, {{"name", "rate"}, {"value", 1}}}}};
  EXPECT_NE(Refused("POST", "/enq/trials:enqueue", {{"trials", {unknown}}})
                .find("trials[0].parameterAssignments.mixed: 'false' is not one of 1, a, null, "
                      "2.5, true"),
            std::string::npos);
}

TEST_F(CategoricalChoicesTest, ChoicesThatReadTheSameAreA400NamingTheField) {
  json spec = Spec("dup");
  spec["parameters"][0]["feasibleSpace"]["list"] = json::parse(R"([null, "balanced", "null"])");
  EXPECT_NE(Refused("POST", "", spec).find("parameters[0].feasibleSpace.list[2]: 'null' is listed "
                                          "twice (as null and \"null\": choices must differ as "
                                          "text)"),
            std::string::npos);
  spec["parameters"][0]["feasibleSpace"]["list"] = json::parse("[1, 1.0]");
  EXPECT_NE(Refused("POST", "", spec).find("parameters[0].feasibleSpace.list[1]: '1' is listed "
                                          "twice (as 1 and 1.0"),
            std::string::npos);
}

}  // namespace
}  // namespace hpt::testing
