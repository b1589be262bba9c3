// Issue #10, medium findings about input and stored data, against the real
// `hpt serve`: `{"name": 123}` and `"maxTrialCount": "10"` were coerced,
// names took any text (markup reached the dashboard), an observation could
// add any number of metric names, and one unreadable experiment row kept the
// server from starting at all.
#include <fcntl.h>
#include <signal.h>
#include <sqlite3.h>
#include <unistd.h>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cstdio>
#include <fstream>
#include <sstream>

#include "tests/server/specs.h"
#include "tests/testing/hpt_process.h"
#include "tests/testing/raw_http.h"
#include "tests/testing/temp_dir.h"

namespace hpt::testing {
namespace {

using ::testing::HasSubstr;
using nlohmann::json;

const char kXss[] = "<img src=x onerror=alert(1)>";

class InputHardeningTest : public ::testing::Test {
 protected:
  void SetUp() override { server_ = std::make_unique<HptProcess>(dir_.File("hpt.db")); }

  RawResponse Send(const std::string& method, const std::string& target,
                   const std::string& body,
                   const std::string& type = "application/json") {
    return RawHttp(server_->url(), method, target, {{"Content-Type", type}}, body);
  }
  RawResponse Post(const std::string& target, const json& body) {
    return Send("POST", target, body.dump());
  }
  // The error message of a 400 answer (fails the test on another status).
  std::string Rejected(const RawResponse& r) {
    EXPECT_EQ(r.status, 400) << r.body;
    auto body = json::parse(r.body, nullptr, false);
    if (body.is_discarded() || !body.contains("error")) return r.body;
    return body["error"].value("message", "");
  }
  size_t ExperimentCount() {
    RawResponse r = RawHttp(server_->url(), "GET", "/api/v1/experiments");
    EXPECT_EQ(r.status, 200) << r.body;
    return json::parse(r.body)["experiments"].size();
  }
  // A client-run experiment with one trial to report on; its trial's path.
  std::string TrialPath() {
    EXPECT_EQ(Post("/api/v1/experiments", ClientExperiment("ask")).status, 201);
    RawResponse r = Post("/api/v1/experiments/ask/trials:suggest", {{"count", 1}});
    EXPECT_EQ(r.status, 200) << r.body;
    return "/api/v1/experiments/ask/trials/" +
           json::parse(r.body)["trials"][0]["name"].get<std::string>();
  }

