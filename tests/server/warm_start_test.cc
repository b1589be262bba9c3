// trials:enqueue, trials:import (JSON, CSV, fromExperiment) and the spec's
// warmStart, through a real server on a real SQLite file.
#include <string>

#include <gtest/gtest.h>

#include "tests/server/specs.h"
#include "tests/testing/hpt_process.h"
#include "tests/testing/temp_dir.h"

namespace hpt::testing {
namespace {

using nlohmann::json;

json Assign(double x, double y) {
  return {{"parameterAssignments",
           {{{"name", "x"}, {"value", x}}, {{"name", "y"}, {"value", std::to_string(y)}}}}};
}

// ClientExperiment with room for all its trials at once.
json WarmStartSpec(const std::string& name, int max_trials) {
  json spec = ClientExperiment(name, max_trials);
  spec["parallelTrialCount"] = max_trials;
  return spec;
}

class WarmStartTest : public ::testing::Test {
 protected:
  WarmStartTest() : server_(dir_.File("hpt.db")), client_(server_.Client()) {}

  json Call(const std::string& method, const std::string& path, const json& body = nullptr) {
    auto r = client_->Json(method, "/api/v1/experiments" + path, body);
    EXPECT_TRUE(r.ok()) << method << " " << path << ": " << r.status().ToString();
    return r.ok() ? *r : json();
  }
  // The error message of a call that must fail with `code`.
  std::string Refused(const std::string& method, const std::string& path, const json& body,
                      int code = 400) {
    auto r = client_->Call(method, "/api/v1/experiments" + path, body.dump());
    EXPECT_TRUE(r.ok());
    if (!r.ok()) return "";
    EXPECT_EQ(r->status, code) << r->body;
    return json::parse(r->body, nullptr, false)["error"].value("message", "");
  }
  std::string Value(const json& trial, const std::string& name) {
    for (const auto& a : trial["parameterAssignments"]) {
      if (a["name"] == name) return a["value"];
    }
    return "";
  }

