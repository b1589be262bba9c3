#include "suggestion/bo_data.h"

#include <gtest/gtest.h>

#include <cmath>

#include "tests/suggestion/bo_driver.h"
#include "tests/suggestion/spec_builders.h"

namespace hpt::suggestion {
namespace {

using api::TrialPhase;
using testing::DoubleParam;
using testing::Finished;
using testing::MakeSpec;

TEST(BoStateTest, RoundTripsBitwise) {
  BoState state;
  state.seed = 18446744073709551615ull;
  state.fit_points = 42;
  state.theta = Eigen::VectorXd(4);
  *state.theta << std::log(0.3), -1.0 / 3, 1e-300, -13.815510557964274;
  std::string text = FormatState(state);
  std::optional<BoState> back = ParseState(text);
  ASSERT_TRUE(back.has_value()) << text;
  EXPECT_EQ(back->seed, state.seed);
  EXPECT_EQ(back->fit_points, 42);
  ASSERT_TRUE(back->theta.has_value());
  EXPECT_EQ(*back->theta, *state.theta);
  EXPECT_EQ(back->refit_at, 0);
  EXPECT_EQ(text.find("refit"), std::string::npos);

  state.refit_at = 47;  // a background fit pending (bo_refit.h)
  back = ParseState(FormatState(state));
  ASSERT_TRUE(back.has_value()) << FormatState(state);
  EXPECT_EQ(back->refit_at, 47);
  EXPECT_EQ(back->fit_points, 42);
  EXPECT_EQ(*back->theta, *state.theta);

  BoState seed_only;
  seed_only.seed = 7;
  EXPECT_EQ(FormatState(seed_only), "seed=7");
  EXPECT_EQ(ParseState("seed=7")->seed, 7u);
  EXPECT_FALSE(ParseState("seed=7")->theta.has_value());
}

TEST(BoStateTest, UnreadableStatesAreRejected) {
  for (const char* bad :
       {"", "x", "seed=", "seed=1;fit=2", "seed=1;fit=2;theta=",
        "seed=1;fit=2;theta=1,2", "seed=1;fit=-1;theta=1,2,3",
        "seed=1;fit=2;theta=1,2,nan", "seed=1;fit=2;theta=1,2,3;",
        "seed=1;fit=2;refit=2;theta=1,2,3", "seed=1;fit=2;refit=x;theta=1,2,3",
        "seed=1;fit=2;theta=1,2,3;refit=5"}) {
    EXPECT_FALSE(ParseState(bad).has_value()) << bad;
  }
}

TEST(BoDataTest, SortsByCompletionAndSortsPhasesOut) {
  api::ExperimentSpec spec =
      MakeSpec("bayesianoptimization", {DoubleParam("x", 0, 10)});
  spec.objective.type = api::ObjectiveType::kMaximize;
  UnitCube cube(spec.parameters);
  auto at = [](double x) { return api::Assignment{{"x", std::to_string(x)}}; };
  std::vector<api::Trial> history = {
      Finished(at(1), 5.0),  // completes late
      Finished(at(2), 3.0, TrialPhase::kEarlyStopped),
      Finished(at(3), std::nullopt, TrialPhase::kFailed),
      Finished(at(4), std::nullopt, TrialPhase::kRunning),
      Finished(at(5), 1.0, TrialPhase::kKilled),
      Finished(at(6), std::nullopt, TrialPhase::kMetricsUnavailable),
      Finished(at(7), std::nullopt, TrialPhase::kSucceeded),  // no value
      Finished({{"y", "1"}}, 2.0),  // not in the space
      Finished(at(8), std::nullopt, TrialPhase::kPending),
  };
  history[0].completion_time_ms = 1'000'000;
  BoData data = CollectData(cube, spec, history);
  ASSERT_EQ(data.x.cols(), 5);
  EXPECT_EQ(data.observed, 2);
  // Maximize: values are negated; the late trial comes last.
  EXPECT_DOUBLE_EQ(data.x(0, 0), 0.2);
  EXPECT_EQ(data.value[0], -3.0);
  EXPECT_TRUE(std::isnan(data.value[1]));
  EXPECT_TRUE(std::isnan(data.value[2]));
  EXPECT_TRUE(std::isnan(data.value[3]));
  EXPECT_DOUBLE_EQ(data.x(0, 4), 0.1);
  EXPECT_EQ(data.value[4], -5.0);
  ASSERT_EQ(data.pending.cols(), 2);
  EXPECT_DOUBLE_EQ(data.pending(0, 0), 0.4);
  EXPECT_DOUBLE_EQ(data.pending(0, 1), 0.8);
}

}  // namespace
}  // namespace hpt::suggestion
