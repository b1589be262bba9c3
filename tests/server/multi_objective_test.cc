// A multi-objective experiment through a real server: the Pareto front in
// the status and at /pareto on a hand-made set of results.
#include <string>

#include <gtest/gtest.h>

#include "tests/server/specs.h"
#include "tests/testing/hpt_process.h"
#include "tests/testing/temp_dir.h"

namespace hpt::testing {
namespace {

using nlohmann::json;

json TwoObjectives(const std::string& name, int max_trials) {
  json spec = ClientExperiment(name, max_trials);
  spec["parallelTrialCount"] = max_trials;
  spec["objective"] = {{"objectives",
                        {{{"type", "minimize"}, {"objectiveMetricName", "loss"}},
                         {{"type", "maximize"}, {"objectiveMetricName", "acc"}}}}};
  return spec;
}

class MultiObjectiveTest : public ::testing::Test {
 protected:
  MultiObjectiveTest() : server_(dir_.File("hpt.db")), client_(server_.Client()) {}

  json Call(const std::string& method, const std::string& path, const json& body = nullptr) {
    auto r = client_->Json(method, "/api/v1/experiments" + path, body);
    EXPECT_TRUE(r.ok()) << method << " " << path << ": " << r.status().ToString();
    return r.ok() ? *r : json();
  }

  TempDir dir_;
  HptProcess server_;
  std::unique_ptr<hpt::client::ApiClient> client_;
};

TEST_F(MultiObjectiveTest, ParetoFrontOfAHandMadeSet) {
  Call("POST", "", TwoObjectives("mo", 5));
  json exp = Call("GET", "/mo");
  EXPECT_EQ(exp["spec"]["objective"]["objectiveMetricName"], "loss");
  EXPECT_EQ(exp["spec"]["objective"]["objectives"].size(), 2u);
  json trials = Call("POST", "/mo/trials:suggest", {{"count", 5}})["trials"];
  ASSERT_EQ(trials.size(), 5u);
  // (loss, acc): a and b and e are on the front; c is dominated by a, d by b.
  const double results[5][2] = {{0.2, 0.90}, {0.5, 0.95}, {0.3, 0.85}, {0.6, 0.94}, {0.1, 0.7}};
  for (int i = 0; i < 5; ++i) {
    Call("POST", "/mo/trials/" + trials[i]["name"].get<std::string>() + ":complete",
         {{"metrics", {{"loss", results[i][0]}, {"acc", results[i][1]}}}});
  }
  std::vector<std::string> expected = {trials[0]["name"], trials[1]["name"], trials[4]["name"]};
  json front = Call("GET", "/mo")["status"]["paretoFront"];
  ASSERT_EQ(front.size(), 3u) << front.dump();
  for (size_t i = 0; i < 3; ++i) EXPECT_EQ(front[i]["name"], expected[i]);
  EXPECT_EQ(front[1]["objectiveValues"], (json{0.5, 0.95}));

  json pareto = Call("GET", "/mo/pareto?reference=1,0");
  ASSERT_EQ(pareto["front"].size(), 3u);
  EXPECT_EQ(pareto["objectives"][1]["type"], "maximize");
  // Staircase against (1, 0), minimising loss and maximising acc:
  // e (0.1, 0.7), a (0.2, 0.9), b (0.5, 0.95).
  const double hv = 0.9 * 0.7 + 0.8 * 0.2 + 0.5 * 0.05;
  EXPECT_NEAR(pareto["hypervolume"].get<double>(), hv, 1e-12);
  ASSERT_EQ(pareto["hypervolumeCurve"].size(), 5u);
  EXPECT_NEAR(pareto["hypervolumeCurve"][0]["hypervolume"].get<double>(), 0.8 * 0.9, 1e-12);

  // A trial must report every objective to succeed.
  Call("PATCH", "/mo", {{"maxTrialCount", 6}});
  json more = Call("POST", "/mo/trials:suggest", {{"count", 1}})["trials"];
  ASSERT_EQ(more.size(), 1u);
  auto r = client_->Json("POST", "/api/v1/experiments/mo/trials/" +
                                     more[0]["name"].get<std::string>() + ":complete",
                         {{"metrics", {{"loss", 0.01}}}});
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.status().message().find("'acc' was not reported"), std::string::npos)
      << r.status().message();
}

TEST_F(MultiObjectiveTest, BadObjectivesAreNamed) {
  json spec = TwoObjectives("mo-bad", 3);
  spec["objective"]["objectives"][1]["objectiveMetricName"] = "loss";
  auto r = client_->Json("POST", "/api/v1/experiments", spec);
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.status().message().find("objective.objectives[1].objectiveMetricName"),
            std::string::npos)
      << r.status().message();
  spec = TwoObjectives("mo-bad", 3);
  spec["objective"]["goal"] = 0.1;
  r = client_->Json("POST", "/api/v1/experiments", spec);
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.status().message().find("objective.goal"), std::string::npos);
  auto pareto = client_->Call("GET", "/api/v1/experiments/none/pareto");
  ASSERT_TRUE(pareto.ok());
  EXPECT_EQ(pareto->status, 404);
  Call("POST", "", TwoObjectives("mo-ref", 3));
  auto bad_ref = client_->Call("GET", "/api/v1/experiments/mo-ref/pareto?reference=1");
  ASSERT_TRUE(bad_ref.ok());
  EXPECT_EQ(bad_ref->status, 400);
  EXPECT_NE(bad_ref->body.find("reference"), std::string::npos);
  // A trailing comma is an empty item, and hex is not a decimal number.
  for (const char* query : {"reference=1,2,", "reference=0x10,1", "reference=1,,2"}) {
    auto r = client_->Call("GET", std::string("/api/v1/experiments/mo-ref/pareto?") + query);
    ASSERT_TRUE(r.ok());
    EXPECT_EQ(r->status, 400) << query << ": " << r->body;
  }
  auto good = client_->Call("GET", "/api/v1/experiments/mo-ref/pareto?reference=1,2");
  ASSERT_TRUE(good.ok());
  EXPECT_EQ(good->status, 200) << good->body;
}

}  // namespace
}  // namespace hpt::testing
