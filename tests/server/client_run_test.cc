// Client-run (ask/tell) experiments through the real server.
#include <set>
#include <thread>

#include <gtest/gtest.h>

#include "tests/server/specs.h"
#include "tests/testing/hpt_process.h"
#include "tests/testing/temp_dir.h"

namespace hpt::testing {
namespace {

using nlohmann::json;

class ClientRunTest : public ::testing::Test {
 protected:
  ClientRunTest() : server_(dir_.File("hpt.db")), client_(server_.Client()) {}

  json Suggest(const std::string& exp, int count) {
    auto r = client_->Json("POST", "/api/v1/experiments/" + exp + "/trials:suggest",
                           {{"count", count}});
    EXPECT_TRUE(r.ok()) << r.status().ToString();
    return r.ok() ? (*r)["trials"] : json::array();
  }
  std::string TrialPath(const std::string& exp, const std::string& trial) {
    return "/api/v1/experiments/" + exp + "/trials/" + trial;
  }

  TempDir dir_;
  HptProcess server_;
  std::unique_ptr<hpt::client::ApiClient> client_;
};

TEST_F(ClientRunTest, AskTellUntilTheBudgetIsUsed) {
  auto created = client_->Json("POST", "/api/v1/experiments", ClientExperiment("asktell", 5));
  ASSERT_TRUE(created.ok()) << created.status().ToString();
  EXPECT_EQ((*created)["status"]["phase"], "Created");
  int completed = 0;
  while (true) {
    json trials = Suggest("asktell", 2);
    if (trials.empty()) break;
    for (const auto& t : trials) {
      EXPECT_EQ(t["phase"], "Running");
      double x = std::stod(t["parameterAssignments"][0]["value"].get<std::string>());
      std::string path = TrialPath("asktell", t["name"]);
      ASSERT_TRUE(client_->Json("POST", path + "/observations",
                                {{"step", 1}, {"metrics", {{"loss", x * x + 1}}}})
                      .ok());
      auto done = client_->Json("POST", path + ":complete", {{"metrics", {{"loss", x * x}}}});
      ASSERT_TRUE(done.ok()) << done.status().ToString();
      EXPECT_EQ((*done)["phase"], "Succeeded");
      ++completed;
    }
  }
  EXPECT_EQ(completed, 5);
  auto exp = client_->Json("GET", "/api/v1/experiments/asktell");
  ASSERT_TRUE(exp.ok());
  EXPECT_EQ((*exp)["status"]["phase"], "Succeeded");
  EXPECT_EQ((*exp)["status"]["reason"], "MaxTrialsReached");
  EXPECT_EQ((*exp)["status"]["trials"]["succeeded"], 5);
  EXPECT_FALSE((*exp)["status"]["currentOptimalTrial"].is_null());
}

TEST_F(ClientRunTest, CompletionStoresTheFinalObservationLast) {
  ASSERT_TRUE(client_->Json("POST", "/api/v1/experiments", ClientExperiment("final")).ok());
  std::string trial = Suggest("final", 1)[0]["name"];
  std::string path = TrialPath("final", trial);
  json batch = {{"observations",
                 {{{"step", 1}, {"metrics", {{"loss", 3.0}}}},
                  {{"step", 2}, {"metrics", {{"loss", 2.0}, {"acc", 0.5}}}}}}};
  auto stored = client_->Json("POST", path + "/observations", batch);
  ASSERT_TRUE(stored.ok()) << stored.status().ToString();
  EXPECT_EQ((*stored)["stored"], 2);
  ASSERT_TRUE(client_->Json("POST", path + ":complete", {{"metrics", {{"loss", 1.5}}}}).ok());
  auto obs = client_->Json("GET", path + "/observations");
  ASSERT_TRUE(obs.ok());
  ASSERT_EQ((*obs)["observations"].size(), 3u);
  EXPECT_EQ((*obs)["observations"][2]["step"], 3);
  EXPECT_EQ((*obs)["observations"][2]["metrics"]["loss"], 1.5);
  auto t = client_->Json("GET", path);
  ASSERT_TRUE(t.ok());
  for (const auto& m : (*t)["metrics"]) {
    if (m["name"] == "loss") {
      EXPECT_EQ(m["latest"], 1.5);
      EXPECT_EQ(m["min"], 1.5);
      EXPECT_EQ(m["max"], 3.0);
    }
  }
  // A finished trial takes no more results.
  auto late = client_->Json("POST", path + "/observations", {{"metrics", {{"loss", 0}}}});
  EXPECT_EQ(late.status().code(), StatusCode::kFailedPrecondition);
  auto twice = client_->Json("POST", path + ":complete", {{"metrics", {{"loss", 0}}}});
  EXPECT_EQ(twice.status().code(), StatusCode::kFailedPrecondition);
}

TEST_F(ClientRunTest, BatchCompleteTellsManyAtOnce) {
  ASSERT_TRUE(client_->Json("POST", "/api/v1/experiments", ClientExperiment("batch", 6)).ok());
  json trials = Suggest("batch", 4);
  ASSERT_EQ(trials.size(), 4u);
  const std::string path = "/api/v1/experiments/batch/trials:batchComplete";
  json body = {{"trials",
                {{{"name", trials[0]["name"]}, {"metrics", {{"loss", 0.5}}}},
                 {{"name", trials[1]["name"]}, {"metrics", {{"loss", 0.25}}}},
                 {{"name", trials[2]["name"]}, {"infeasible", true}, {"reason", "diverged"}}}}};
  auto done = client_->Json("POST", path, body);
  ASSERT_TRUE(done.ok()) << done.status().ToString();
  ASSERT_EQ((*done)["trials"].size(), 3u);
  EXPECT_EQ((*done)["trials"][0]["phase"], "Succeeded");
  EXPECT_EQ((*done)["trials"][1]["objectiveValue"], 0.25);
  EXPECT_EQ((*done)["trials"][2]["phase"], "Failed");
  EXPECT_EQ((*done)["trials"][2]["reason"], "Infeasible");
  auto stored = client_->Json("GET", TrialPath("batch", trials[1]["name"]));
  ASSERT_TRUE(stored.ok());
  EXPECT_EQ((*stored)["phase"], "Succeeded");

  // A bad entry is named by its index and changes nothing.
  const std::string last = trials[3]["name"];
  auto call = [&](const json& b) { return client_->Call("POST", path, b.dump()); };
  auto twice = call({{"trials", {{{"name", last}, {"metrics", {{"loss", 1}}}},
                                 {{"name", last}, {"metrics", {{"loss", 2}}}}}}});
  ASSERT_TRUE(twice.ok());
  EXPECT_EQ(twice->status, 400);
  EXPECT_NE(twice->body.find("trials[1].name: trial '" + last + "' is listed twice"),
            std::string::npos)
      << twice->body;
  auto finished = call({{"trials", {{{"name", last}, {"metrics", {{"loss", 1}}}},
                                    {{"name", trials[0]["name"]}, {"metrics", {{"loss", 1}}}}}}});
  EXPECT_EQ(finished->status, 409) << finished->body;
  EXPECT_NE(finished->body.find("trials[1]: trial"), std::string::npos) << finished->body;
  auto typed = call({{"trials", {{{"name", last}, {"metrics", {{"loss", "low"}}}}}}});
  EXPECT_EQ(typed->status, 400);
  EXPECT_NE(typed->body.find("trials[0].metrics.loss"), std::string::npos) << typed->body;
  EXPECT_EQ(call({{"trials", json::array()}})->status, 400);
  EXPECT_EQ(call({{"trials", {{{"name", "nope"}}}}})->status, 404);
  auto untouched = client_->Json("GET", TrialPath("batch", last));
  ASSERT_TRUE(untouched.ok());
  EXPECT_EQ((*untouched)["phase"], "Running") << untouched->dump();
}

// #14, problem 1: completing with a misspelt objective is refused, saying
// which metric was wanted and which were given; the trial runs on.
TEST_F(ClientRunTest, CompleteWithoutTheObjectiveIsA400NamingBoth) {
  ASSERT_TRUE(client_->Json("POST", "/api/v1/experiments", ClientExperiment("wrong", 5)).ok());
  json trials = Suggest("wrong", 1);
  ASSERT_EQ(trials.size(), 1u);
  const std::string trial = trials[0]["name"];
  auto r = client_->Call("POST", TrialPath("wrong", trial) + ":complete",
                         json({{"metrics", {{"acc", 0.9}}}}).dump());
  ASSERT_TRUE(r.ok());
  EXPECT_EQ(r->status, 400);
  EXPECT_NE(r->body.find("the objective metric 'loss' was not reported (given: acc; reported "
                         "before: none)"),
            std::string::npos)
      << r->body;
  auto t = client_->Json("GET", TrialPath("wrong", trial));
  ASSERT_TRUE(t.ok());
  EXPECT_EQ((*t)["phase"], "Running");
  // Infeasible on purpose is still fine without metrics.
  auto done = client_->Json("POST", TrialPath("wrong", trial) + ":complete",
                            {{"infeasible", true}, {"reason", "diverged"}});
  ASSERT_TRUE(done.ok()) << done.status().ToString();
  EXPECT_EQ((*done)["phase"], "Failed");
}

TEST_F(ClientRunTest, InfeasibleTrialsFail) {
  ASSERT_TRUE(client_->Json("POST", "/api/v1/experiments", ClientExperiment("infeasible")).ok());
  std::string trial = Suggest("infeasible", 1)[0]["name"];
  auto r = client_->Json("POST", TrialPath("infeasible", trial) + ":complete",
                         {{"infeasible", true}, {"reason", "out of memory"}});
  ASSERT_TRUE(r.ok());
  EXPECT_EQ((*r)["phase"], "Failed");
  EXPECT_EQ((*r)["reason"], "Infeasible");
  EXPECT_EQ((*r)["message"], "out of memory");
}

TEST_F(ClientRunTest, ConcurrentSuggestionsAreDistinct) {
  ASSERT_TRUE(client_->Json("POST", "/api/v1/experiments", ClientExperiment("parallel", 20)).ok());
  std::vector<json> results(4);
  std::vector<std::thread> threads;
  for (int i = 0; i < 4; ++i) {
    threads.emplace_back([&, i] {
      auto c = server_.Client();
      auto r = c->Json("POST", "/api/v1/experiments/parallel/trials:suggest", {{"count", 1}});
      if (r.ok()) results[i] = (*r)["trials"][0];
    });
  }
  for (auto& t : threads) t.join();
  std::set<std::string> names, points;
  for (const auto& r : results) {
    ASSERT_FALSE(r.is_null());
    names.insert(r["name"].get<std::string>());
    points.insert(r["parameterAssignments"].dump());
  }
  EXPECT_EQ(names.size(), 4u);
  EXPECT_EQ(points.size(), 4u);
}

TEST_F(ClientRunTest, SuggestIsOnlyForClientRunExperiments) {
  ASSERT_TRUE(client_->Json("POST", "/api/v1/experiments",
                            ShellExperiment("runner", "sleep 5; echo loss=1", 1, 1))
                  .ok());
  auto r = client_->Json("POST", "/api/v1/experiments/runner/trials:suggest", {{"count", 1}});
  EXPECT_EQ(r.status().code(), StatusCode::kFailedPrecondition);
  EXPECT_NE(r.status().message().find("trialTemplate"), std::string::npos);
  ASSERT_TRUE(client_->Json("POST", "/api/v1/experiments/runner:stop").ok());
}

TEST_F(ClientRunTest, ListsExperimentsAndAlgorithms) {
  ASSERT_TRUE(client_->Json("POST", "/api/v1/experiments", ClientExperiment("listed")).ok());
  auto list = client_->Json("GET", "/api/v1/experiments");
  ASSERT_TRUE(list.ok());
  ASSERT_EQ((*list)["experiments"].size(), 1u);
  EXPECT_EQ((*list)["experiments"][0]["name"], "listed");
  auto algorithms = client_->Json("GET", "/api/v1/algorithms");
  ASSERT_TRUE(algorithms.ok());
  EXPECT_EQ((*algorithms)["algorithms"],
            json({"bayesianoptimization", "cmaes", "darts", "grid", "hyperband",
                  "multivariate-tpe", "nsga2", "pbt", "random", "sobol", "tpe"}));
  auto health = client_->Json("GET", "/healthz");
  ASSERT_TRUE(health.ok());
  EXPECT_EQ((*health)["status"], "ok");
  auto metrics = client_->Call("GET", "/metrics");
  ASSERT_TRUE(metrics.ok());
  EXPECT_NE(metrics->body.find("hpt_experiments{phase=\"Created\"} 1"), std::string::npos);
}

TEST_F(ClientRunTest, AcceptsYamlBodies) {
  std::string yaml = R"(
name: from-yaml
objective: {type: maximize, objectiveMetricName: acc}
algorithm: {algorithmName: random}
maxTrialCount: 3
parallelTrialCount: 1
parameters:
  - {name: lr, parameterType: double, feasibleSpace: {min: "1e-5", max: "1e-1", distribution: logUniform}}
  - {name: batch, parameterType: discrete, feasibleSpace: {list: ["16", "32"]}}
)";
  auto r = client_->Call("POST", "/api/v1/experiments", yaml, "application/yaml");
  ASSERT_TRUE(r.ok());
  EXPECT_EQ(r->status, 201) << r->body;
  json trial = Suggest("from-yaml", 1)[0];
  double lr = std::stod(trial["parameterAssignments"][0]["value"].get<std::string>());
  EXPECT_GE(lr, 1e-5);
  EXPECT_LE(lr, 1e-1);
}

}  // namespace
}  // namespace hpt::testing
