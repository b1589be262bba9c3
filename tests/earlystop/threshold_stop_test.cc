#include "earlystop/threshold_stop.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "tests/earlystop/curves.h"

namespace hpt::earlystop {
namespace {

using testing::Curve;
using testing::Running;
using testing::StopSpec;

api::ExperimentSpec ThresholdSpec(
    std::vector<api::AlgorithmSetting> settings,
    api::ObjectiveType type = api::ObjectiveType::kMinimize) {
  return StopSpec("threshold", std::move(settings), type);
}

StopDecision ThresholdDecide(const api::ExperimentSpec& spec,
                             const TrialCurve& t) {
  auto d = ThresholdStop().ShouldStop(spec, t, {});
  EXPECT_TRUE(d.ok()) << d.status().ToString();
  return d.ok() ? *d : StopDecision{};
}

TEST(ThresholdStopTest, StopsOutsideTheBoundsWhateverTheDirection) {
  for (auto type : {api::ObjectiveType::kMinimize, api::ObjectiveType::kMaximize}) {
    auto spec = ThresholdSpec({{"lower", "0.1"}, {"upper", "10"}}, type);
    StopDecision d = ThresholdDecide(spec, Running("t", {1, 11}));
    EXPECT_TRUE(d.stop);
    EXPECT_EQ(d.reason, "loss 11 at step 2 is above the upper threshold 10");
    EXPECT_EQ(ThresholdDecide(spec, Running("t", {1, 0.05})).reason,
              "loss 0.05 at step 2 is below the lower threshold 0.1");
    EXPECT_FALSE(
        ThresholdDecide(spec, Running("t", {11, 5})).stop);  // the latest
    EXPECT_FALSE(
        ThresholdDecide(spec, Running("t", {10, 0.1})).stop);  // bounds kept
  }
  EXPECT_TRUE(
      ThresholdDecide(ThresholdSpec({{"upper", "1"}}), Running("t", {2})).stop);
  EXPECT_FALSE(
      ThresholdDecide(ThresholdSpec({{"upper", "1"}}), Running("t", {-1e9}))
          .stop);
}

TEST(ThresholdStopTest, WarmupAndInterval) {
  auto spec = ThresholdSpec(
      {{"upper", "1"}, {"n_warmup_steps", "2"}, {"interval_steps", "2"}});
  // Steps 0.. : checks at 2, 4, ...
  auto at = [&](int n) {
    return ThresholdDecide(spec, Curve("t", api::TrialPhase::kRunning,
                                       std::vector<double>(n, 5), 0))
        .stop;
  };
  EXPECT_FALSE(at(1));  // step 0
  EXPECT_FALSE(at(2));  // step 1
  EXPECT_TRUE(at(3));   // step 2
  EXPECT_FALSE(at(4));  // step 3
  EXPECT_TRUE(at(5));   // step 4
}

TEST(ThresholdStopTest, AFinishedTrialIsNotStopped) {
  EXPECT_FALSE(ThresholdDecide(ThresholdSpec({{"upper", "1"}}),
                               Curve("t", api::TrialPhase::kSucceeded, {5}))
                   .stop);
}

TEST(ThresholdStopTest, NamesTheBadSetting) {
  struct Case {
    std::vector<api::AlgorithmSetting> settings;
    std::string message;
  };
  std::vector<Case> cases = {
      {{}, "earlyStopping.algorithmSettings: lower or upper is required (a "
           "trial whose value leaves [lower, upper] is stopped)"},
      {{{"lower", "2"}, {"upper", "1"}},
       "earlyStopping.algorithmSettings[1].value: upper must not be below "
       "lower 2, got 1"},
      {{{"lower", "low"}},
       "earlyStopping.algorithmSettings[0].value: lower must be a number, "
       "got 'low'"},
      {{{"upper", "1"}, {"n_warmup_steps", "-1"}},
       "earlyStopping.algorithmSettings[1].value: n_warmup_steps must be at "
       "least 0, got -1"},
      {{{"upper", "1"}, {"interval_steps", "0"}},
       "earlyStopping.algorithmSettings[1].value: interval_steps must be at "
       "least 1, got 0"},
  };
  for (const Case& c : cases) {
    Status s = ThresholdStop().Validate(ThresholdSpec(c.settings));
    EXPECT_EQ(s.code(), StatusCode::kInvalidArgument);
    EXPECT_EQ(s.message(), c.message);
  }
}

}  // namespace
}  // namespace hpt::earlystop
