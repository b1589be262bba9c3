// The fields the server computes for each trial so clients need not:
// objectiveValue (metricStrategies applied) and index (creation order).
#include <string>

#include <gtest/gtest.h>

#include "tests/server/specs.h"
#include "tests/testing/hpt_process.h"
#include "tests/testing/temp_dir.h"

namespace hpt::testing {
namespace {

using nlohmann::json;

class TrialFieldsTest : public ::testing::Test {
 protected:
  TrialFieldsTest() : server_(dir_.File("hpt.db")), client_(server_.Client()) {}

  // A client-run experiment whose objective loss uses `strategy` ("" for none).
  void Create(const std::string& name, const std::string& strategy, int max_trials = 3) {
    json spec = ClientExperiment(name, max_trials);
    spec["parallelTrialCount"] = max_trials;
    if (!strategy.empty()) {
      spec["objective"]["metricStrategies"] = {{{"name", "loss"}, {"value", strategy}}};
    }
    auto r = client_->Json("POST", "/api/v1/experiments", spec);
    ASSERT_TRUE(r.ok()) << r.status().ToString();
  }
  json Call(const std::string& method, const std::string& path, const json& body = nullptr) {
    auto r = client_->Json(method, "/api/v1/experiments/" + path, body);
    EXPECT_TRUE(r.ok()) << method << " " << path << ": " << r.status().ToString();
    return r.ok() ? *r : json();
  }
  // Suggests one trial and reports loss 3, 1, 2 at steps 1 to 3.
  json RunOne(const std::string& exp) {
    json trial = Call("POST", exp + "/trials:suggest", {{"count", 1}})["trials"][0];
    json batch = {{"observations", json::array()}};
    double losses[] = {3, 1, 2};
    for (int step = 1; step <= 3; ++step) {
      batch["observations"].push_back(
          {{"step", step}, {"metrics", {{"loss", losses[step - 1]}, {"acc", 0.5}}}});
    }
    Call("POST", exp + "/trials/" + trial["name"].get<std::string>() + "/observations", batch);
    return trial;
  }

  TempDir dir_;
  HptProcess server_;
  std::unique_ptr<hpt::client::ApiClient> client_;
};

TEST_F(TrialFieldsTest, ObjectiveValueFollowsMetricStrategies) {
  const std::pair<std::string, double> cases[] = {
      {"", 1.0}, {"latest", 2.0}, {"min", 1.0}, {"max", 3.0}};  // "": Katib's, min to minimize
  for (const auto& [strategy, expected] : cases) {
    SCOPED_TRACE("metricStrategies: " + strategy);
    std::string exp = "objective-" + (strategy.empty() ? std::string("default") : strategy);
    Create(exp, strategy);
    std::string name = RunOne(exp)["name"];
    EXPECT_EQ(Call("GET", exp + "/trials/" + name)["objectiveValue"], expected);
    EXPECT_EQ(Call("GET", exp + "/trials")["trials"][0]["objectiveValue"], expected);
    // Completing adds the final value as the last observation.
    json done = Call("POST", exp + "/trials/" + name + ":complete",
                     {{"metrics", {{"loss", 1.5}}}});
    const bool min = strategy == "min" || strategy.empty();
    EXPECT_EQ(done["objectiveValue"], min ? 1.0 : strategy == "max" ? 3.0 : 1.5);
    // The best trial ranks by the same value.
    EXPECT_EQ(Call("GET", exp)["status"]["currentOptimalTrial"]["objectiveValue"],
              done["objectiveValue"]);
  }
}

TEST_F(TrialFieldsTest, ObjectiveValueIsNullUntilTheObjectiveIsReported) {
  Create("no-objective-yet", "min");
  json trial = Call("POST", "no-objective-yet/trials:suggest", {{"count", 1}})["trials"][0];
  ASSERT_TRUE(trial.contains("objectiveValue"));
  EXPECT_TRUE(trial["objectiveValue"].is_null());
  std::string path = "no-objective-yet/trials/" + trial["name"].get<std::string>();
  Call("POST", path + "/observations", {{"step", 1}, {"metrics", {{"acc", 0.9}}}});
  json read = Call("GET", path);
  ASSERT_TRUE(read.contains("objectiveValue"));
  EXPECT_TRUE(read["objectiveValue"].is_null());
}

TEST_F(TrialFieldsTest, IndexFollowsCreationOrder) {
  Create("order", "", 12);
  std::vector<std::string> created;
  for (int count : {1, 4, 7}) {  // past 9, where name order and creation order part
    json suggested = Call("POST", "order/trials:suggest", {{"count", count}});
    for (const auto& t : suggested["trials"]) {
      created.push_back(t["name"]);
      EXPECT_EQ(t["index"], static_cast<int>(created.size())) << t["name"];
    }
  }
  ASSERT_EQ(created.size(), 12u);
  json listed = Call("GET", "order/trials")["trials"];
  ASSERT_EQ(listed.size(), 12u);
  for (size_t i = 0; i < listed.size(); ++i) {
    EXPECT_EQ(listed[i]["name"], created[i]);
    EXPECT_EQ(listed[i]["index"], static_cast<int>(i + 1));
    EXPECT_EQ(Call("GET", "order/trials/" + created[i])["index"], static_cast<int>(i + 1));
  }
}

}  // namespace
}  // namespace hpt::testing
