// Admission through the controller (controller/admission.h): quotas, fair
// share between namespaces and priority inside one decide which Pending
// trial starts on the executor's (fake) GPUs, a restart keeps the
// accounting, and a guaranteed namespace takes a GPU back by preemption.
// The trials are played by the FakeExecutor.
#include <gtest/gtest.h>

#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <string>

#include "tests/controller/controller_fixture.h"

namespace hpt::controller::testing {
namespace {

using api::ExperimentPhase;
using api::TrialPhase;

class RunnerAdmissionTest : public ControllerTest {
 protected:
  // A controller whose executor and broker share `gpus` fake GPUs.
  void StartWithGpus(int gpus) {
    for (int i = 0; i < gpus; ++i) gpus_.push_back(i);
    options_.capacity.gpu = gpus;
    StartController();
  }
  void SetNamespace(const std::string& name, double weight = 1) {
    api::Namespace ns;
    ns.name = name;
    ns.weight = weight;
    ASSERT_TRUE(store_->CreateNamespace(ns).ok());
    controller_->SetNamespace(ns);
  }
  // A runner-run experiment of one-GPU trials in namespace `ns`.
  void CreateIn(const std::string& ns, const std::string& name, int trials, int parallel,
                int priority = 0) {
    nlohmann::json json = RunnerSpec(name, trials, parallel);
    json["trialTemplate"]["resources"] = {{"gpu", 1}};
    auto spec = api::SpecFromJson(json);
    ASSERT_TRUE(spec.ok()) << spec.status().ToString();
    spec->namespace_name = ns;
    spec->priority = priority;
    if (!store_->GetNamespace(ns).ok()) SetNamespace(ns);
    keys_[name] = api::KeyOf(*spec);
    auto created = controller_->CreateExperiment(*spec);
    ASSERT_TRUE(created.ok()) << created.status().ToString();
  }
  int Started(const std::string& experiment) {
    return static_cast<int>(executor_->StartedTrials(Key(experiment)).size());
  }
  // The running trial of `experiments` that started first.
  std::pair<std::string, std::string> OldestRunning(const std::vector<std::string>& experiments) {
    for (const auto& s : executor_->started()) {
      if (std::none_of(experiments.begin(), experiments.end(),
                       [&](const std::string& e) { return Key(e) == s.experiment; })) {
        continue;
      }
      auto running = executor_->RunningTrials(s.experiment);
      if (std::find(running.begin(), running.end(), s.trial) != running.end()) {
        return {s.experiment, s.trial};
      }
    }
    return {};
  }
  bool WaitForReason(const std::string& experiment, const std::string& trial,
                     const std::string& reason) {
    return WaitFor([&] {
      auto t = store_->GetTrial(Key(experiment), trial);  // created by the runner, later
      return t.ok() && t->reason == reason;
    });
  }
  // Ends the oldest running trial of `experiments` until `starts` trials
  // of them have started, waiting for each start; `check` after each.
  void PlayUntil(const std::vector<std::string>& experiments, int starts,
                 const std::function<void()>& check) {
    auto total = [&] {
      int n = 0;
      for (const auto& e : experiments) n += Started(e);
      return n;
    };
    while (total() < starts) {
      const int before = total();
      auto [experiment, trial] = OldestRunning(experiments);
      ASSERT_FALSE(trial.empty());
      Succeed(experiment, trial, 0.5);
      ASSERT_TRUE(WaitFor([&] { return total() == before + 1; })) << "after " << trial;
      check();
    }
  }
};

TEST_F(RunnerAdmissionTest, QuotaHoldsTheTrialPendingAndSaysWhichQuotaAndItsUse) {
  StartWithGpus(4);
  api::Namespace ns;
  ns.name = "team-a";
  ns.quota.gpu = 2;
  ASSERT_TRUE(store_->CreateNamespace(ns).ok());
  controller_->SetNamespace(ns);
  CreateIn("team-a", "e", 3, 3);
  ASSERT_TRUE(WaitForRunning("e", 2));
  ASSERT_TRUE(WaitForReason("e", "e-3", "QuotaExceeded"));
  EXPECT_EQ(Trial("e", "e-3").message,
            "namespace team-a: quota gpu 2 in use 2 (this trial asks 1)");
  EXPECT_EQ(Trial("e", "e-3").phase, TrialPhase::kPending);
  // Two GPUs stay free: the quota, not the machine, holds it.
  EXPECT_TRUE(HoldsFor([&] { return Started("e") == 2; }, std::chrono::milliseconds(700)));
  Succeed("e", "e-1", 0.2);
  ASSERT_TRUE(WaitForTrialPhase("e", "e-3", TrialPhase::kRunning));
  EXPECT_EQ(Trial("e", "e-3").reason, "");
}

TEST_F(RunnerAdmissionTest, EqualWeightNamespacesForTwoGpusGetStartsWithinOneOfEachOther) {
  StartWithGpus(2);
  CreateIn("c", "c", 2, 2);  // holds both GPUs while a and b ask
  ASSERT_TRUE(WaitForRunning("c", 2));
  CreateIn("a", "a", 6, 2);
  CreateIn("b", "b", 6, 2);
  ASSERT_TRUE(WaitForReason("a", "a-1", "WaitingForResources"));
  ASSERT_TRUE(WaitForReason("b", "b-1", "WaitingForResources"));
  auto within_one = [&] {
    EXPECT_LE(std::abs(Started("a") - Started("b")), 1)
        << "a " << Started("a") << ", b " << Started("b");
    EXPECT_LE(executor_->Running(), 2);
  };
  PlayUntil({"c", "a", "b"}, 2 + 12, within_one);
  EXPECT_EQ(Started("a"), 6);
  EXPECT_EQ(Started("b"), 6);
  for (const char* e : {"a", "b"}) {
    while (!executor_->RunningTrials(Key(e)).empty()) {
      Succeed(e, executor_->RunningTrials(Key(e))[0], 0.5);
    }
    ASSERT_TRUE(WaitForPhase(e, ExperimentPhase::kSucceeded)) << e;
  }
}

TEST_F(RunnerAdmissionTest, WeightsTwoToOneRunTwoTrialsToOne) {
  StartWithGpus(3);
  SetNamespace("a", 2);
  SetNamespace("b", 1);
  CreateIn("c", "c", 3, 3);
  ASSERT_TRUE(WaitForRunning("c", 3));
  CreateIn("a", "a", 20, 3);
  CreateIn("b", "b", 20, 3);
  ASSERT_TRUE(WaitForReason("b", "b-1", "WaitingForResources"));
  PlayUntil({"c", "a", "b"}, 3 + 3, [] {});
  auto two_to_one = [&] {
    EXPECT_EQ(executor_->RunningTrials(Key("a")).size(), 2u);
    EXPECT_EQ(executor_->RunningTrials(Key("b")).size(), 1u);
  };
  two_to_one();
  PlayUntil({"a", "b"}, 12, two_to_one);
  EXPECT_EQ(Started("a"), 8);
  EXPECT_EQ(Started("b"), 4);
}

TEST_F(RunnerAdmissionTest, HigherPriorityStartsFirstInsideANamespace) {
  StartWithGpus(1);
  CreateIn("t", "lo", 3, 2, /*priority=*/0);
  ASSERT_TRUE(WaitForRunning("lo", 1));
  ASSERT_TRUE(WaitForReason("lo", "lo-2", "WaitingForResources"));
  CreateIn("t", "hi", 1, 1, /*priority=*/5);
  ASSERT_TRUE(WaitForReason("hi", "hi-1", "WaitingForResources"));
  Succeed("lo", "lo-1", 0.3);
  ASSERT_TRUE(WaitForTrialPhase("hi", "hi-1", TrialPhase::kRunning));
  EXPECT_EQ(Trial("lo", "lo-2").phase, TrialPhase::kPending);
  EXPECT_EQ(Started("lo"), 1);
  Succeed("hi", "hi-1", 0.1);
  ASSERT_TRUE(WaitForTrialPhase("lo", "lo-2", TrialPhase::kRunning));
}

TEST_F(RunnerAdmissionTest, ARestartKeepsTheReattachedTrialsCounted) {
  StartWithGpus(2);
  api::Namespace ns;
  ns.name = api::kDefaultNamespace;
  ns.quota.gpu = 1;
  ASSERT_TRUE(store_->UpdateNamespace(ns).ok());
  controller_->SetNamespace(ns);
  CreateIn(api::kDefaultNamespace, "e", 2, 2);
  ASSERT_TRUE(WaitForRunning("e", 1));
  ASSERT_TRUE(WaitForReason("e", "e-2", "QuotaExceeded"));
  before_start_ = [&](FakeExecutor& e) {
    e.AttachOnRecover("e-1", "0");
    // The controller loads the namespaces (the quota) from the store at start.
  };
  Restart();
  // e-1 runs on, counted: e-2 stays over the quota.
  EXPECT_TRUE(HoldsFor(
      [&] { return Started("e") == 1 && Trial("e", "e-2").reason == "QuotaExceeded"; },
      std::chrono::milliseconds(700)));
  EXPECT_EQ(controller_->admission().Use(api::kDefaultNamespace).used.gpu, 1);
  Succeed("e", "e-1", 0.2);
  ASSERT_TRUE(WaitForTrialPhase("e", "e-2", TrialPhase::kRunning));
}

TEST_F(RunnerAdmissionTest, GuaranteedNamespaceTakesAGpuBackAndThePreemptedTrialResumes) {
  StartWithGpus(2);
  api::Namespace urgent;
  urgent.name = "urgent";
  urgent.guaranteed.gpu = 1;
  ASSERT_TRUE(store_->CreateNamespace(urgent).ok());
  controller_->SetNamespace(urgent);
  CreateIn("lab", "b", 2, 2);
  ASSERT_TRUE(WaitForRunning("b", 2));
  for (int step = 1; step <= 3; ++step) executor_->Observe(Key("b"), "b-2", step, {{"loss", step}});
  ASSERT_TRUE(WaitFor([&] { return store_->ListObservations(Key("b"), "b-2")->size() == 3; }));

  const auto asked = std::chrono::steady_clock::now();
  CreateIn("urgent", "u", 1, 1);
  // b-2, started last, is stopped (SIGTERM through Kill) ...
  ASSERT_TRUE(WaitFor([&] {
    auto kills = executor_->kills();
    return std::find(kills.begin(), kills.end(), Key("b") + "/b-2") != kills.end();
  }));
  EXPECT_EQ(Trial("b", "b-2").reason, "Preempting");
  runner::ExitInfo killed;
  killed.kind = runner::ExitKind::kKilled;
  executor_->Exit(Key("b"), "b-2", killed);
  // ... its GPU goes to u at once, and b-2 waits to start again.
  ASSERT_TRUE(WaitForTrialPhase("u", "u-1", TrialPhase::kRunning));
  EXPECT_LT(std::chrono::steady_clock::now() - asked, std::chrono::seconds(3));
  ASSERT_TRUE(WaitForReason("b", "b-2", "Preempted"));
  EXPECT_EQ(Trial("b", "b-2").phase, TrialPhase::kPending);
  EXPECT_EQ(Trial("b", "b-1").phase, TrialPhase::kRunning);

  Succeed("u", "u-1", 0.1);
  ASSERT_TRUE(WaitFor([&] { return Started("b") == 3; }));  // b-2 again, same name
  std::vector<std::string> dirs;
  for (const auto& s : executor_->started()) {
    if (s.trial == "b-2") dirs.push_back(s.env.at("HPT_CHECKPOINT_DIR"));
  }
  ASSERT_EQ(dirs.size(), 2u);
  EXPECT_EQ(dirs[0], dirs[1]);
  EXPECT_TRUE(std::filesystem::is_directory(dirs[0]));
  // Resumed from a checkpoint of step 2: step 3 again, then on.
  for (int step = 3; step <= 5; ++step) executor_->Observe(Key("b"), "b-2", step, {{"loss", 10 + step}});
  executor_->ExitCode(Key("b"), "b-2", 0);
  ASSERT_TRUE(WaitForTrialPhase("b", "b-2", TrialPhase::kSucceeded));
  auto stored = store_->ListObservations(Key("b"), "b-2");
  ASSERT_TRUE(stored.ok());
  std::vector<std::pair<int64_t, double>> steps;
  for (const auto& o : *stored) steps.push_back({o.step, o.metrics.at("loss")});
  EXPECT_EQ(steps, (std::vector<std::pair<int64_t, double>>{{1, 1}, {2, 2}, {3, 3}, {4, 14},
                                                             {5, 15}}));
  Succeed("b", "b-1", 0.5);
  ASSERT_TRUE(WaitForPhase("b", ExperimentPhase::kSucceeded));
  EXPECT_EQ(Trials("b").size(), 2u) << "the preempted trial is not a new one";
  EXPECT_EQ(Experiment("b").reason, "MaxTrialsReached");
}

}  // namespace
}  // namespace hpt::controller::testing