  TempDir dir_;
  HptProcess server_;
  std::unique_ptr<hpt::client::ApiClient> client_;
};

TEST_F(WarmStartTest, EnqueuedAssignmentsAreSuggestedFirstInOrder) {
  Call("POST", "", WarmStartSpec("enq", 5));
  json r = Call("POST", "/enq/trials:enqueue", {{"trials", json::array({Assign(1.5, 2), Assign(-4, 14)})}});
  EXPECT_EQ(r["queued"].size(), 2u);
  EXPECT_EQ(r["queueLength"], 2);
  EXPECT_EQ(Call("GET", "/enq")["status"]["queuedTrials"], 2);
  // skipIfExists leaves out what is queued already.
  r = Call("POST", "/enq/trials:enqueue", {{"trials", json::array({Assign(1.5, 2)})}, {"skipIfExists", true}});
  EXPECT_EQ(r["skipped"], 1);
  EXPECT_EQ(r["queueLength"], 2);
  // Values are compared and stored in one spelling: " 1.50" is 1.5.
  json spelled = Assign(0, 2);
  spelled["parameterAssignments"][0]["value"] = " 1.50";
  spelled["parameterAssignments"][1]["value"] = "+2.0";
  r = Call("POST", "/enq/trials:enqueue", {{"trials", json::array({spelled})}, {"skipIfExists", true}});
  EXPECT_EQ(r["skipped"], 1);
  EXPECT_EQ(r["queueLength"], 2);

  json first = Call("POST", "/enq/trials:suggest", {{"count", 1}})["trials"];
  ASSERT_EQ(first.size(), 1u);
  EXPECT_EQ(Value(first[0], "x"), "1.5");
  json next = Call("POST", "/enq/trials:suggest", {{"count", 2}})["trials"];
  ASSERT_EQ(next.size(), 2u);
  EXPECT_EQ(Value(next[0], "x"), "-4");
  EXPECT_EQ(Value(next[0], "y"), "14");  // sent as "14.000000"
  // The second comes from the algorithm, inside the space.
  const double x = std::stod(Value(next[1], "x"));
  EXPECT_GE(x, -5);
  EXPECT_LE(x, 10);
  EXPECT_EQ(Call("GET", "/enq")["status"]["queuedTrials"], 0);
}

TEST_F(WarmStartTest, EnqueueChecksEveryAssignmentAndQueuesNoneOnError) {
  Call("POST", "", WarmStartSpec("enq-bad", 5));
  std::string m = Refused("POST", "/enq-bad/trials:enqueue",
                          {{"trials", json::array({Assign(1, 1), Assign(11, 1)})}});
  EXPECT_NE(m.find("trials[1].parameterAssignments.x: 11 is outside [-5, 10]"),
            std::string::npos)
      << m;
  json only_x = {{"parameterAssignments", json::array({{{"name", "x"}, {"value", "1"}}})}};
  m = Refused("POST", "/enq-bad/trials:enqueue", {{"trials", json::array({only_x})}});
  EXPECT_NE(m.find("trials[0].parameterAssignments.y: missing"), std::string::npos) << m;
  json with_z = only_x;
  with_z["parameterAssignments"].push_back({{"name", "z"}, {"value", "1"}});
  m = Refused("POST", "/enq-bad/trials:enqueue", {{"trials", json::array({with_z})}});
  EXPECT_NE(m.find("unknown parameter 'z'"), std::string::npos) << m;
  EXPECT_EQ(Call("GET", "/enq-bad")["status"]["queuedTrials"], 0);
}

TEST_F(WarmStartTest, ImportedTrialsRankButDoNotUseTheBudget) {
  Call("POST", "", WarmStartSpec("imp", 2));
  json first = Assign(1, 2);
  first["metrics"] = {{"loss", 0.25}};
  json second = Assign(3, 4);
  second["phase"] = "EarlyStopped";
  second["observations"] = json::array({{{"step", 1}, {"metrics", {{"loss", 9}}}},
                                        {{"step", 2}, {"metrics", {{"loss", 8}}}}});
  json body = {{"trials", json::array({first, second})}};
  json r = Call("POST", "/imp/trials:import", body);
  ASSERT_EQ(r["trials"].size(), 2u);
  EXPECT_EQ(r["trials"][0]["reason"], "Imported");
  EXPECT_EQ(r["trials"][1]["phase"], "EarlyStopped");
  json exp = Call("GET", "/imp");
  EXPECT_EQ(exp["status"]["trials"]["imported"], 2);
  EXPECT_EQ(exp["status"]["currentOptimalTrial"]["objectiveValue"], 0.25);
  // The imported curve is stored.
  json obs = Call("GET", "/imp/trials/" + r["trials"][1]["name"].get<std::string>() +
                             "/observations");
  EXPECT_EQ(obs["observations"].size(), 2u);
  // maxTrialCount 2 still leaves room for two trials of its own.
  EXPECT_EQ(Call("POST", "/imp/trials:suggest", {{"count", 2}})["trials"].size(), 2u);

  // All or nothing, each problem named.
  json no_loss = Assign(1, 1);
  no_loss["metrics"] = {{"acc", 1}};
  std::string m =
      Refused("POST", "/imp/trials:import", {{"trials", json::array({no_loss})}});
  EXPECT_NE(m.find("trials[0].metrics: the objective metric 'loss' is missing"), std::string::npos)
      << m;
  EXPECT_EQ(Call("GET", "/imp")["status"]["trials"]["imported"], 2);
}

TEST_F(WarmStartTest, ImportsAnOptunaCsvExport) {
  Call("POST", "", WarmStartSpec("csv", 5));
  const std::string csv =
      "number,value,datetime_start,params_x,params_y,state\n"
      "0,1.5,2026-01-01,0.5,3,COMPLETE\n"
      "1,,2026-01-01,2,4,FAIL\n"
      "2,7.25,2026-01-01,\"-1\",5,PRUNED\n";
  auto r = client_->Call("POST", "/api/v1/experiments/csv/trials:import", csv, "text/csv");
  ASSERT_TRUE(r.ok());
  ASSERT_EQ(r->status, 200) << r->body;
  json body = json::parse(r->body);
  ASSERT_EQ(body["trials"].size(), 2u);
  EXPECT_EQ(body["trials"][0]["phase"], "Succeeded");
  EXPECT_EQ(body["trials"][0]["objectiveValue"], 1.5);
  EXPECT_EQ(body["trials"][1]["phase"], "EarlyStopped");
  EXPECT_EQ(Value(body["trials"][1], "x"), "-1");
  EXPECT_EQ(body["skipped"].size(), 1u);
  EXPECT_EQ(body["ignoredColumns"], (json{"number", "datetime_start"}));

  auto bad = client_->Call("POST", "/api/v1/experiments/csv/trials:import",
                           "params_x,params_y,value\n0.5,3,abc\n", "text/csv");
  ASSERT_TRUE(bad.ok());
  EXPECT_EQ(bad->status, 400);
  EXPECT_NE(bad->body.find("csv row 2, column value"), std::string::npos) << bad->body;
}

TEST_F(WarmStartTest, ImportAndWarmStartFromAnEarlierExperiment) {
  Call("POST", "", WarmStartSpec("old", 3));
  json trials = Call("POST", "/old/trials:suggest", {{"count", 3}})["trials"];
  ASSERT_EQ(trials.size(), 3u);
  for (int i = 0; i < 2; ++i) {
    Call("POST", "/old/trials/" + trials[i]["name"].get<std::string>() + ":complete",
         {{"metrics", {{"loss", 10.0 + i}}}});
  }
  // The third stays Running: not imported.
  Call("POST", "", WarmStartSpec("new", 3));
  json r = Call("POST", "/new/trials:import", {{"fromExperiment", "old"}});
  EXPECT_EQ(r["trials"].size(), 2u);
  EXPECT_EQ(r["skipped"].size(), 1u);
  EXPECT_EQ(r["trials"][0]["message"], "imported from experiment old (" +
                                           trials[0]["name"].get<std::string>() + ")");
  EXPECT_NE(Refused("POST", "/new/trials:import", {{"fromExperiment", "nope"}})
                .find("fromExperiment"),
            std::string::npos);

  json spec = WarmStartSpec("warm", 3);
  spec["warmStart"] = {{"fromExperiments", {"old"}}};
  Call("POST", "", spec);
  json warm = Call("GET", "/warm");
  EXPECT_EQ(warm["status"]["trials"]["imported"], 2);
  EXPECT_EQ(warm["spec"]["warmStart"]["fromExperiments"], (json{"old"}));
  spec = WarmStartSpec("warm-bad", 3);
  spec["warmStart"] = {{"fromExperiments", {"missing-one"}}};
  std::string m = Refused("POST", "", spec);
  EXPECT_NE(m.find("warmStart.fromExperiments[0]"), std::string::npos) << m;
}

}  // namespace
}  // namespace hpt::testing
