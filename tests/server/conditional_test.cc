// Conditional parameters (api/conditions.h) through the real server and a
// real SQLite file: the spec keeps `parent`, suggestions leave out the
// inactive parameters, a runner-run trial's argv leaves out arguments that
// reference them, and bad parents are a 400 naming the field.
#include <gtest/gtest.h>

#include <map>
#include <set>
#include <string>

#include "tests/testing/hpt_process.h"
#include "tests/testing/temp_dir.h"

namespace hpt::testing {
namespace {

using nlohmann::json;

json ConditionalParameters() {
  return json::array(
      {{{"name", "optimizer"},
        {"parameterType", "categorical"},
        {"feasibleSpace", {{"list", {"sgd", "adam"}}}}},
       {{"name", "momentum"},
        {"parameterType", "double"},
        {"feasibleSpace", {{"min", "0.5"}, {"max", "0.99"}}},
        {"parent", {{"name", "optimizer"}, {"values", {"sgd"}}}}},
       {{"name", "nesterov"},
        {"parameterType", "categorical"},
        {"feasibleSpace", {{"list", {"yes", "no"}}}},
        {"parent", {{"name", "optimizer"}, {"values", {"sgd"}}}}},
       {{"name", "dampening"},
        {"parameterType", "double"},
        {"feasibleSpace", {{"min", "0"}, {"max", "0.5"}}},
        {"parent", {{"name", "nesterov"}, {"values", {"no"}}}}}});
}

json Experiment(const std::string& name, const std::string& algorithm, int trials) {
  json settings = {{{"name", "random_state"}, {"value", "7"}}};
  if (algorithm == "tpe") settings.push_back({{"name", "n_startup_trials"}, {"value", "4"}});
  return {{"name", name},
          {"objective", {{"type", "minimize"}, {"objectiveMetricName", "loss"}}},
          {"algorithm", {{"algorithmName", algorithm}, {"algorithmSettings", settings}}},
          {"parallelTrialCount", 2},
          {"maxTrialCount", trials},
          {"parameters", ConditionalParameters()}};
}

std::map<std::string, std::string> Params(const json& trial) {
  std::map<std::string, std::string> out;
  for (const auto& p : trial["parameterAssignments"]) out[p["name"]] = p["value"];
  return out;
}

// Each parameter is present exactly when its parent chain is met.
void ExpectConsistent(const std::map<std::string, std::string>& p) {
  ASSERT_TRUE(p.count("optimizer"));
  const bool sgd = p.at("optimizer") == "sgd";
  EXPECT_EQ(p.count("momentum"), sgd ? 1u : 0u);
  EXPECT_EQ(p.count("nesterov"), sgd ? 1u : 0u);
  EXPECT_EQ(p.count("dampening"), sgd && p.at("nesterov") == "no" ? 1u : 0u);
  if (sgd) {
    const double m = std::stod(p.at("momentum"));
    EXPECT_GE(m, 0.5);
    EXPECT_LE(m, 0.99);
  }
}

class ConditionalServerTest : public ::testing::Test {
 protected:
  ConditionalServerTest() : server_(dir_.File("hpt.db")), client_(server_.Client()) {}

  TempDir dir_;
  HptProcess server_;
  std::unique_ptr<hpt::client::ApiClient> client_;
};

TEST_F(ConditionalServerTest, ClientRunTrialsHoldOnlyActiveParameters) {
  auto created = client_->Json("POST", "/api/v1/experiments", Experiment("cond", "tpe", 12));
  ASSERT_TRUE(created.ok()) << created.status().ToString();
  auto stored = client_->Json("GET", "/api/v1/experiments/cond");
  ASSERT_TRUE(stored.ok());
  EXPECT_EQ((*stored)["spec"]["parameters"][3]["parent"],
            json({{"name", "nesterov"}, {"values", {"no"}}}));
  std::set<std::string> optimizers;
  int trials = 0;
  while (true) {
    auto r = client_->Json("POST", "/api/v1/experiments/cond/trials:suggest", {{"count", 2}});
    ASSERT_TRUE(r.ok()) << r.status().ToString();
    if ((*r)["trials"].empty()) break;
    for (const json& t : (*r)["trials"]) {
      const auto p = Params(t);
      ExpectConsistent(p);
      optimizers.insert(p.at("optimizer"));
      const double loss = p.count("momentum") ? 1 - std::stod(p.at("momentum")) : 0.7;
      auto done = client_->Json(
          "POST", "/api/v1/experiments/cond/trials/" + t["name"].get<std::string>() + ":complete",
          {{"metrics", {{"loss", loss}}}});
      ASSERT_TRUE(done.ok()) << done.status().ToString();
      ++trials;
    }
  }
  EXPECT_EQ(trials, 12);
  EXPECT_EQ(optimizers, (std::set<std::string>{"adam", "sgd"}));
  // The stored trials read back the same way.
  auto listed = client_->Json("GET", "/api/v1/experiments/cond/trials");
  ASSERT_TRUE(listed.ok());
  for (const json& t : (*listed)["trials"]) ExpectConsistent(Params(t));
}

TEST_F(ConditionalServerTest, RunnerRunTrialsGetNoArgumentForInactiveParameters) {
  json spec = Experiment("argv", "random", 6);
  // The trial reports how many arguments it got: 1 (the optimizer), or 2
  // with the momentum.
  spec["trialTemplate"] = {
      {"command",
       {"python3", "-c", "import sys; print('loss=%d' % (len(sys.argv) - 1))",
        "--optimizer=${trialParameters.optimizer}", "--momentum=${trialParameters.momentum}"}},
      {"trialParameters",
       {{{"name", "optimizer"}, {"reference", "optimizer"}},
        {{"name", "momentum"}, {"reference", "momentum"}}}},
      {"workingDir", "/tmp"}};
  auto created = client_->Json("POST", "/api/v1/experiments", spec);
  ASSERT_TRUE(created.ok()) << created.status().ToString();
  json exp = WaitForExperiment(*client_, "argv");
  EXPECT_EQ(exp["status"]["phase"], "Succeeded") << exp.dump();
  auto listed = client_->Json("GET", "/api/v1/experiments/argv/trials");
  ASSERT_TRUE(listed.ok());
  ASSERT_EQ((*listed)["trials"].size(), 6u);
  for (const json& t : (*listed)["trials"]) {
    const auto p = Params(t);
    ExpectConsistent(p);
    EXPECT_EQ(t["phase"], "Succeeded") << t.dump();
    ASSERT_FALSE(t["metrics"].empty()) << t.dump();
    EXPECT_EQ(t["metrics"][0]["latest"].get<double>(), p.count("momentum") ? 2 : 1) << t.dump();
  }
}

TEST_F(ConditionalServerTest, BadParentsAreRefusedWithTheirPath) {
  json spec = Experiment("bad", "random", 4);
  spec["parameters"][1]["parent"]["name"] = "optimzer";
  spec["parameters"][2]["parent"]["values"] = {"sgd", "rmsprop"};
  auto r = client_->Json("POST", "/api/v1/experiments", spec);
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().code(), StatusCode::kInvalidArgument) << r.status().ToString();
  EXPECT_NE(r.status().message().find("parameters[1].parent.name: unknown parameter 'optimzer'"),
            std::string::npos)
      << r.status().message();
  EXPECT_NE(r.status().message().find("parameters[2].parent.values[1]: 'rmsprop' is not a value "
                                      "of 'optimizer'"),
            std::string::npos)
      << r.status().message();
}

}  // namespace
}  // namespace hpt::testing
