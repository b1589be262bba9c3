// Katib's TensorFlowEvent metrics collector end to end: a Katib Experiment
// whose trials write TensorFlow event files (tests/testdata/tfevents/, a
// TensorFlow-free writer) into the folder Katib would mount, run by the
// real server three at a time. Each trial's objective comes from its own
// event files, and the best trial is the one the files say.
#include <gtest/gtest.h>

#include <cmath>
#include <filesystem>
#include <set>
#include <utility>

#include "tests/testing/hpt_process.h"
#include "tests/testing/temp_dir.h"

namespace hpt::testing {
namespace {

using nlohmann::json;
namespace fs = std::filesystem;

// Where Katib would mount the volume (never a real folder here): the
// server rewrites it to each trial's own folder.
constexpr char kMountedTfevents[] = "/hpt-test-absent/tfevent";

std::string KatibSpec() {
  return std::string(R"(apiVersion: kubeflow.org/v1beta1
kind: Experiment
metadata: {name: tfevent-e2e}
spec:
  objective:
    type: maximize
    objectiveMetricName: accuracy
    additionalMetricNames: [test/loss]
  algorithm: {algorithmName: grid}
  parallelTrialCount: 3
  maxTrialCount: 3
  parameters:
    - {name: lr, parameterType: double, feasibleSpace: {min: "0.01", max: "0.05", step: "0.02"}}
  metricsCollectorSpec:
    source: {fileSystemPath: {path: )") +
         kMountedTfevents + R"(/, kind: Directory}}
    collector: {kind: TensorFlowEvent}
  trialTemplate:
    primaryContainerName: training-container
    trialParameters: [{name: learningRate, reference: lr}]
    trialSpec:
      apiVersion: batch/v1
      kind: Job
      spec:
        template:
          spec:
            containers:
              - name: training-container
                image: docker.io/kubeflowkatib/tf-mnist-with-summaries:latest
                command: [/usr/bin/python3, )" +
         HPT_SOURCE_DIR + R"(/tests/testdata/tfevents/tfevents_trial.py,
                          "--lr=${trialParameters.learningRate}", "--log-dir=)" +
         kMountedTfevents + R"("]
            restartPolicy: Never
)";
}

double Latest(const json& trial, const std::string& name) {
  for (const json& m : trial["metrics"]) {
    if (m["name"] == name) return m["latest"].get<double>();
  }
  ADD_FAILURE() << trial["name"] << " lacks " << name << ": " << trial.dump();
  return NAN;
}

TEST(TfEventRunTest, EachTrialsObjectiveComesFromItsOwnEventFiles) {
  TempDir dir;
  WriteFile(dir.File("exp/katib.yaml"), KatibSpec());
  HptProcess server(dir.File("db/hpt.db"));
  std::string out, err;
  ASSERT_EQ(RunHpt({"run", "--server", server.url(), "--quiet", dir.File("exp/katib.yaml")},
                   &out, &err, 60),
            0)
      << out << err;
  auto client = server.Client();
  auto listed = client->Json("GET", "/api/v1/experiments/tfevent-e2e/trials");
  ASSERT_TRUE(listed.ok()) << listed.status().ToString();
  const json& trials = (*listed)["trials"];
  ASSERT_EQ(trials.size(), 3u);
  for (const json& t : trials) {
    EXPECT_EQ(t["phase"], "Succeeded") << t.dump();
    const double lr = std::stod(t["parameterAssignments"][0]["value"].get<std::string>());
    // As the trial computed it at its last step (3 of 3), stored as a
    // float32 (TF2's scalar tensor, TF1's simple_value).
    const double accuracy = (1 - 100 * std::pow(lr - 0.03, 2)) * 3 / 3;
    EXPECT_EQ(Latest(t, "accuracy"), static_cast<double>(static_cast<float>(accuracy)))
        << t.dump();
    EXPECT_EQ(Latest(t, "test/loss"), static_cast<double>(static_cast<float>(1 - accuracy)))
        << t.dump();
    // Steps 1, 2 and 3 of each metric, once each, none from another trial.
    auto observed = client->Json("GET", "/api/v1/experiments/tfevent-e2e/trials/" +
                                            t["name"].get<std::string>() + "/observations");
    ASSERT_TRUE(observed.ok()) << observed.status().ToString();
    std::multiset<std::pair<std::string, int64_t>> steps;
    for (const json& o : (*observed)["observations"]) {
      for (const auto& [name, value] : o["metrics"].items()) {
        steps.insert({name, o["step"].get<int64_t>()});
      }
    }
    EXPECT_EQ(steps, (std::multiset<std::pair<std::string, int64_t>>{
                         {"accuracy", 1}, {"accuracy", 2}, {"accuracy", 3},
                         {"test/loss", 1}, {"test/loss", 2}, {"test/loss", 3}}))
        << observed->dump();
    const std::string events = dir.File("db/logs/tfevent-e2e/tfevent/") +
                               t["name"].get<std::string>() + "/test";
    EXPECT_TRUE(fs::is_directory(events)) << events;
  }
  EXPECT_FALSE(fs::exists("/hpt-test-absent"));

  auto experiment = client->Json("GET", "/api/v1/experiments/tfevent-e2e");
  ASSERT_TRUE(experiment.ok()) << experiment.status().ToString();
  const json& best = (*experiment)["status"]["currentOptimalTrial"];
  ASSERT_TRUE(best.is_object()) << experiment->dump();
  EXPECT_NEAR(std::stod(best["parameterAssignments"][0]["value"].get<std::string>()), 0.03,
              1e-9);
  EXPECT_EQ(best["objectiveValue"], 1.0);
}

}  // namespace
}  // namespace hpt::testing
