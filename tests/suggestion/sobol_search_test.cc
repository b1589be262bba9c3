#include "suggestion/sobol_search.h"

#include <gtest/gtest.h>

#include <cmath>
#include <set>
#include <string>
#include <vector>

#include "suggestion/search_space.h"
#include "tests/suggestion/bo_driver.h"
#include "tests/suggestion/spec_builders.h"

namespace hpt::suggestion {
namespace {

using api::ParameterType;
using testing::DoubleParam;
using testing::IntParam;
using testing::ListParam;
using testing::MakeSpec;

api::ExperimentSpec SobolSpec(std::vector<api::ParameterSpec> parameters,
                              std::string seed = "11") {
  std::vector<api::AlgorithmSetting> settings;
  if (!seed.empty()) settings.push_back({"random_state", seed});
  return MakeSpec("sobol", std::move(parameters), std::move(settings));
}

std::vector<std::string> SobolKeys(const api::ExperimentSpec& spec,
                                   const std::vector<api::Assignment>& batch) {
  std::vector<std::string> keys;
  for (const auto& a : batch) keys.push_back(AssignmentKey(spec.parameters, a));
  return keys;
}

TEST(SobolSearchTest, NormalPointsFollowTheDistribution) {
  api::ExperimentSpec spec = SobolSpec(
      {DoubleParam("x", 0, 6, std::nullopt, api::Distribution::kNormal),
       IntParam("b", 32, 64, std::nullopt, api::Distribution::kLogNormal)});
  SobolSearch sobol;
  StatusOr<Suggestion> s = sobol.Suggest(spec, {}, "", 256);
  ASSERT_TRUE(s.ok()) << s.status().ToString();
  int within_one_sigma = 0;
  for (const auto& a : s->assignments) {
    std::vector<double> v = testing::Numbers(a);
    ASSERT_GE(v[0], 0);
    ASSERT_LE(v[0], 6);
    ASSERT_GE(v[1], 32);
    ASSERT_LE(v[1], 64);
    within_one_sigma += std::fabs(v[0] - 3) <= 1;
  }
  EXPECT_NEAR(within_one_sigma / 256.0, 0.6845, 0.02);  // uniform: 0.33
}

TEST(SobolSearchTest, PointsSpreadEvenly) {
  api::ExperimentSpec spec =
      SobolSpec({DoubleParam("x", 0, 8), DoubleParam("y", 0, 8)});
  SobolSearch sobol;
  StatusOr<Suggestion> s = sobol.Suggest(spec, {}, "", 64);
  ASSERT_TRUE(s.ok()) << s.status().ToString();
  ASSERT_EQ(s->assignments.size(), 64u);
  std::set<std::pair<int, int>> cells;
  for (const auto& a : s->assignments) {
    std::vector<double> v = testing::Numbers(a);
    cells.insert({static_cast<int>(v[0]), static_cast<int>(v[1])});
  }
  EXPECT_EQ(cells.size(), 64u) << "one point in each of the 8 x 8 cells";
}

TEST(SobolSearchTest, TheStateContinuesTheSequence) {
  api::ExperimentSpec spec =
      SobolSpec({DoubleParam("x", -1, 1), IntParam("k", 0, 1000)});
  SobolSearch sobol;
  StatusOr<Suggestion> all = sobol.Suggest(spec, {}, "", 10);
  StatusOr<Suggestion> first = sobol.Suggest(spec, {}, "", 4);
  ASSERT_TRUE(all.ok() && first.ok());
  std::vector<api::Trial> history;
  for (const auto& a : first->assignments)
    history.push_back(testing::Finished(a, 1.0));
  StatusOr<Suggestion> rest = sobol.Suggest(spec, history, first->state, 6);
  ASSERT_TRUE(rest.ok());
  std::vector<api::Assignment> joined = first->assignments;
  joined.insert(joined.end(), rest->assignments.begin(),
                rest->assignments.end());
  EXPECT_EQ(SobolKeys(spec, joined), SobolKeys(spec, all->assignments));
}

TEST(SobolSearchTest, SeedsRepeatAndDiffer) {
  std::vector<api::ParameterSpec> space = {DoubleParam("x", 0, 1)};
  SobolSearch sobol;
  auto draw = [&](const std::string& seed) {
    api::ExperimentSpec spec = SobolSpec(space, seed);
    return SobolKeys(spec, sobol.Suggest(spec, {}, "", 5)->assignments);
  };
  EXPECT_EQ(draw("1"), draw("1"));
  EXPECT_NE(draw("1"), draw("2"));
  // Without a seed, one is drawn and kept in the state.
  api::ExperimentSpec unseeded = SobolSpec(space, "");
  StatusOr<Suggestion> s = sobol.Suggest(unseeded, {}, "", 1);
  ASSERT_TRUE(s.ok());
  EXPECT_EQ(s->state.rfind("seed=", 0), 0u);
}

TEST(SobolSearchTest, FiniteSpacesRunOutWithoutRepeats) {
  api::ExperimentSpec spec =
      SobolSpec({IntParam("k", 1, 3),
                 ListParam(ParameterType::kCategorical, "c", {"a", "b"})});
  testing::Driver driver(
      spec, [] { return std::make_unique<SobolSearch>(); },
      [](const api::Assignment&) { return 1.0; });
  std::set<std::string> seen;
  bool exhausted = false;
  for (int call = 0; call < 4 && !exhausted; ++call) {
    Suggestion s = driver.Step(2);
    for (const auto& a : s.assignments) {
      EXPECT_TRUE(seen.insert(AssignmentKey(spec.parameters, a)).second);
    }
    exhausted = s.exhausted;
  }
  EXPECT_EQ(seen.size(), 6u);
  EXPECT_TRUE(exhausted);
  EXPECT_TRUE(driver.Step(2).assignments.empty());
}

TEST(SobolSearchTest, RejectsBadSettingsAndState) {
  SobolSearch sobol;
  api::ExperimentSpec spec = SobolSpec({DoubleParam("x", 0, 1)}, "abc");
  EXPECT_EQ(sobol.Validate(spec).message(),
            "algorithm.algorithmSettings[0].value: random_state must be an "
            "integer, got 'abc'");
  spec.algorithm.settings = {{"n_initial_points", "3"}};
  EXPECT_EQ(sobol.Validate(spec).code(), StatusCode::kInvalidArgument);
  spec.algorithm.settings.clear();
  EXPECT_EQ(sobol.Suggest(spec, {}, "garbage", 1).status().code(),
            StatusCode::kInternal);
  spec.parameters.clear();
  EXPECT_TRUE(sobol.Validate(spec).ok());  // define-by-run: the trials define them
  spec.trial_template.emplace();
  EXPECT_EQ(sobol.Validate(spec).code(), StatusCode::kInvalidArgument);
}

}  // namespace
}  // namespace hpt::suggestion
