// Early stopping and Hyperband through the real server.
#include <fstream>
#include <set>
#include <thread>

#include <gtest/gtest.h>

#include "tests/server/specs.h"
#include "tests/testing/hpt_process.h"
#include "tests/testing/temp_dir.h"

namespace hpt::testing {
namespace {

using nlohmann::json;

class EarlyStoppingTest : public ::testing::Test {
 protected:
  EarlyStoppingTest() : server_(dir_.File("hpt.db")), client_(server_.Client()) {}
  json Trials(const std::string& name) {
    auto r = client_->Json("GET", "/api/v1/experiments/" + name + "/trials");
    EXPECT_TRUE(r.ok()) << r.status().ToString();
    return r.ok() ? (*r)["trials"] : json::array();
  }
  TempDir dir_;
  HptProcess server_;
  std::unique_ptr<hpt::client::ApiClient> client_;
};

TEST_F(EarlyStoppingTest, MedianStopKillsHopelessTrialsMidRun) {
  const std::string pids = dir_.File("pids");
  // loss = x at every one of 20 steps: trials with a large x are hopeless.
  // 4 s a trial leaves the rule seconds to stop one even on a loaded
  // machine (at 1.5 s, a ctest run beside the fuzzers once saw a stop
  // arrive only after the last step).
  json spec = ShellExperiment(
      "median", "echo \"$HPT_TRIAL $$\" >> " + pids +
                    "; for i in $(seq 1 20); do echo step=$i loss=$X; sleep 0.2; done",
      12, 3);
  spec["earlyStopping"] = {{"algorithmName", "medianstop"},
                           {"algorithmSettings",
                            {{{"name", "min_trials_required"}, {"value", "2"}},
                             {{"name", "start_step"}, {"value", "2"}}}}};
  ASSERT_TRUE(client_->Json("POST", "/api/v1/experiments", spec).ok());
  json exp = WaitForExperiment(*client_, "median", 90);
  EXPECT_EQ(exp["status"]["phase"], "Succeeded") << exp.dump();
  int stopped = exp["status"]["trials"]["earlyStopped"].get<int>();
  EXPECT_GT(stopped, 0) << exp.dump();
  EXPECT_EQ(exp["status"]["trials"]["failed"], 0);

  std::map<std::string, pid_t> pid_of;
  std::ifstream in(pids);
  std::string trial;
  pid_t pid;
  while (in >> trial >> pid) pid_of[trial] = pid;
  for (const auto& t : Trials("median")) {
    if (t["phase"] != "EarlyStopped") continue;
    std::string name = t["name"];
    EXPECT_EQ(t["reason"], "EarlyStopped");
    EXPECT_NE(t["message"].get<std::string>().find("median"), std::string::npos) << t.dump();
    auto obs = client_->Json("GET", "/api/v1/experiments/median/trials/" + name + "/observations");
    ASSERT_TRUE(obs.ok());
    EXPECT_LT((*obs)["observations"].size(), 20u) << name << " ran to the end";
    ASSERT_TRUE(pid_of.count(name));
    EXPECT_FALSE(ProcessAlive(pid_of[name])) << name;
    // It keeps its metrics.
    EXPECT_FALSE(t["metrics"].empty());
  }
  // Stopped trials are the worse ones: the best trial ran to the end.
  EXPECT_NE(exp["status"]["currentOptimalTrial"]["name"], nullptr);
}

TEST_F(EarlyStoppingTest, ClientRunTrialsAskShouldStop) {
  json spec = ClientExperiment("ask-stop", 5);
  spec["earlyStopping"] = {{"algorithmName", "medianstop"},
                           {"algorithmSettings",
                            {{{"name", "min_trials_required"}, {"value", "1"}},
                             {{"name", "start_step"}, {"value", "1"}}}}};
  ASSERT_TRUE(client_->Json("POST", "/api/v1/experiments", spec).ok());
  auto suggested = client_->Json("POST", "/api/v1/experiments/ask-stop/trials:suggest",
                                 {{"count", 2}});
  ASSERT_TRUE(suggested.ok());
  std::string good = (*suggested)["trials"][0]["name"];
  std::string bad = (*suggested)["trials"][1]["name"];
  const std::string base = "/api/v1/experiments/ask-stop/trials/";
  ASSERT_TRUE(client_->Json("POST", base + good + "/observations",
                            {{"observations",
                              {{{"step", 1}, {"metrics", {{"loss", 0.2}}}},
                               {{"step", 2}, {"metrics", {{"loss", 0.1}}}}}}})
                  .ok());
  auto verdict = client_->Json("GET", base + good + ":shouldStop");
  ASSERT_TRUE(verdict.ok()) << verdict.status().ToString();
  EXPECT_EQ((*verdict)["shouldStop"], false);  // nothing completed to compare with
  ASSERT_TRUE(client_->Json("POST", base + good + ":complete", {{"metrics", {{"loss", 0.1}}}}).ok());

  ASSERT_TRUE(client_->Json("POST", base + bad + "/observations",
                            {{"observations",
                              {{{"step", 1}, {"metrics", {{"loss", 5.0}}}},
                               {{"step", 2}, {"metrics", {{"loss", 4.0}}}}}}})
                  .ok());
  verdict = client_->Json("GET", base + bad + ":shouldStop");
  ASSERT_TRUE(verdict.ok());
  EXPECT_EQ((*verdict)["shouldStop"], true) << verdict->dump();
  EXPECT_FALSE((*verdict)["reason"].get<std::string>().empty());
  auto done = client_->Json("POST", base + bad + ":complete", {{"metrics", {{"loss", 4.0}}}});
  ASSERT_TRUE(done.ok());
  EXPECT_EQ((*done)["phase"], "EarlyStopped");
  EXPECT_EQ(client_->Json("GET", base + "nope:shouldStop").status().code(), StatusCode::kNotFound);
}

TEST_F(EarlyStoppingTest, UnknownPolicyIsRejected) {
  json spec = ClientExperiment("bad-policy");
  spec["earlyStopping"] = {{"algorithmName", "guesswork"}};
  auto r = client_->Json("POST", "/api/v1/experiments", spec);
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.status().message().find("earlyStopping.algorithmName: 'guesswork' is not supported"),
            std::string::npos)
      << r.status().message();
}

TEST_F(EarlyStoppingTest, HyperbandGivesEachRungItsBudgetAndCompletes) {
  // eta 3, r_l 9: brackets of 9@1 -> 3@3 -> 1@9, 5@3 -> 1@9 and 3@9.
  json spec = ShellExperiment("hb", "echo loss=$(awk \"BEGIN{print $X + 1/$EPOCHS}\")", 40, 4);
  spec["parameters"].push_back(
      {{"name", "epochs"}, {"parameterType", "int"}, {"feasibleSpace", {{"min", "1"}, {"max", "9"}}}});
  spec["trialTemplate"]["trialParameters"].push_back({{"name", "epochs"}, {"reference", "epochs"}});
  spec["trialTemplate"]["env"]["EPOCHS"] = "${trialParameters.epochs}";
  spec["algorithm"] = {{"algorithmName", "hyperband"},
                       {"algorithmSettings",
                        {{{"name", "resource_name"}, {"value", "epochs"}},
                         {{"name", "eta"}, {"value", "3"}},
                         {{"name", "r_l"}, {"value", "9"}},
                         {{"name", "random_state"}, {"value", "1"}}}}};
  auto created = client_->Json("POST", "/api/v1/experiments", spec);
  ASSERT_TRUE(created.ok()) << created.status().ToString();
  json exp = WaitForExperiment(*client_, "hb", 90);
  EXPECT_EQ(exp["status"]["phase"], "Succeeded") << exp.dump();
  EXPECT_EQ(exp["status"]["reason"], "SearchSpaceExhausted") << exp.dump();
  std::map<int, int> budgets;  // epochs -> trials
  for (const auto& t : Trials("hb")) {
    for (const auto& a : t["parameterAssignments"]) {
      if (a["name"] == "epochs") ++budgets[std::stoi(a["value"].get<std::string>())];
    }
  }
  EXPECT_EQ(budgets, (std::map<int, int>{{1, 9}, {3, 3 + 5}, {9, 1 + 1 + 3}}));
}

}  // namespace
}  // namespace hpt::testing
