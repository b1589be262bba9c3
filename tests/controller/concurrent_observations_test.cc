// Observations from many threads at once through the controller, on a real
// SQLite file: their writes share the store's group commit, and each is
// still stored once, in order per trial, refused alone when its trial has
// ended, and never after its trial's completion.

#include <gtest/gtest.h>

#include <atomic>
#include <set>
#include <string>
#include <thread>
#include <vector>

#include "tests/controller/controller_fixture.h"

namespace hpt::controller::testing {
namespace {

using api::TrialPhase;

constexpr int kTrials = 8;
constexpr int kSteps = 60;

class ConcurrentObservationsTest : public ControllerTest {
 protected:
  void SetUp() override {
    StartController();
    Create(ClientSpec("e", kTrials));
    ASSERT_EQ(controller_->SuggestTrials("e", kTrials)->size(), size_t{kTrials});
  }
  Status Observe(const std::string& trial, int64_t step, double loss) {
    return controller_->AddObservations(
        "e", trial, {{step, 0, {{"loss", loss}, {"acc", double(step)}}}});
  }
};

// Trials e-1..e-4 each get kSteps writes from their own thread; e-5..e-7
// each get writes from two threads while the test completes them; e-8 is
// completed first, and its writer's every write is refused alone (409).
TEST_F(ConcurrentObservationsTest, EachAcknowledgedWriteStoredOnceInOrder) {
  ASSERT_TRUE(controller_->CompleteTrial("e", "e-8", {{{"loss", 9.0}}}).ok());
  std::atomic<int> unexpected{0};
  std::atomic<int> refused{0};
  constexpr int kRaced = 3;  // e-5, e-6, e-7
  std::atomic<int> acknowledged[kRaced] = {0, 0, 0};
  std::vector<std::thread> threads;
  for (int i = 1; i <= 4; ++i) {
    threads.emplace_back([&, i] {
      const std::string trial = "e-" + std::to_string(i);
      for (int step = 1; step <= kSteps; ++step) {
        if (!Observe(trial, step, 1.0 / step).ok()) ++unexpected;
      }
    });
  }
  for (int r = 0; r < 2 * kRaced; ++r) {
    threads.emplace_back([&, r] {
      const int raced = r / 2, half = r % 2;
      for (int n = 0; n < kSteps; ++n) {
        Status s = Observe("e-" + std::to_string(5 + raced), 2 * n + half + 1, 1.0);
        if (s.ok()) {
          ++acknowledged[raced];
        } else if (s.code() != StatusCode::kFailedPrecondition) {
          ++unexpected;
        }
      }
    });
  }
  threads.emplace_back([&] {
    for (int step = 1; step <= kSteps; ++step) {
      if (Observe("e-8", step, 1.0).code() == StatusCode::kFailedPrecondition) ++refused;
    }
  });
  // Completes e-5..e-7 while their writers are busy.
  for (int raced = 0; raced < kRaced; ++raced) {
    ASSERT_TRUE(WaitFor([&] { return acknowledged[raced].load() >= 10; }));
    auto completed =
        controller_->CompleteTrial("e", "e-" + std::to_string(5 + raced), {{{"loss", -1.0}}});
    ASSERT_TRUE(completed.ok()) << completed.status().ToString();
  }
  for (auto& t : threads) t.join();
  EXPECT_EQ(unexpected.load(), 0);
  EXPECT_EQ(refused.load(), kSteps);

  for (int i = 1; i <= 4; ++i) {
    const std::string trial = "e-" + std::to_string(i);
    auto obs = store_->ListObservations("e", trial);
    ASSERT_TRUE(obs.ok());
    ASSERT_EQ(obs->size(), size_t{kSteps}) << trial;
    for (int step = 1; step <= kSteps; ++step) {
      ASSERT_EQ((*obs)[step - 1].step, step) << trial;
      EXPECT_EQ((*obs)[step - 1].metrics.at("loss"), 1.0 / step);
    }
    // The runner's copy of the summaries, as its completion answers them.
    auto done = controller_->CompleteTrial("e", trial, {});
    ASSERT_TRUE(done.ok()) << done.status().ToString();
    bool found = false;
    for (const auto& m : done->metrics) {
      if (m.name != "acc") continue;
      found = true;
      EXPECT_EQ(m.latest, kSteps);
      EXPECT_EQ(m.max, kSteps);
      EXPECT_EQ(m.min, 1);
    }
    EXPECT_TRUE(found) << trial;
  }
  // e-5..e-7: every acknowledged write stored once, and the completion's
  // final value one step past all of them (it waited for the write in
  // flight).
  for (int raced = 0; raced < kRaced; ++raced) {
    const std::string trial = "e-" + std::to_string(5 + raced);
    auto obs = store_->ListObservations("e", trial);
    ASSERT_TRUE(obs.ok());
    ASSERT_EQ(obs->size(), size_t(acknowledged[raced].load()) + 1) << trial;
    const api::Observation& final_obs = obs->back();
    EXPECT_EQ(final_obs.metrics.at("loss"), -1.0) << trial;
    std::set<int64_t> steps;
    for (size_t k = 0; k + 1 < obs->size(); ++k) {
      EXPECT_LT((*obs)[k].step, final_obs.step) << trial;
      EXPECT_TRUE(steps.insert((*obs)[k].step).second) << trial << ": a step stored twice";
    }
    EXPECT_EQ(Trial("e", trial).phase, TrialPhase::kSucceeded);
  }
  EXPECT_EQ(store_->ListObservations("e", "e-8")->size(), 1u);  // its final value only
}

}  // namespace
}  // namespace hpt::controller::testing
