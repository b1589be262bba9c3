// Optuna's user attributes over the API (#33): PATCH a trial's or an
// experiment's userAttrs, merged into what is stored, shown in their JSON,
// kept across a restart; bad input is a 400 naming userAttrs; a trial's
// own token may set its attributes and no other trial's.
#include <chrono>
#include <string>
#include <thread>

#include <gtest/gtest.h>

#include "tests/server/specs.h"
#include "tests/testing/hpt_process.h"
#include "tests/testing/raw_http.h"
#include "tests/testing/temp_dir.h"

namespace hpt::testing {
namespace {

using nlohmann::json;

constexpr char kTrial[] = "/api/v1/experiments/attrs/trials/attrs-1";
constexpr char kExperiment[] = "/api/v1/experiments/attrs";

// The status and the JSON body of `method path body`.
std::pair<int, json> SendJson(hpt::client::ApiClient& client,
                              const std::string& method,
                              const std::string& path,
                              const std::string& body) {
  auto r = client.Call(method, path, body);
  EXPECT_TRUE(r.ok()) << r.status().ToString();
  if (!r.ok()) return {0, json()};
  return {r->status, json::parse(r->body, nullptr, false)};
}

TEST(UserAttrsTest, TrialAndExperimentAttrsMergeShowAndSurviveARestart) {
  TempDir dir;
  auto server = std::make_unique<HptProcess>(dir.File("hpt.db"));
  auto client = server->Client();
  ASSERT_TRUE(client->Json("POST", "/api/v1/experiments", ClientExperiment("attrs", 4)).ok());
  ASSERT_TRUE(client->Json("POST", std::string(kExperiment) + "/trials:suggest", {{"count", 2}})
                  .ok());
  // A new trial and experiment have none: an empty object.
  EXPECT_EQ((*client->Json("GET", kTrial))["userAttrs"], json::object());
  EXPECT_EQ((*client->Json("GET", kExperiment))["userAttrs"], json::object());

  auto [code, trial] = SendJson(
      *client, "PATCH", kTrial,
      R"({"userAttrs": {"fold": 3, "note": "<b>x</b>", "tags": ["a", 1]}})");
  ASSERT_EQ(code, 200) << trial.dump();
  EXPECT_EQ(trial["name"], "attrs-1");
  EXPECT_EQ(trial["userAttrs"], json::parse(R"({"fold": 3, "note": "<b>x</b>", "tags": ["a", 1]})"));
  // Set over: a key given again takes its new value, the others stay.
  std::tie(code, trial) = SendJson(
      *client, "PATCH", kTrial, R"({"userAttrs": {"fold": 4, "none": null}})");
  ASSERT_EQ(code, 200) << trial.dump();
  const json expected =
      json::parse(R"({"fold": 4, "note": "<b>x</b>", "tags": ["a", 1], "none": null})");
  EXPECT_EQ(trial["userAttrs"], expected);
  // Completing it keeps them; the other trial has none.
  auto completed =
      client->Json("POST", std::string(kTrial) + ":complete", {{"metrics", {{"loss", 1.5}}}});
  ASSERT_TRUE(completed.ok()) << completed.status().ToString();
  EXPECT_EQ((*completed)["userAttrs"], expected);
  auto listed = client->Json("GET", std::string(kExperiment) + "/trials");
  ASSERT_TRUE(listed.ok());
  EXPECT_EQ((*listed)["trials"][0]["userAttrs"], expected);
  EXPECT_EQ((*listed)["trials"][1]["userAttrs"], json::object());

  json exp;
  std::tie(code, exp) = SendJson(*client, "PATCH", kExperiment,
                                 R"({"userAttrs": {"dataset": "mnist"}})");
  ASSERT_EQ(code, 200) << exp.dump();
  EXPECT_EQ(exp["userAttrs"], json::parse(R"({"dataset": "mnist"})"));
  // With a limit in the same PATCH: both are done.
  std::tie(code, exp) =
      SendJson(*client, "PATCH", kExperiment,
               R"({"userAttrs": {"seed": 7}, "maxTrialCount": 6})");
  ASSERT_EQ(code, 200) << exp.dump();
  EXPECT_EQ(exp["userAttrs"], json::parse(R"({"dataset": "mnist", "seed": 7})"));
  EXPECT_EQ(exp["spec"]["maxTrialCount"], 6);

  server.reset();
  server = std::make_unique<HptProcess>(dir.File("hpt.db"));
  client = server->Client();
  EXPECT_EQ((*client->Json("GET", kTrial))["userAttrs"], expected);
  EXPECT_EQ((*client->Json("GET", kExperiment))["userAttrs"],
            json::parse(R"({"dataset": "mnist", "seed": 7})"));
}

// {"userAttrs": {"<prefix>0": 1, ...}} with `n` keys.
std::string Keys(const std::string& prefix, int n) {
  json attrs = json::object();
  for (int i = 0; i < n; ++i) attrs[prefix + std::to_string(i)] = 1;
  return json{{"userAttrs", attrs}}.dump();
}

TEST(UserAttrsTest, BadInputIsA400NamingUserAttrs) {
  TempDir dir;
  HptProcess server(dir.File("hpt.db"));
  auto client = server.Client();
  ASSERT_TRUE(client->Json("POST", "/api/v1/experiments", ClientExperiment("attrs", 4)).ok());
  ASSERT_TRUE(client->Json("POST", std::string(kExperiment) + "/trials:suggest", {{"count", 1}})
                  .ok());
  const std::pair<std::string, std::string> cases[] = {
      {R"({"userAttrs": [1]})", "userAttrs: must be an object of key -> value, not array"},
      {R"({"userAttrs": {"": 1}})", "userAttrs: a key must have 1 to 128 characters, not 0"},
      {R"({"userAttrs": {"a\nb": 1}})", R"(userAttrs: the key "a\nb" holds a control character)"},
      {Keys("k", 101), "userAttrs: at most 100 attributes, not 101"},
      {R"({"userAttrs": {"big": ")" + std::string(70000, 'x') + "\"}}",
       "userAttrs: at most 65536 bytes of keys and values as JSON, not 70011"},
      {R"({"userAttr": {"a": 1}})", "userAttr: unknown field"},
      {R"({})", "nothing to change: give userAttrs"},
  };
  for (const auto& [body, message] : cases) {
    SCOPED_TRACE(body.substr(0, 60));
    auto [code, error] = SendJson(*client, "PATCH", kTrial, body);
    EXPECT_EQ(code, 400) << error.dump();
    EXPECT_EQ(error["error"].value("message", ""), message);
  }
  // The limits hold for what is stored and what is added together.
  ASSERT_EQ(SendJson(*client, "PATCH", kTrial, Keys("a", 60)).first, 200);
  auto [code, error] = SendJson(*client, "PATCH", kTrial, Keys("b", 60));
  EXPECT_EQ(code, 400);
  EXPECT_EQ(error["error"].value("message", ""), "userAttrs: at most 100 attributes, not 120");
  EXPECT_EQ((*client->Json("GET", kTrial))["userAttrs"].size(), 60u) << "nothing changed";

