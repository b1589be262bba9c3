// Every Katib example experiment either validates or fails with a message
// that names the unsupported feature; docs/katib.md lists each one.
#include <filesystem>

#include <gtest/gtest.h>

#include "tests/testing/hpt_process.h"
#include "tests/testing/temp_dir.h"

namespace hpt::testing {
namespace {

namespace fs = std::filesystem;

// File (relative to the corpus) -> text the outcome must contain.
const std::map<std::string, std::string> kExpected = {
    {"argo/argo-workflow.yaml", "kind Workflow (argoproj.io/v1alpha1): only batch/v1 Job can run locally"},
    {"early-stopping/median-stop-with-json-format.yaml", "is valid"},
    {"early-stopping/median-stop.yaml", "is valid"},
    {"fpga/xgboost-example.yaml", "is valid"},
    {"hp-tuning/bayesian-optimization.yaml", "is valid"},
    {"hp-tuning/cma-es.yaml", "is valid"},
    {"hp-tuning/grid.yaml", "is valid"},
    {"hp-tuning/hyperband.yaml", "is valid"},
    {"hp-tuning/hyperopt-distribution.yaml", "is valid"},
    {"hp-tuning/multivariate-tpe.yaml", "is valid"},
    {"hp-tuning/optuna-distribution.yaml", "is valid"},
    {"hp-tuning/random.yaml", "is valid"},
    {"hp-tuning/simple-pbt.yaml", "is valid"},
    {"hp-tuning/sobol.yaml", "is valid"},
    {"hp-tuning/tpe.yaml", "is valid"},
    {"kubeflow-trainer/trainjob-pytorch.yaml", "kind TrainJob (trainer.kubeflow.org/v1alpha1): only batch/v1 Job can run locally"},
    {"kubeflow-training-operator/mpijob-horovod.yaml", "kind MPIJob (kubeflow.org/v1): only batch/v1 Job can run locally"},
    {"kubeflow-training-operator/pytorchjob-mnist.yaml", "kind PyTorchJob (kubeflow.org/v1): only batch/v1 Job can run locally"},
    {"kubeflow-training-operator/tfjob-mnist-with-summaries.yaml", "kind TFJob (kubeflow.org/v1): only batch/v1 Job can run locally"},
    {"kubeflow-training-operator/xgboostjob-lightgbm.yaml", "kind XGBoostJob (kubeflow.org/v1): only batch/v1 Job can run locally"},
    {"metrics-collector/custom-metrics-collector.yaml", "metricsCollectorSpec.collector.kind: 'Custom' is not supported"},
    {"metrics-collector/file-metrics-collector-with-json-format.yaml", "is valid"},
    {"metrics-collector/file-metrics-collector.yaml", "is valid"},
    {"metrics-collector/metrics-collection-strategy.yaml", "is valid"},
    {"nas/darts-cpu.yaml", "is valid"},
    {"nas/darts-gpu.yaml", "is valid"},
    {"nas/enas-cpu.yaml", "algorithm.algorithmName: nasConfig is searched by darts only, not 'enas'"},
    {"nas/enas-gpu.yaml", "algorithm.algorithmName: nasConfig is searched by darts only, not 'enas'"},
    {"resume-experiment/from-volume-resume.yaml", "is valid"},
    {"resume-experiment/long-running-resume.yaml", "is valid"},
    {"tekton/pipeline-run.yaml", "kind PipelineRun (tekton.dev/v1beta1): only batch/v1 Job can run locally"},
    {"trial-template/trial-configmap-source.yaml", "spec.trialTemplate.configMap: trial templates from a ConfigMap are not supported"},
    {"trial-template/trial-metadata-substitution.yaml", "is valid"},
};

TEST(KatibCorpusTest, EveryExampleValidatesOrNamesTheUnsupportedFeature) {
  const fs::path corpus = KATIB_EXAMPLES_DIR;
  ASSERT_TRUE(fs::is_directory(corpus)) << corpus;
  const std::string doc = ReadFile(std::string(HPT_SOURCE_DIR) + "/docs/katib.md");
  int files = 0;
  for (const auto& entry : fs::recursive_directory_iterator(corpus)) {
    if (entry.path().extension() != ".yaml") continue;
    ++files;
    std::string rel = fs::relative(entry.path(), corpus).string();
    auto expected = kExpected.find(rel);
    ASSERT_NE(expected, kExpected.end()) << "new corpus file without an expectation: " << rel;
    std::string out, err;
    int code = RunHpt({"validate", entry.path().string()}, &out, &err);
    bool valid = expected->second == "is valid";
#if !defined(HPT_HAVE_TORCH)
    if (valid && rel.rfind("nas/", 0) == 0) {
      // This build has no DARTS (scripts/sanitize.sh's TSan build): the
      // file is refused, and the message says why.
      EXPECT_EQ(code, 2) << rel;
      EXPECT_NE(err.find("built without libtorch"), std::string::npos) << rel << "\n" << err;
      continue;
    }
#endif
    EXPECT_EQ(code, valid ? 0 : 2) << rel << "\n" << out << err;
    EXPECT_NE((out + err).find(expected->second), std::string::npos)
        << rel << ": expected '" << expected->second << "' in:\n" << out << err;
    EXPECT_NE(doc.find("`" + rel + "`"), std::string::npos) << "docs/katib.md lacks " << rel;
    if (!valid) {
      // The error itself is one line; notes (if any) come before it.
      std::string last = err.substr(err.rfind("hpt: ", err.size() - 2));
      EXPECT_EQ(std::count(last.begin(), last.end(), '\n'), 1) << err;
    }
  }
  EXPECT_EQ(files, static_cast<int>(kExpected.size()));
}

// #33, finding 10: the examples validate, but their commands name scripts
// inside their container images (/opt/...). `hpt run` refuses them before
// the first trial, naming the file and the field, instead of failing every
// trial on it.
TEST(KatibCorpusTest, AScriptInsideTheImageIsRefusedBeforeAnyTrial) {
  TempDir dir;
  std::string out, err;
  int code = RunHpt({"run", "--db", dir.File("db/hpt.db"),
                     std::string(KATIB_EXAMPLES_DIR) + "/hp-tuning/random.yaml"},
                    &out, &err);
  EXPECT_EQ(code, 2) << out << err;
  std::string last = err.substr(err.rfind("hpt: ", err.size() - 2));
  EXPECT_NE(last.find("trialTemplate.command[1]: '/opt/pytorch-mnist/mnist.py' does not exist "
                      "on this machine"),
            std::string::npos)
      << err;
  EXPECT_EQ(std::count(last.begin(), last.end(), '\n'), 1) << err;
  EXPECT_EQ(out.find("Trial"), std::string::npos) << "no trial ran:\n" << out;
}

TEST(KatibCorpusTest, AKatibJobExperimentRunsLocally) {
  TempDir dir;
  WriteFile(dir.File("katib.yaml"), R"(
apiVersion: kubeflow.org/v1beta1
kind: Experiment
metadata:
  namespace: research
  name: katib-local
spec:
  objective: {type: maximize, objectiveMetricName: accuracy}
  algorithm: {algorithmName: random}
  parallelTrialCount: 2
  maxTrialCount: 2
  parameters:
    - name: lr
      parameterType: double
      feasibleSpace: {min: "0.01", max: "0.05"}
  trialTemplate:
    primaryContainerName: training-container
    trialParameters:
      - {name: learningRate, reference: lr}
      - {name: trialName, reference: "${trialSpec.Name}"}
      - {name: team, reference: "${trialSpec.Labels[team]}"}
      - {name: ns, reference: "${trialSpec.Namespace}"}
    trialSpec:
      apiVersion: batch/v1
      kind: Job
      metadata:
        labels: {team: vision}
      spec:
        template:
          spec:
            containers:
              - name: sidecar
                image: busybox
                command: [false]
              - name: training-container
                image: example/trainer:latest
                command: [sh, -c]
                args:
                  - 'test "$NAME" = "${trialParameters.trialName}" && test "$TEAM" = vision && test "${trialParameters.ns}" = research && echo accuracy=${trialParameters.learningRate}'
                env:
                  - {name: NAME, value: "${trialParameters.trialName}"}
                  - {name: TEAM, value: "${trialParameters.team}"}
            restartPolicy: Never
)");
  std::string out, err;
  int code = RunHpt({"run", "--db", dir.File("db/hpt.db"), dir.File("katib.yaml")}, &out, &err);
  EXPECT_EQ(code, 0) << out << err;
  EXPECT_NE(out.find("experiment 'katib-local' Succeeded"), std::string::npos) << out;
  EXPECT_NE(err.find("example/trainer:latest is not used"), std::string::npos) << err;
}

}  // namespace
}  // namespace hpt::testing
