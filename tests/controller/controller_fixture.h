#pragma once
// ControllerTest: a Controller over a temporary SQLite file (behind a
// FlakyStore), the real built-in registries and a FakeExecutor, with the
// specs and the polling waits the controller tests share.
//
// Time is a FakeClock's (clock_): leases, recovery retries and the sweep's
// deadlines move only when a test advances it and calls
// controller_->Sweep(). What the controller does on its own threads (its
// work pool, the executor's callbacks) is waited for with a condition and
// a bounded timeout.

#include <gtest/gtest.h>

#include <algorithm>
#include <chrono>
#include <functional>
#include <memory>
#include <nlohmann/json.hpp>
#include <string>
#include <thread>
#include <vector>

#include "api/spec_codec.h"
#include "controller/builtins.h"
#include "controller/controller.h"
#include "storage/store.h"
#include "tests/controller/fake_executor.h"
#include "tests/controller/flaky_store.h"
#include "tests/testing/fake_clock.h"
#include "tests/testing/temp_dir.h"

namespace hpt::controller::testing {

// Polls `condition` until it holds or `timeout` passes; true if it held.
inline bool WaitFor(
    const std::function<bool()>& condition,
    std::chrono::milliseconds timeout = std::chrono::seconds(10)) {
  auto deadline = std::chrono::steady_clock::now() + timeout;
  while (!condition()) {
    if (std::chrono::steady_clock::now() > deadline) return false;
    std::this_thread::sleep_for(std::chrono::milliseconds(2));
  }
  return true;
}

// True if `condition` holds at every poll for `period` (for what must not
// happen, e.g. a trial that must keep waiting).
inline bool HoldsFor(const std::function<bool()>& condition,
                     std::chrono::milliseconds period) {
  auto deadline = std::chrono::steady_clock::now() + period;
  while (std::chrono::steady_clock::now() < deadline) {
    if (!condition()) return false;
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
  }
  return condition();
}

// A runner-run experiment over x in [0, 1] whose trials run
// `train --x=<x>`, minimising "loss".
// maxFailedTrialCount defaults to min(3, max_trials).
inline nlohmann::json RunnerSpec(const std::string& name, int max_trials,
                                 int parallel, int max_failed = -1) {
  if (max_failed < 0) max_failed = std::min(3, max_trials);
  return {
      {"name", name},
      {"objective", {{"type", "minimize"}, {"objectiveMetricName", "loss"}}},
      {"algorithm",
       {{"algorithmName", "random"},
        {"algorithmSettings", {{{"name", "random_state"}, {"value", "3"}}}}}},
      {"parallelTrialCount", parallel},
      {"maxTrialCount", max_trials},
      {"maxFailedTrialCount", max_failed},
      {"parameters",
       {{{"name", "x"},
         {"parameterType", "double"},
         {"feasibleSpace", {{"min", "0"}, {"max", "1"}}}}}},
      {"trialTemplate",
       {{"command", {"train", "--x=${trialParameters.x}"}},
        {"trialParameters", {{{"name", "x"}, {"reference", "x"}}}},
        {"workingDir", "/tmp"}}}};
}

// A client-run (ask/tell) experiment over x in [-5, 10], minimising "loss".
inline nlohmann::json ClientSpec(const std::string& name, int max_trials) {
  return {
      {"name", name},
      {"objective", {{"type", "minimize"}, {"objectiveMetricName", "loss"}}},
      {"algorithm", {{"algorithmName", "random"}}},
      // Every trial may run at once: these tests are about the budget
      // (:suggest honours parallelTrialCount; tests/server checks that).
      {"parallelTrialCount", max_trials},
      {"maxTrialCount", max_trials},
      {"parameters",
       {{{"name", "x"},
         {"parameterType", "double"},
         {"feasibleSpace", {{"min", -5}, {"max", 10}}}}}}};
}

// Medianstop as the server's early-stopping tests set it.
inline nlohmann::json MedianStop(int min_trials, int start_step) {
  return {{"algorithmName", "medianstop"},
          {"algorithmSettings",
           {{{"name", "min_trials_required"},
             {"value", std::to_string(min_trials)}},
            {{"name", "start_step"}, {"value", std::to_string(start_step)}}}}};
}

class ControllerTest : public ::testing::Test {
 protected:
  ControllerTest() : builtins_(NewBuiltins()) { OpenStore(); }
  ~ControllerTest() override { StopController(); }