  EXPECT_EQ(
      SendJson(*client, "PATCH", std::string(kExperiment) + "/trials/attrs-9",
               R"({"userAttrs": {"a": 1}})")
          .first,
      404);
  auto [exp_code, exp_error] =
      SendJson(*client, "PATCH", kExperiment, R"({"userAttrs": {"": 1}})");
  EXPECT_EQ(exp_code, 400);
  EXPECT_EQ(exp_error["error"].value("message", ""),
            "userAttrs: a key must have 1 to 128 characters, not 0");
}

std::map<std::string, std::string> As(const std::string& token) {
  return {{"Authorization", "Bearer " + token}, {"Content-Type", "application/json"}};
}

// A trial sets its own attributes with the token the server gave it
// (HPT_TOKEN), as trial.set_user_attr does; that token opens no other
// trial's, and not the experiment's.
TEST(UserAttrsTest, ATrialsTokenSetsItsOwnAttrsOnly) {
  TempDir dir;
  WriteFile(dir.File("token"), "attrs-admin-token\n");
  HptProcess server(dir.File("hpt.db"), {"--token-file", dir.File("token")});
  auto admin = server.Client("attrs-admin-token");
  const std::string file = dir.File("token-");
  json spec = ShellExperiment(
      "attrs", "printf %s \"$HPT_TOKEN\" > " + file + "$HPT_TRIAL; sleep 60", 2, 2);
  ASSERT_TRUE(admin->Json("POST", "/api/v1/experiments", spec).ok());
  std::string token;
  for (int i = 0; i < 200 && token.rfind("hpt-trial-", 0) != 0; ++i) {
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
    token = ReadFile(file + "attrs-1");
  }
  ASSERT_EQ(token.rfind("hpt-trial-", 0), 0u) << token;
  const std::string body = R"({"userAttrs": {"host": "node-7"}})";
  auto own = RawHttp(server.url(), "PATCH", kTrial, As(token), body);
  EXPECT_EQ(own.status, 200) << own.body;
  EXPECT_EQ((*admin->Json("GET", kTrial))["userAttrs"], json::parse(R"({"host": "node-7"})"));
  auto other = RawHttp(server.url(), "PATCH", "/api/v1/experiments/attrs/trials/attrs-2",
                       As(token), body);
  EXPECT_EQ(other.status / 100, 4) << other.body;
  EXPECT_NE(other.status, 400) << other.body;
  auto experiment = RawHttp(server.url(), "PATCH", kExperiment, As(token), body);
  EXPECT_EQ(experiment.status / 100, 4) << experiment.body;
  EXPECT_NE(experiment.status, 400) << experiment.body;
  EXPECT_EQ((*admin->Json("GET", kExperiment))["userAttrs"], json::object());
  EXPECT_EQ(RawHttp(server.url(), "PATCH", kTrial, {{"Content-Type", "application/json"}}, body)
                .status,
            401);
  EXPECT_TRUE(admin->Json("POST", std::string(kExperiment) + ":stop").ok());
}

}  // namespace
}  // namespace hpt::testing
