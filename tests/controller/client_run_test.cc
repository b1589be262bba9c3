// Client-run (ask/tell) experiments: suggestions, completions, the trial
// budget, and callers on many threads at once.

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <atomic>
#include <mutex>
#include <set>
#include <string>
#include <thread>
#include <vector>

#include "tests/controller/controller_fixture.h"

namespace hpt::controller::testing {
namespace {

using api::ExperimentPhase;
using api::TrialPhase;
using ::testing::HasSubstr;

class ClientRunTest : public ControllerTest {
 protected:
  void SetUp() override { StartController(); }

  Status Complete(const std::string& exp, const std::string& trial,
                  double loss) {
    Completion c;
    c.metrics = {{"loss", loss}};
    return controller_->CompleteTrial(exp, trial, c).status();
  }
};

TEST_F(ClientRunTest, SuggestAndCompleteUntilTheBudgetIsSpent) {
  Create(ClientSpec("e", 5));
  EXPECT_EQ(Experiment("e").phase, ExperimentPhase::kCreated);
  auto first = controller_->SuggestTrials("e", 2);
  ASSERT_TRUE(first.ok()) << first.status().ToString();
  ASSERT_EQ(first->size(), 2u);
  EXPECT_EQ((*first)[0].name, "e-1");
  EXPECT_EQ((*first)[0].phase, TrialPhase::kRunning);
  EXPECT_NE(api::FindValue((*first)[0].assignment, "x"), nullptr);
  EXPECT_EQ(Experiment("e").phase, ExperimentPhase::kRunning);
  EXPECT_EQ(Trial("e", "e-2").phase, TrialPhase::kRunning);

  // Asking for more than is left gets what is left, then nothing.
  auto rest = controller_->SuggestTrials("e", 10);
  ASSERT_TRUE(rest.ok());
  EXPECT_EQ(rest->size(), 3u);
  auto none = controller_->SuggestTrials("e", 1);
  ASSERT_TRUE(none.ok());
  EXPECT_TRUE(none->empty());
  EXPECT_EQ(Trials("e").size(), 5u);

  for (int i = 1; i <= 5; ++i) {
    ASSERT_TRUE(Complete("e", "e-" + std::to_string(i), 10.0 - i).ok());
    EXPECT_EQ(Experiment("e").phase,
              i < 5 ? ExperimentPhase::kRunning : ExperimentPhase::kSucceeded);
  }
  EXPECT_EQ(Experiment("e").reason, "MaxTrialsReached");
  api::Trial last = Trial("e", "e-5");
  EXPECT_EQ(last.phase, TrialPhase::kSucceeded);
  EXPECT_EQ(last.reason, "Completed");
  EXPECT_EQ(api::ObjectiveValue(last, Experiment("e").spec.objective), 5.0);
  // A finished experiment hands out nothing.
  EXPECT_TRUE(controller_->SuggestTrials("e", 1)->empty());
}

TEST_F(ClientRunTest, CompletionOutcomes) {
  Create(ClientSpec("e", 10));
  ASSERT_TRUE(controller_->SuggestTrials("e", 4).ok());
  Completion infeasible;
  infeasible.infeasible = true;
  infeasible.reason = "diverged";
  ASSERT_TRUE(controller_->CompleteTrial("e", "e-1", infeasible).ok());
  EXPECT_EQ(Trial("e", "e-1").phase, TrialPhase::kFailed);
  EXPECT_EQ(Trial("e", "e-1").reason, "Infeasible");
  EXPECT_EQ(Trial("e", "e-1").message, "diverged");

  // Without the objective: refused, naming what was wanted and given; the
  // trial runs on.
  Completion wrong;
  wrong.metrics = {{"acc", 0.9}};
  Status refused = controller_->CompleteTrial("e", "e-2", wrong).status();
  EXPECT_EQ(refused.code(), StatusCode::kInvalidArgument);
  EXPECT_EQ(refused.message(),
            "metrics: the objective metric 'loss' was not reported (given: acc; reported "
            "before: none); report it, or complete with \"infeasible\": true");
  EXPECT_EQ(Trial("e", "e-2").phase, TrialPhase::kRunning);
  EXPECT_EQ(controller_->CompleteTrial("e", "e-2", {}).status().code(),
            StatusCode::kInvalidArgument);
  EXPECT_TRUE(store_->ListObservations("e", "e-2")->empty()) << "nothing stored";

  // Pushed observations count; the final metrics go one step past them.
  ASSERT_TRUE(
      controller_
          ->AddObservations("e", "e-3",
                            {{1, 0, {{"loss", 3.0}}}, {2, 0, {{"loss", 2.0}}}})
          .ok());
  ASSERT_TRUE(controller_->CompleteTrial("e", "e-3", {}).ok());
  EXPECT_EQ(Trial("e", "e-3").phase, TrialPhase::kSucceeded);
  ASSERT_TRUE(Complete("e", "e-4", 1.0).ok());
  auto obs = store_->ListObservations("e", "e-4");
  ASSERT_TRUE(obs.ok());
  ASSERT_EQ(obs->size(), 1u);
  EXPECT_EQ((*obs)[0].step, 0);

  Status again = Complete("e", "e-4", 0.5);
  EXPECT_EQ(again.code(), StatusCode::kFailedPrecondition);
  EXPECT_EQ(again.message(), "trial 'e-4' is already Succeeded (Completed)");
  EXPECT_EQ(
      controller_->AddObservations("e", "e-4", {{3, 0, {{"loss", 1}}}}).code(),
      StatusCode::kFailedPrecondition);
  EXPECT_EQ(Complete("e", "e-99", 1).code(), StatusCode::kNotFound);
  EXPECT_EQ(Complete("nope", "e-1", 1).code(), StatusCode::kNotFound);
  EXPECT_EQ(controller_->SuggestTrials("e", 0).status().code(),
            StatusCode::kInvalidArgument);
  EXPECT_EQ(controller_->SuggestTrials("e", 1001).status().code(),
            StatusCode::kInvalidArgument);
}

TEST_F(ClientRunTest, GoalReachedEndsTheExperiment) {
  nlohmann::json spec = ClientSpec("e", 10);
  spec["objective"]["goal"] = 0.5;
  Create(spec);
  ASSERT_TRUE(controller_->SuggestTrials("e", 2).ok());
  ASSERT_TRUE(Complete("e", "e-1", 0.7).ok());
  EXPECT_EQ(Experiment("e").phase, ExperimentPhase::kRunning);
  ASSERT_TRUE(Complete("e", "e-2", 0.4).ok());
  EXPECT_EQ(Experiment("e").phase, ExperimentPhase::kSucceeded);
  EXPECT_EQ(Experiment("e").reason, "GoalReached");
  EXPECT_TRUE(controller_->SuggestTrials("e", 1)->empty());
}

TEST_F(ClientRunTest, ParallelCallersGetDistinctTrials) {
  constexpr int kThreads = 8;
  constexpr int kCalls = 20;
  constexpr int kBudget = 250;  // less than the 8 * 20 * 2 asked for
  Create(ClientSpec("e", kBudget));
  std::mutex mu;
  std::vector<std::string> names;
  std::atomic<int> errors{0};
  std::vector<std::thread> threads;
  for (int i = 0; i < kThreads; ++i) {
    threads.emplace_back([&, i] {
      for (int call = 0; call < kCalls; ++call) {
        auto got = controller_->SuggestTrials("e", 1 + (call + i) % 3);
        if (!got.ok()) {
          ++errors;
          continue;
        }
        for (const auto& t : *got) {
          // Completing some while others ask: the history moves under them.
          if (call % 2 == 0 && !Complete("e", t.name, call).ok()) ++errors;
          std::lock_guard<std::mutex> lock(mu);
          names.push_back(t.name);
        }
      }
    });
  }
  for (auto& t : threads) t.join();
  EXPECT_EQ(errors.load(), 0);
  std::set<std::string> distinct(names.begin(), names.end());
  EXPECT_EQ(distinct.size(), names.size());
  EXPECT_EQ(names.size(), size_t{kBudget});
  std::vector<api::Trial> stored = Trials("e");
  ASSERT_EQ(stored.size(), size_t{kBudget});
  for (int i = 0; i < kBudget; ++i) {
    EXPECT_EQ(stored[i].name, "e-" + std::to_string(i + 1));
    EXPECT_TRUE(distinct.count(stored[i].name)) << stored[i].name;
  }
}

TEST_F(ClientRunTest, ParallelExperimentsAreIndependent) {
  constexpr int kExperiments = 6;
  for (int e = 0; e < kExperiments; ++e)
    Create(ClientSpec("e" + std::to_string(e), 30));
  std::atomic<int> errors{0};
  std::vector<std::thread> threads;
  for (int e = 0; e < kExperiments; ++e) {
    threads.emplace_back([&, e] {
      const std::string name = "e" + std::to_string(e);
      for (int i = 0; i < 30; ++i) {
        auto got = controller_->SuggestTrials(name, 1);
        if (!got.ok() || got->size() != 1 ||
            !Complete(name, (*got)[0].name, i).ok())
          ++errors;
      }
    });
  }
  for (auto& t : threads) t.join();
  EXPECT_EQ(errors.load(), 0);
  for (int e = 0; e < kExperiments; ++e) {
    api::Experiment exp = Experiment("e" + std::to_string(e));
    EXPECT_EQ(exp.phase, ExperimentPhase::kSucceeded);
    EXPECT_THAT(exp.message, HasSubstr("30 trials ran"));
  }
}

}  // namespace
}  // namespace hpt::controller::testing
