// pbt end to end: examples/pbt/pbt_train.py run by the real server as
// child processes, three generations of five. Each trial's checkpoint
// folder (under the server's log folder) records every trial that trained
// it; a child must have started from a copy of its parent's folder, which
// its parent's own folder still shows as it was.
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <map>
#include <set>

#include "tests/testing/hpt_process.h"
#include "tests/testing/temp_dir.h"

namespace hpt::testing {
namespace {

using nlohmann::json;
namespace fs = std::filesystem;

// Katib's form of the path in the command (never a real folder here):
// the server rewrites it to each trial's own folder.
constexpr char kMounted[] = "/hpt-test-absent/checkpoints";

std::string PbtRunSpec() {
  return std::string(R"(
name: pbt-e2e
objective:
  type: maximize
  objectiveMetricName: Validation-accuracy
  additionalMetricNames: [resumed_step]
algorithm:
  algorithmName: pbt
  algorithmSettings:
    - {name: suggestion_trial_dir, value: )") +
         kMounted + R"(/}
    - {name: n_population, value: "5"}
    - {name: truncation_threshold, value: "0.4"}
    - {name: random_state, value: "3"}
parallelTrialCount: 5
maxTrialCount: 15
parameters:
  - {name: lr, parameterType: double, feasibleSpace: {min: "0.0001", max: "0.02", step: "0.0001"}}
trialTemplate:
  command: [python3, )" +
         HPT_SOURCE_DIR + R"(/examples/pbt/pbt_train.py, --epochs=3,
            "--lr=${trialParameters.lr}", "--checkpoint=)" +
         kMounted + R"(/"]
  trialParameters: [{name: lr, reference: lr}]
  workingDir: .
  timeoutSeconds: 60
)";
}

double PbtMetric(const json& trial, const std::string& name) {
  for (const json& m : trial["metrics"]) {
    if (m["name"] == name) return m["latest"].get<double>();
  }
  ADD_FAILURE() << trial["name"] << " lacks " << name;
  return -1;
}

TEST(PbtRunTest, ChildrenResumeTheirParentsCheckpointsAndTheBestAreExploited) {
  TempDir dir;
  WriteFile(dir.File("exp/pbt.yaml"), PbtRunSpec());
  HptProcess server(dir.File("db/hpt.db"));
  std::string out, err;
  ASSERT_EQ(RunHpt({"run", "--server", server.url(), "--quiet",
                    dir.File("exp/pbt.yaml")},
                   &out, &err, 90),
            0)
      << out << err;
  auto client = server.Client();
  auto listed = client->Json("GET", "/api/v1/experiments/pbt-e2e/trials");
  ASSERT_TRUE(listed.ok()) << listed.status().ToString();
  const json& trials = (*listed)["trials"];
  ASSERT_EQ(trials.size(), 15u);

  const std::string root = dir.File("db/logs/pbt-e2e/checkpoints");
  std::map<std::string, json> checkpoint;  // by trial
  std::map<std::string, double> accuracy;
  for (const json& t : trials) {
    const std::string name = t["name"].get<std::string>();
    EXPECT_EQ(t["phase"], "Succeeded") << t.dump();
    const std::string text = ReadFile(root + "/" + name + "/training.json");
    ASSERT_FALSE(text.empty()) << "no checkpoint for " << name;
    checkpoint[name] = json::parse(text);
    accuracy[name] = PbtMetric(t, "Validation-accuracy");
  }
  EXPECT_FALSE(fs::exists("/hpt-test-absent"));

  std::vector<std::string> generation1_parents;
  for (const json& t : trials) {
    const std::string name = t["name"].get<std::string>();
    const json& mine = checkpoint[name];
    const auto lineage = mine["lineage"].get<std::vector<std::string>>();
    ASSERT_FALSE(lineage.empty());
    EXPECT_EQ(lineage.back(), name) << "each trial saves into its own folder";
    const int64_t index = t["index"].get<int64_t>();
    const size_t generation = static_cast<size_t>((index - 1) / 5);
    ASSERT_EQ(lineage.size(), generation + 1) << name << ": " << mine.dump();
    EXPECT_EQ(mine["step"], 3 * lineage.size());
    if (generation == 0) {
      EXPECT_EQ(PbtMetric(t, "resumed_step"), 0) << name;
      continue;
    }
    // It started from a copy of its parent's folder, which is unchanged.
    const std::string parent = lineage[lineage.size() - 2];
    const json& theirs = checkpoint[parent];
    EXPECT_EQ(theirs["lineage"], json(std::vector<std::string>(
                                     lineage.begin(), lineage.end() - 1)));
    EXPECT_EQ(PbtMetric(t, "resumed_step"), theirs["step"].get<double>())
        << name;
    if (generation == 1) generation1_parents.push_back(parent);
  }

  // truncation_threshold 0.4 of 5: the worst two of generation 0 resume
  // one of its best two, and the best three their own: three parents, those
  // of two children or more among the best two.
  std::vector<std::pair<double, std::string>> ranked;
  for (const json& t : trials) {
    if (t["index"].get<int64_t>() <= 5)
      ranked.push_back({-accuracy[t["name"].get<std::string>()],
                        t["name"].get<std::string>()});
  }
  std::sort(ranked.begin(), ranked.end());
  const std::set<std::string> best = {ranked[0].second, ranked[1].second};
  std::map<std::string, int> children;
  for (const std::string& p : generation1_parents) ++children[p];
  EXPECT_EQ(children.size(), 3u);
  for (const auto& [parent, n] : children) {
    if (n > 1)
      EXPECT_TRUE(best.count(parent)) << parent << " is not among the best two";
  }

  // The folders go with the experiment.
  ASSERT_EQ(RunHpt({"delete", "--server", server.url(), "pbt-e2e"}, &out, &err),
            0)
      << err;
  EXPECT_FALSE(fs::exists(root));
}

}  // namespace
}  // namespace hpt::testing
