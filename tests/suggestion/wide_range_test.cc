// The widest range validation lets through (max - min just below a
// double's limit): every numeric algorithm still suggests finite values
// inside it, over a few ask/tell rounds. Before validation bounded the
// width, cmaes aborted the server and tpe looped forever on such ranges.
#include <gtest/gtest.h>

#include <cmath>
#include <string>
#include <vector>

#include "suggestion/algorithm.h"
#include "tests/suggestion/spec_builders.h"

namespace hpt::suggestion {
namespace {

using testing::DoubleParam;
using testing::MakeSpec;

TEST(WideRangeTest, EveryAlgorithmStaysFiniteAndInBounds) {
  // Width 1.6e308 < DBL_MAX beside [0, 1]; then [0, 1] beside a width of
  // 1e-300 (the ranges' ratio is what scales cmaes' covariance).
  for (auto [edge, y_max] : {std::pair{8e307, 1.0}, std::pair{1.0, 1e-300}}) {
    Registry<Algorithm> registry;
    RegisterBuiltins(registry);
    for (const char* name :
         {"bayesianoptimization", "cmaes", "multivariate-tpe", "nsga2",
          "random", "sobol", "tpe"}) {
      SCOPED_TRACE(name);
      api::ExperimentSpec spec = MakeSpec(
          name, {DoubleParam("x", -edge, edge), DoubleParam("y", 0, y_max)},
          std::string(name).find("tpe") != std::string::npos
              ? std::vector<api::AlgorithmSetting>{{"n_startup_trials", "2"}}
              : std::vector<api::AlgorithmSetting>{});
      auto algorithm = registry.Create(name);
      ASSERT_TRUE(algorithm.ok());
      ASSERT_TRUE((*algorithm)->Validate(spec).ok())
          << (*algorithm)->Validate(spec).ToString();
      std::vector<api::Trial> history;
      std::string state;
      for (int round = 0; round < 4; ++round) {
        StatusOr<Suggestion> s = (*algorithm)->Suggest(spec, history, state, 2);
        ASSERT_TRUE(s.ok()) << s.status().ToString();
        state = s->state;
        for (const api::Assignment& a : s->assignments) {
          double x = std::stod(a[0].value), y = std::stod(a[1].value);
          EXPECT_TRUE(std::isfinite(x) && x >= -edge && x <= edge)
              << a[0].value;
          EXPECT_TRUE(y >= 0 && y <= y_max) << a[1].value;
          api::Trial t;
          t.name = "t" + std::to_string(history.size());
          t.assignment = a;
          t.phase = api::TrialPhase::kSucceeded;
          double loss = std::abs(x / edge) + y / y_max;
          t.metrics.push_back({"loss", loss, loss, loss});
          history.push_back(std::move(t));
        }
      }
    }
  }
}

}  // namespace
}  // namespace hpt::suggestion
