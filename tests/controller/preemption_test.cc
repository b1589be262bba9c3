// Preemption end to end with real child processes: the local executor on
// one fake GPU, a borrower's trial that saves a checkpoint every second
// step into $HPT_CHECKPOINT_DIR, and a namespace guaranteed that GPU. The
// guaranteed trial gets it within seconds (SIGTERM); the borrower's trial
// starts again under its name, resumes from its checkpoint, reports a
// step again, and ends Succeeded with every step stored once.
#include <gtest/gtest.h>

#include <chrono>
#include <memory>
#include <nlohmann/json.hpp>
#include <string>

#include "api/spec_codec.h"
#include "controller/builtins.h"
#include "controller/controller.h"
#include "storage/store.h"
#include "tests/controller/controller_fixture.h"
#include "tests/testing/resumable_trial.h"
#include "tests/testing/temp_dir.h"
#include "trial-runner/executor.h"

namespace hpt::controller::testing {
namespace {

using api::ExperimentPhase;
using api::TrialPhase;

nlohmann::json ShSpec(const std::string& name, const std::string& script) {
  return {{"name", name},
          {"objective", {{"type", "minimize"}, {"objectiveMetricName", "loss"}}},
          {"algorithm", {{"algorithmName", "random"}}},
          {"parallelTrialCount", 1},
          {"maxTrialCount", 1},
          {"maxFailedTrialCount", 0},
          {"parameters",
           {{{"name", "x"}, {"parameterType", "double"},
             {"feasibleSpace", {{"min", "0"}, {"max", "1"}}}}}},
          {"trialTemplate",
           {{"command", {"/bin/sh", "-c", script, "sh", "${trialParameters.x}"}},
            {"trialParameters", {{{"name", "x"}, {"reference", "x"}}}},
            {"workingDir", "/tmp"},
            {"resources", {{"gpu", 1}}}}}};
}

class PreemptionTest : public ::testing::Test {
 protected:
  PreemptionTest() : builtins_(NewBuiltins()) {
    auto store = storage::OpenSqliteStore(dir_.File("hpt.db"));
    EXPECT_TRUE(store.ok()) << store.status().ToString();
    store_ = std::move(store).value();
    ControllerOptions options;
    options.log_dir = dir_.File("logs");
    options.server_url = "http://127.0.0.1:9";
    options.capacity.gpu = 1;
    controller_ = std::make_unique<Controller>(store_.get(), &builtins_->algorithms,
                                               &builtins_->policies, options);
    runner::LocalExecutorOptions local;
    local.gpus = runner::DevicesFromIndices({0});
    executor_ = runner::NewLocalExecutor(controller_.get(), local);
    Status started = controller_->Start(executor_.get());
    EXPECT_TRUE(started.ok()) << started.ToString();
  }
  ~PreemptionTest() override {
    controller_->Shutdown();
    executor_.reset();
    controller_.reset();
  }

  void CreateIn(const std::string& ns, const nlohmann::json& json) {
    auto spec = api::SpecFromJson(json);
    ASSERT_TRUE(spec.ok()) << spec.status().ToString();
    spec->namespace_name = ns;
    api::Namespace made;
    made.name = ns;
    (void)store_->CreateNamespace(made);  // AlreadyExists for one set up before
    auto created = controller_->CreateExperiment(*spec);
    ASSERT_TRUE(created.ok()) << created.status().ToString();
  }
  api::Trial Trial(const std::string& experiment, const std::string& trial) {
    auto t = store_->GetTrial(experiment, trial);
    return t.ok() ? *t : api::Trial{};
  }
  bool WaitForTrial(const std::string& experiment, const std::string& trial,
                    const std::function<bool(const api::Trial&)>& condition) {
    return WaitFor([&] {
      auto t = store_->GetTrial(experiment, trial);
      return t.ok() && condition(*t);
    });
  }

  hpt::testing::TempDir dir_;
  std::unique_ptr<Builtins> builtins_;
  std::unique_ptr<storage::Store> store_;
  std::unique_ptr<Controller> controller_;
  std::unique_ptr<runner::Executor> executor_;
};

TEST_F(PreemptionTest, GuaranteedNamespaceGetsTheGpuBackAndThePreemptedTrialResumes) {
  api::Namespace urgent;
  urgent.name = "urgent";
  urgent.guaranteed.gpu = 1;
  ASSERT_TRUE(store_->CreateNamespace(urgent).ok());
  controller_->SetNamespace(urgent);
  CreateIn("lab", ShSpec("b", hpt::testing::ResumableTrialScript()));
  // The borrower has reported step 3 (and saved step 2).
  ASSERT_TRUE(WaitFor([&] {
    auto stored = store_->ListObservations("lab/b", "b-1");
    return stored.ok() && stored->size() == 3;
  }));

  const auto asked = std::chrono::steady_clock::now();
  CreateIn("urgent", ShSpec("u", "echo loss=0.5"));
  ASSERT_TRUE(WaitForTrial("urgent/u", "u-1", [](const api::Trial& t) {
    return t.phase != TrialPhase::kPending;
  }));
  const double seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - asked).count();
  EXPECT_LT(seconds, 5) << "the guaranteed GPU came back after " << seconds << " s";
  ASSERT_TRUE(WaitFor([&] { return store_->GetExperiment("urgent/u")->phase == ExperimentPhase::kSucceeded; }));

  // b-1 ran again under its name from its checkpoint and ended.
  ASSERT_TRUE(WaitFor([&] { return store_->GetExperiment("lab/b")->phase == ExperimentPhase::kSucceeded; },
                      std::chrono::seconds(20)));
  api::Trial b1 = Trial("lab/b", "b-1");
  EXPECT_EQ(b1.phase, TrialPhase::kSucceeded);
  EXPECT_EQ(b1.preemptions, 1);
  auto stored = store_->ListObservations("lab/b", "b-1");
  ASSERT_TRUE(stored.ok());
  std::vector<std::pair<int64_t, double>> steps;
  for (const auto& o : *stored) steps.push_back({o.step, o.metrics.at("loss")});
  // Steps 1-3 of the first run, 4-6 of the resumed one (its step 3 again
  // is not stored twice).
  EXPECT_EQ(steps, (std::vector<std::pair<int64_t, double>>{
                       {1, 0.1}, {2, 0.2}, {3, 0.3}, {4, 1.4}, {5, 1.5}, {6, 1.6}}));
  auto trials = store_->ListTrials("lab/b");
  ASSERT_TRUE(trials.ok());
  EXPECT_EQ(trials->size(), 1u);
}

}  // namespace
}  // namespace hpt::controller::testing
