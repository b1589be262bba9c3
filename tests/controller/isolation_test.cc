// One experiment's slow algorithm call holds up that experiment only: the
// calls and executor events of another go on meanwhile.

#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <future>
#include <memory>
#include <string>
#include <thread>

#include "tests/controller/controller_fixture.h"

namespace hpt::controller::testing {
namespace {

using api::TrialPhase;
using Clock = std::chrono::steady_clock;

constexpr auto kSlow = std::chrono::seconds(2);
// Far above a call's cost, far below kSlow: a behaviour check, not a benchmark.
constexpr auto kBound = std::chrono::seconds(1);

// Suggests x = 0.5 for every trial, after sleeping kSlow (a GP refit).
class SlowAlgorithm : public suggestion::Algorithm {
 public:
  explicit SlowAlgorithm(std::atomic<int>* calls) : calls_(calls) {}
  Status Validate(const api::ExperimentSpec&) const override {
    return Status::Ok();
  }
  StatusOr<suggestion::Suggestion> Suggest(const api::ExperimentSpec&,
                                           const std::vector<api::Trial>&,
                                           std::string_view state,
                                           int count) override {
    ++*calls_;
    std::this_thread::sleep_for(kSlow);
    suggestion::Suggestion s;
    s.assignments.assign(count, {{"x", "0.5"}});
    s.state = std::string(state);
    return s;
  }

 private:
  std::atomic<int>* const calls_;
};

class IsolationTest : public ControllerTest {
 protected:
  void SetUp() override {
    ASSERT_TRUE(builtins_->algorithms
                    .Register("slow",
                              [this] {
                                return std::make_unique<SlowAlgorithm>(
                                    &slow_calls_);
                              })
                    .ok());
    StartController();
  }
  // Runs `call` and returns how long it took.
  template <typename F>
  static Clock::duration Time(F call) {
    auto start = Clock::now();
    call();
    return Clock::now() - start;
  }

  std::atomic<int> slow_calls_{0};
};

TEST_F(IsolationTest, SlowSuggestDoesNotBlockAnotherExperimentsCalls) {
  nlohmann::json slow = ClientSpec("slow", 10);
  slow["algorithm"] = {{"algorithmName", "slow"}};
  Create(slow);
  Create(ClientSpec("fast", 10));
  auto fast = controller_->SuggestTrials("fast", 1);
  ASSERT_TRUE(fast.ok());

  auto slow_call = std::async(std::launch::async, [&] {
    auto start = Clock::now();
    auto got = controller_->SuggestTrials("slow", 1);
    EXPECT_TRUE(got.ok()) << got.status().ToString();
    return Clock::now() - start;
  });
  ASSERT_TRUE(WaitFor([&] { return slow_calls_ > 0; }));

  Completion done;
  done.metrics = {{"loss", 1}};
  auto complete = Time([&] {
    EXPECT_TRUE(controller_->CompleteTrial("fast", "fast-1", done).ok());
  });
  auto suggest =
      Time([&] { EXPECT_TRUE(controller_->SuggestTrials("fast", 2).ok()); });
  auto observe = Time([&] {
    EXPECT_TRUE(
        controller_->AddObservations("fast", "fast-2", {{1, 0, {{"loss", 2}}}})
            .ok());
  });
  auto stop =
      Time([&] { EXPECT_TRUE(controller_->StopTrial("fast", "fast-3").ok()); });
  EXPECT_LT(complete, kBound);
  EXPECT_LT(suggest, kBound);
  EXPECT_LT(observe, kBound);
  EXPECT_LT(stop, kBound);
  // ...and they returned while the slow call was still under way.
  EXPECT_NE(slow_call.wait_for(std::chrono::seconds(0)),
            std::future_status::ready);
  EXPECT_GE(slow_call.get(), kSlow);
}

TEST_F(IsolationTest, SlowReconcileDoesNotDelayAnotherExperimentsEvents) {
  nlohmann::json slow = RunnerSpec("slow", 4, 1);
  slow["algorithm"] = {{"algorithmName", "slow"}};
  Create(RunnerSpec("fast", 3, 1));
  ASSERT_TRUE(WaitForRunning("fast", 1));
  auto start = Clock::now();
  Create(slow);  // its first Reconcile sleeps on a work-pool thread
  ASSERT_TRUE(WaitFor([&] { return slow_calls_ > 0; }));

  // fast's exit is handled and its next trial started meanwhile.
  Succeed("fast", "fast-1", 0.5);
  ASSERT_TRUE(WaitForRunning("fast", 1));
  ASSERT_TRUE(WaitForTrialPhase("fast", "fast-1", TrialPhase::kSucceeded));
  EXPECT_LT(Clock::now() - start, kBound);
  EXPECT_TRUE(executor_->StartedTrials("slow").empty());
  ASSERT_TRUE(WaitForRunning("slow", 1));
  EXPECT_GE(Clock::now() - start, kSlow);
}

}  // namespace
}  // namespace hpt::controller::testing
