// bayesianoptimization through the real server: a client-run (ask/tell)
// Branin experiment, and parallel workers asking at once.
#include <gtest/gtest.h>

#include <cmath>
#include <set>
#include <thread>

#include "tests/testing/hpt_process.h"
#include "tests/testing/temp_dir.h"

namespace hpt::testing {
namespace {

using nlohmann::json;

double Branin(double x, double y) {
  const double b = 5.1 / (4 * M_PI * M_PI), c = 5 / M_PI, t = 1 / (8 * M_PI);
  return std::pow(y - b * x * x + c * x - 6, 2) + 10 * (1 - t) * std::cos(x) +
         10;
}

json BraninExperiment(const std::string& name, int max_trials, int parallel) {
  return {
      {"name", name},
      {"objective", {{"type", "minimize"}, {"objectiveMetricName", "loss"}}},
      {"algorithm",
       {{"algorithmName", "bayesianoptimization"},
        {"algorithmSettings", {{{"name", "random_state"}, {"value", "1"}}}}}},
      {"parallelTrialCount", parallel},
      {"maxTrialCount", max_trials},
      {"parameters",
       {{{"name", "x"},
         {"parameterType", "double"},
         {"feasibleSpace", {{"min", "-5"}, {"max", "10"}}}},
        {{"name", "y"},
         {"parameterType", "double"},
         {"feasibleSpace", {{"min", "0"}, {"max", "15"}}}}}}};
}

double Param(const json& trial, const std::string& name) {
  for (const auto& p : trial["parameterAssignments"]) {
    if (p["name"] == name) return std::stod(p["value"].get<std::string>());
  }
  ADD_FAILURE() << "no " << name << " in " << trial.dump();
  return 0;
}

class BayesOptTest : public ::testing::Test {
 protected:
  BayesOptTest() : server_(dir_.File("hpt.db")), client_(server_.Client()) {}

  TempDir dir_;
  HptProcess server_;
  std::unique_ptr<hpt::client::ApiClient> client_;
};

TEST_F(BayesOptTest, ClientRunBraninReachesTheOptimum) {
  auto created = client_->Json("POST", "/api/v1/experiments",
                               BraninExperiment("branin", 30, 1));
  ASSERT_TRUE(created.ok()) << created.status().ToString();
  double best = HUGE_VAL;
  int trials = 0;
  while (true) {
    auto r = client_->Json("POST", "/api/v1/experiments/branin/trials:suggest",
                           {{"count", 1}});
    ASSERT_TRUE(r.ok()) << r.status().ToString();
    if ((*r)["trials"].empty()) break;
    const json& t = (*r)["trials"][0];
    double loss = Branin(Param(t, "x"), Param(t, "y"));
    best = std::min(best, loss);
    std::string path =
        "/api/v1/experiments/branin/trials/" + t["name"].get<std::string>();
    auto done = client_->Json("POST", path + ":complete",
                              {{"metrics", {{"loss", loss}}}});
    ASSERT_TRUE(done.ok()) << done.status().ToString();
    ++trials;
  }
  EXPECT_EQ(trials, 30);
  // The minimum is 0.397887; random search gets below 0.5 in 30 trials
  // only rarely.
  EXPECT_LT(best, 0.5);
  auto exp = client_->Json("GET", "/api/v1/experiments/branin");
  ASSERT_TRUE(exp.ok());
  EXPECT_EQ((*exp)["status"]["phase"], "Succeeded");
}

TEST_F(BayesOptTest, ConcurrentSuggestionsAreDistinct) {
  ASSERT_TRUE(client_
                  ->Json("POST", "/api/v1/experiments",
                         BraninExperiment("parallel", 40, 4))
                  .ok());
  // Past the initial design, so that the GP (not Sobol) proposes.
  for (int i = 0; i < 8; ++i) {
    auto r = client_->Json(
        "POST", "/api/v1/experiments/parallel/trials:suggest", {{"count", 1}});
    ASSERT_TRUE(r.ok()) << r.status().ToString();
    const json& t = (*r)["trials"][0];
    std::string path =
        "/api/v1/experiments/parallel/trials/" + t["name"].get<std::string>();
    ASSERT_TRUE(client_
                    ->Json("POST", path + ":complete",
                           {{"metrics",
                             {{"loss", Branin(Param(t, "x"), Param(t, "y"))}}}})
                    .ok());
  }
  std::vector<json> results(4);
  std::vector<std::thread> threads;
  for (int i = 0; i < 4; ++i) {
    threads.emplace_back([&, i] {
      auto c = server_.Client();
      auto r = c->Json("POST", "/api/v1/experiments/parallel/trials:suggest",
                       {{"count", 1}});
      if (r.ok() && !(*r)["trials"].empty()) results[i] = (*r)["trials"][0];
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
  // Not merely different text: the pending points keep them apart.
  for (size_t i = 0; i < results.size(); ++i) {
    for (size_t j = 0; j < i; ++j) {
      double dx = (Param(results[i], "x") - Param(results[j], "x")) / 15;
      double dy = (Param(results[i], "y") - Param(results[j], "y")) / 15;
      EXPECT_GT(std::hypot(dx, dy), 1e-3)
          << results[i].dump() << results[j].dump();
    }
  }
}

}  // namespace
}  // namespace hpt::testing