  TempDir dir_;
  std::unique_ptr<HptProcess> server_;
};

TEST_F(InputHardeningTest, WrongJsonTypesAreRejectedNamingTheField) {
  json spec = ClientExperiment("typed");
  spec["name"] = 123;
  EXPECT_THAT(Rejected(Post("/api/v1/experiments", spec)),
              HasSubstr("name: must be a string, not a number"));
  spec = ClientExperiment("typed");
  spec["maxTrialCount"] = "10";
  EXPECT_THAT(Rejected(Post("/api/v1/experiments", spec)),
              HasSubstr("maxTrialCount: must be an integer, not a string"));
  spec = ClientExperiment("typed");
  spec["parameters"][0]["name"] = 7;
  EXPECT_THAT(Rejected(Post("/api/v1/experiments", spec)),
              HasSubstr("parameters[0].name: must be a string, not a number"));
  EXPECT_EQ(ExperimentCount(), 0u);

  // Katib's string bounds stay.
  spec = ClientExperiment("typed");
  spec["parameters"][0]["feasibleSpace"] = {{"min", "-5"}, {"max", "1e1"}};
  RawResponse created = Post("/api/v1/experiments", spec);
  EXPECT_EQ(created.status, 201) << created.body;
}

TEST_F(InputHardeningTest, YamlCountsAreIntegersUnquotedAndStringsQuoted) {
  const std::string yaml = R"(
objective: {type: minimize, objectiveMetricName: loss}
algorithm: {algorithmName: random}
parameters: [{name: x, parameterType: double, feasibleSpace: {min: "0", max: "1"}}]
)";
  EXPECT_THAT(Rejected(Send("POST", "/api/v1/experiments",
                            "name: quoted\nmaxTrialCount: \"10\"" + yaml,
                            "application/yaml")),
              HasSubstr("maxTrialCount: must be an integer, not a string"));
  RawResponse plain = Send("POST", "/api/v1/experiments",
                           "name: plain\nmaxTrialCount: 10" + yaml, "application/yaml");
  ASSERT_EQ(plain.status, 201) << plain.body;
  EXPECT_EQ(json::parse(plain.body)["spec"]["maxTrialCount"], 10);
}

TEST_F(InputHardeningTest, RequestBodiesAreStrictlyTyped) {
  std::string trial = TrialPath();
  EXPECT_THAT(Rejected(Post("/api/v1/experiments/ask/trials:suggest", {{"count", "2"}})),
              HasSubstr("count: must be an integer, not a string"));
  EXPECT_THAT(Rejected(Post(trial + "/observations", {{"step", "1"}, {"metrics", {{"loss", 1}}}})),
              HasSubstr("step: must be a number, not a string"));
  EXPECT_THAT(Rejected(Post(trial + ":complete", {{"infeasible", true}, {"reason", 5}})),
              HasSubstr("reason: must be a string, not a number"));
}

TEST_F(InputHardeningTest, ParameterAndMetricNamesAreLimited) {
  json spec = ClientExperiment("names");
  spec["parameters"][0]["name"] = kXss;
  EXPECT_THAT(Rejected(Post("/api/v1/experiments", spec)),
              HasSubstr("parameters[0].name: '<img src=x onerror=alert(1)>' may only use"));
  spec = ClientExperiment("names");
  spec["objective"]["objectiveMetricName"] = "val loss";
  spec["objective"]["additionalMetricNames"] = {kXss};
  std::string err = Rejected(Post("/api/v1/experiments", spec));
  EXPECT_THAT(err, HasSubstr("objective.objectiveMetricName: 'val loss' may only use"));
  EXPECT_THAT(err, HasSubstr("objective.additionalMetricNames[0]: '<img"));
  EXPECT_EQ(ExperimentCount(), 0u);

  std::string trial = TrialPath();
  EXPECT_THAT(Rejected(Post(trial + "/observations", {{"metrics", {{kXss, 1}}}})),
              HasSubstr("metrics: metric name '<img src=x onerror=alert(1)>' may only use"));
  EXPECT_THAT(Rejected(Post(trial + ":complete", {{"metrics", {{"<b>", 1}}}})),
              HasSubstr("metrics: metric name '<b>' may only use"));
  RawResponse ok = Post(trial + "/observations", {{"metrics", {{"train/loss", 1}}}});
  EXPECT_EQ(ok.status, 201) << ok.body;
}

TEST_F(InputHardeningTest, MetricNamesPerReportAndParametersAreCapped) {
  std::string trial = TrialPath();
  json many = json::object();
  for (int i = 0; i < 101; ++i) many["m" + std::to_string(i)] = i;
  EXPECT_THAT(Rejected(Post(trial + "/observations", {{"metrics", many}})),
              HasSubstr("at most 100 distinct metric names per request"));
  EXPECT_THAT(Rejected(Post(trial + ":complete", {{"metrics", many}})),
              HasSubstr("at most 100 distinct metric names per request"));
  RawResponse observations = RawHttp(server_->url(), "GET", trial + "/observations");
  EXPECT_EQ(json::parse(observations.body)["observations"].size(), 0u);

  json spec = ClientExperiment("wide");
  json param = spec["parameters"][0];
  spec["parameters"] = json::array();
  for (int i = 0; i < 257; ++i) {
    param["name"] = "p" + std::to_string(i);
    spec["parameters"].push_back(param);
  }
  EXPECT_THAT(Rejected(Post("/api/v1/experiments", spec)),
              HasSubstr("parameters: at most 256 entries, not 257"));
}

// Sets a column of one experiment row with the sqlite3 C API, as damage
// (or a spec written by another version) would.
void CorruptExperiment(const std::string& db_path, const std::string& name,
                       const std::string& spec_json) {
  sqlite3* db = nullptr;
  ASSERT_EQ(sqlite3_open(db_path.c_str(), &db), SQLITE_OK);
  sqlite3_stmt* stmt = nullptr;
  ASSERT_EQ(sqlite3_prepare_v2(db, "UPDATE experiments SET spec_json = ? WHERE name = ?", -1,
                               &stmt, nullptr),
            SQLITE_OK);
  sqlite3_bind_text(stmt, 1, spec_json.c_str(), -1, SQLITE_TRANSIENT);
  sqlite3_bind_text(stmt, 2, name.c_str(), -1, SQLITE_TRANSIENT);
  EXPECT_EQ(sqlite3_step(stmt), SQLITE_DONE);
  EXPECT_EQ(sqlite3_changes(db), 1);
  sqlite3_finalize(stmt);
  sqlite3_close(db);
}

// Starts a server whose stderr goes to `log_path` (a child inherits fd 2).
std::unique_ptr<HptProcess> StartLogging(const std::string& db_path,
                                         const std::string& log_path) {
  std::fflush(stderr);
  int saved = dup(2);
  int log = open(log_path.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0600);
  dup2(log, 2);
  close(log);
  auto server = std::make_unique<HptProcess>(db_path);
  dup2(saved, 2);
  close(saved);
  return server;
}

TEST_F(InputHardeningTest, AnUnreadableStoredExperimentIsReportedNotFatal) {
  ASSERT_EQ(Post("/api/v1/experiments", ClientExperiment("good")).status, 201);
  ASSERT_EQ(Post("/api/v1/experiments", ClientExperiment("bad")).status, 201);
  server_->Kill(SIGTERM);
  CorruptExperiment(dir_.File("hpt.db"), "bad", R"({"name": "bad", "maxTrialCount": "ten")");

  server_ = StartLogging(dir_.File("hpt.db"), dir_.File("serve.log"));
  RawResponse list = RawHttp(server_->url(), "GET", "/api/v1/experiments");
  ASSERT_EQ(list.status, 200) << list.body;
  json body = json::parse(list.body);
  ASSERT_EQ(body["experiments"].size(), 1u);
  EXPECT_EQ(body["experiments"][0]["name"], "good");
  ASSERT_EQ(body["unreadable"].size(), 1u);
  EXPECT_EQ(body["unreadable"][0]["name"], "bad");
  EXPECT_EQ(body["unreadable"][0]["error"],
            "experiment 'bad' cannot be read: its stored spec is not JSON");

  RawResponse bad = RawHttp(server_->url(), "GET", "/api/v1/experiments/bad");
  EXPECT_EQ(bad.status, 409) << bad.body;
  EXPECT_EQ(json::parse(bad.body)["error"]["message"],
            "experiment 'bad' cannot be read: its stored spec is not JSON");
  EXPECT_EQ(RawHttp(server_->url(), "GET", "/api/v1/experiments/good").status, 200);
  RawResponse more = Post("/api/v1/experiments", ClientExperiment("after"));
  EXPECT_EQ(more.status, 201) << more.body;

  std::ifstream in(dir_.File("serve.log"));
  std::stringstream log;
  log << in.rdbuf();
  const std::string text = log.str();
  const std::string line = "experiment 'bad' cannot be read";
  ASSERT_NE(text.find(line), std::string::npos) << text;
  EXPECT_EQ(text.find(line, text.find(line) + 1), std::string::npos) << "logged twice:\n"
                                                                    << text;
}

TEST_F(InputHardeningTest, AStoredSpecThisVersionRejectsIsReportedWithItsProblem) {
  ASSERT_EQ(Post("/api/v1/experiments", ClientExperiment("old")).status, 201);
  server_->Kill(SIGTERM);
  json stale = ClientExperiment("old");
  stale["maxTrialCount"] = "10";
  CorruptExperiment(dir_.File("hpt.db"), "old", stale.dump());

  server_ = std::make_unique<HptProcess>(dir_.File("hpt.db"));
  RawResponse got = RawHttp(server_->url(), "GET", "/api/v1/experiments/old");
  EXPECT_EQ(got.status, 409) << got.body;
  EXPECT_THAT(got.body, HasSubstr("experiment 'old' cannot be read: its stored spec is "
                                  "invalid: maxTrialCount: must be an integer, not a string"));
}

}  // namespace
}  // namespace hpt::testing