  // Starts a controller (as a server would) over the store, with options_.
  void StartController() {
    ControllerOptions options = options_;
    options.log_dir = dir_.File("logs");
    options.server_url = "http://127.0.0.1:9";
    options.clock = &clock_;
    controller_ = std::make_unique<Controller>(&flaky_, &builtins_->algorithms,
                                               &builtins_->policies, options);
    executor_ = std::make_unique<FakeExecutor>(controller_.get(), gpus_);
    if (before_start_) before_start_(*executor_);
    Status s = controller_->Start(executor_.get());
    ASSERT_TRUE(s.ok()) << s.ToString();
  }
  void StopController() {
    if (controller_) controller_->Shutdown();
    controller_.reset();
    executor_.reset();
  }
  // A new server over the same file: what the old one's trials were doing
  // is lost with it (the fake executor goes too).
  void Restart() {
    StopController();
    OpenStore();
    StartController();
  }

  void Create(const nlohmann::json& spec) {
    auto parsed = api::SpecFromJson(spec);
    ASSERT_TRUE(parsed.ok()) << parsed.status().ToString();
    auto created = controller_->CreateExperiment(*parsed);
    ASSERT_TRUE(created.ok()) << created.status().ToString();
  }

  // The store's key of an experiment a test named (keys_: experiments it
  // made outside `default`); other names as they are.
  std::string Key(const std::string& experiment) const {
    auto it = keys_.find(experiment);
    return it == keys_.end() ? experiment : it->second;
  }

  // What the store holds (read past the FlakyStore, which never fails reads).
  api::Experiment Experiment(const std::string& name) {
    auto e = store_->GetExperiment(Key(name));
    EXPECT_TRUE(e.ok()) << e.status().ToString();
    return e.ok() ? *e : api::Experiment{};
  }
  std::vector<api::Trial> Trials(const std::string& experiment) {
    auto t = store_->ListTrials(Key(experiment));
    EXPECT_TRUE(t.ok()) << t.status().ToString();
    return t.ok() ? *t : std::vector<api::Trial>{};
  }
  api::Trial Trial(const std::string& experiment, const std::string& trial) {
    auto t = store_->GetTrial(Key(experiment), trial);
    EXPECT_TRUE(t.ok()) << t.status().ToString();
    return t.ok() ? *t : api::Trial{};
  }

  bool WaitForPhase(const std::string& experiment, api::ExperimentPhase phase) {
    return WaitFor(
        [&] { return store_->GetExperiment(Key(experiment))->phase == phase; });
  }
  bool WaitForTrialPhase(const std::string& experiment,
                         const std::string& trial, api::TrialPhase phase) {
    return WaitFor([&] {
      auto t = store_->GetTrial(Key(experiment), trial);
      return t.ok() && t->phase == phase;
    });
  }
  // Waits until `n` trials of the experiment run on the executor.
  bool WaitForRunning(const std::string& experiment, size_t n) {
    return WaitFor(
        [&] { return executor_->RunningTrials(Key(experiment)).size() == n; });
  }
  // Lets `by` pass on the clock, runs a sweep and waits for what it did.
  void Tick(std::chrono::milliseconds by) {
    clock_.Advance(by);
    controller_->Sweep();
    controller_->WaitIdle();
  }
  // Plays a trial that prints loss = `loss` at steps 1..`steps` and exits 0.
  void Succeed(const std::string& experiment, const std::string& trial,
               double loss, int steps = 1) {
    for (int step = 1; step <= steps; ++step) {
      executor_->Observe(Key(experiment), trial, step, {{"loss", loss}});
    }
    executor_->ExitCode(Key(experiment), trial, 0);
  }

  hpt::testing::TempDir dir_;
  hpt::testing::FakeClock clock_;
  // Run on each new executor before the controller starts with it (e.g. to
  // say which trials it re-attaches on recovery).
  std::function<void(FakeExecutor&)> before_start_;
  std::vector<int> gpus_;  // the executor's GPUs
  std::map<std::string, std::string> keys_;  // see Key()
  std::unique_ptr<Builtins> builtins_;
  std::unique_ptr<storage::Store> store_;
  FlakyStore flaky_{nullptr};
  ControllerOptions options_;
  std::unique_ptr<Controller> controller_;
  std::unique_ptr<FakeExecutor> executor_;

 private:
  void OpenStore() {
    flaky_.Reset(nullptr);
    store_.reset();
    auto store = storage::OpenSqliteStore(dir_.File("hpt.db"));
    ASSERT_TRUE(store.ok()) << store.status().ToString();
    store_ = std::move(store).value();
    flaky_.Reset(store_.get());
  }
};

}  // namespace hpt::controller::testing
