// A tiny DARTS experiment end to end through `hpt run`: the native search
// runs as the trial, and its epochs, genotype and test accuracy are stored.
#include <algorithm>
#include <filesystem>

#include <gtest/gtest.h>

#include "api/types.h"
#include "nas/dataset.h"
#include "storage/store.h"
#include "tests/testing/hpt_process.h"
#include "tests/testing/temp_dir.h"

namespace hpt::testing {
namespace {

// No trialTemplate: hpt runs `hpt nas darts` with Katib's three trial
// parameters. Fashion-MNIST, cut to 512 training (search and evaluation)
// and 256 test images: the evaluation of all 60,000 took a minute.
const char* kDarts = R"(
name: darts-tiny
objective: {type: maximize, objectiveMetricName: Best-Genotype}
algorithm:
  algorithmName: darts
  algorithmSettings:
    - {name: num_epochs, value: "2"}
    - {name: init_channels, value: "4"}
    - {name: num_nodes, value: "2"}
    - {name: stem_multiplier, value: "1"}
    - {name: batch_size, value: "32"}
    - {name: train_limit, value: "512"}
    - {name: eval_train_limit, value: "512"}
    - {name: test_limit, value: "256"}
    - {name: eval_epochs, value: "1"}
    - {name: random_state, value: "3"}
maxTrialCount: 1
parallelTrialCount: 1
nasConfig:
  graphConfig: {numLayers: 2}
  operations:
    - operationType: separable_convolution
      parameters:
        - {name: filter_size, parameterType: categorical, feasibleSpace: {list: ["3"]}}
    - operationType: max_pooling
      parameters:
        - {name: filter_size, parameterType: categorical, feasibleSpace: {list: ["3"]}}
    - operationType: skip_connection
)";

const api::MetricSummary* Metric(const api::Trial& t, const std::string& name) {
  for (const auto& m : t.metrics) {
    if (m.name == name) return &m;
  }
  return nullptr;
}

// Why a DARTS search cannot run here ("" when it can).
std::string WhyNoSearch() {
#ifndef HPT_HAVE_TORCH
  return "built without libtorch: darts is unavailable";
#endif
  if (!std::filesystem::is_directory(nas::kFashionMnistDir)) {
    return std::string("no ") + nas::kFashionMnistDir + " (dataset-fashion-mnist)";
  }
  return "";
}

TEST(NasRunTest, TinyDartsExperimentStoresEpochsGenotypeAndTestAccuracy) {
  if (std::string why = WhyNoSearch(); !why.empty()) GTEST_SKIP() << why;
  TempDir dir;
  WriteFile(dir.File("darts.yaml"), kDarts);
  std::string out, err;
  const std::string db = dir.File("db/hpt.db");
  ASSERT_EQ(RunHpt({"run", "--db", db, dir.File("darts.yaml")}, &out, &err, 600), 0)
      << out << err;
  EXPECT_NE(out.find("Best-Genotype=Genotype(normal=[["), std::string::npos) << out;

  auto store = storage::OpenSqliteStore(db);
  ASSERT_TRUE(store.ok()) << store.status().ToString();
  auto trials = (*store)->ListTrials("darts-tiny");
  ASSERT_TRUE(trials.ok()) << trials.status().ToString();
  ASSERT_EQ(trials->size(), 1u);
  const api::Trial& t = (*trials)[0];
  EXPECT_EQ(t.phase, api::TrialPhase::kSucceeded) << t.reason << ": " << t.message;
  ASSERT_EQ(t.outputs.count("Best-Genotype"), 1u);
  EXPECT_EQ(t.outputs.at("Best-Genotype").rfind("Genotype(normal=", 0), 0u);
  const api::MetricSummary* val = Metric(t, "Validation-Accuracy");
  ASSERT_NE(val, nullptr);
  EXPECT_GE(val->latest, 0.0);
  EXPECT_LE(val->latest, 1.0);
  auto observations = (*store)->ListObservations("darts-tiny", t.name);
  ASSERT_TRUE(observations.ok());
  int epochs = 0;
  bool test_accuracy = false;
  for (const auto& o : *observations) {
    epochs += o.metrics.count("Validation-Accuracy");
    test_accuracy = test_accuracy || o.metrics.count("Test-Accuracy");
  }
  EXPECT_EQ(epochs, 2);  // one per search epoch
  EXPECT_TRUE(test_accuracy);  // the evaluation stage's
  const api::MetricSummary* test = Metric(t, "Test-Accuracy");
  ASSERT_NE(test, nullptr);
  EXPECT_GT(test->latest, 0.0);
}

// Katib's own darts-cpu example, unchanged: its DARTS image becomes hpt's
// native search with the same (quoted) arguments, on Fashion-MNIST.
TEST(NasRunTest, KatibsDartsCpuExampleRuns) {
  if (std::string why = WhyNoSearch(); !why.empty()) GTEST_SKIP() << why;
  TempDir dir;
  std::string out, err;
  ASSERT_EQ(RunHpt({"run", "--db", dir.File("hpt.db"),
                    std::string(KATIB_EXAMPLES_DIR) + "/nas/darts-cpu.yaml"},
                   &out, &err, 600),
            0)
      << out << err;
  EXPECT_NE(out.find("Best-Genotype=Genotype(normal=[[('max_pooling_3x3'"), std::string::npos)
      << out;
}

TEST(NasRunTest, BadArgumentsAreOneLineNamingTheFlag) {
  std::string out, err;
  EXPECT_EQ(RunHpt({"nas", "darts", "--search-space=['conv_3x3']", "--num-layers=2"}, &out, &err),
            2);
  EXPECT_NE(err.find("unknown operation 'conv_3x3'"), std::string::npos) << err;
  EXPECT_EQ(RunHpt({"nas", "darts", "--search-space=['max_pooling_3x3']", "--num-layers=\"0\""},
                   &out, &err),
            2);
  EXPECT_NE(err.find("--num-layers: must be a whole number from 1 to 64, got '\"0\"'"),
            std::string::npos)
      << err;
  EXPECT_EQ(RunHpt({"nas", "darts", "--search-space=['max_pooling_3x3']", "--num-layers=1",
                    "--set", "num_epochs=zero"},
                   &out, &err),
            2);
  EXPECT_NE(err.find("num_epochs must be an integer"), std::string::npos) << err;
  EXPECT_EQ(std::count(err.begin(), err.end(), '\n'), 1) << err;
  // An empty genotype ran the whole search instead.
  EXPECT_EQ(RunHpt({"nas", "darts", "--search-space=['max_pooling_3x3']", "--num-layers=1",
                    "--genotype", ""},
                   &out, &err),
            2);
  EXPECT_NE(err.find("--genotype: is empty"), std::string::npos) << err;
}

}  // namespace
}  // namespace hpt::testing
