#include "suggestion/random_search.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <map>
#include <set>
#include <string>
#include <vector>

#include "api/spec_codec.h"
#include "suggestion/search_space.h"
#include "tests/suggestion/spec_builders.h"

namespace hpt::suggestion {
namespace {

using api::ParameterType;
using testing::DoubleParam;
using testing::IntParam;
using testing::ListParam;
using testing::MakeSpec;
using testing::TrialsFor;

api::ExperimentSpec RandomSpec(std::vector<api::ParameterSpec> parameters,
                               std::string seed = "7") {
  std::vector<api::AlgorithmSetting> settings;
  if (!seed.empty()) settings.push_back({"random_state", seed});
  return MakeSpec("random", std::move(parameters), std::move(settings));
}

// The values of parameter `i` over `count` suggestions from an empty history.
std::vector<std::string> Draw(const api::ExperimentSpec& spec, int count,
                              size_t i = 0) {
  RandomSearch random;
  StatusOr<Suggestion> s = random.Suggest(spec, {}, "", count);
  EXPECT_TRUE(s.ok()) << s.status().ToString();
  std::vector<std::string> values;
  if (!s.ok()) return values;
  for (const api::Assignment& a : s->assignments) {
    EXPECT_EQ(a.size(), spec.parameters.size());
    EXPECT_EQ(a[i].name, spec.parameters[i].name);
    values.push_back(a[i].value);
  }
  return values;
}

double Parse(const std::string& text) {
  char* end = nullptr;
  double value = std::strtod(text.c_str(), &end);
  EXPECT_EQ(end, text.c_str() + text.size()) << "not a number: " << text;
  return value;
}

TEST(RandomSearchTest, DoubleIsWithinBoundsAndFormatted) {
  std::vector<std::string> values =
      Draw(RandomSpec({DoubleParam("lr", 0.5, 2.5)}), 500);
  ASSERT_EQ(values.size(), 500u);
  double lowest = 3, highest = 0;
  for (const std::string& v : values) {
    double x = Parse(v);
    EXPECT_GE(x, 0.5);
    EXPECT_LE(x, 2.5);
    EXPECT_EQ(api::FormatDouble(x), v);
    lowest = std::min(lowest, x);
    highest = std::max(highest, x);
  }
  // Spread over the range, not stuck at one end.
  EXPECT_LT(lowest, 0.7);
  EXPECT_GT(highest, 2.3);
}

TEST(RandomSearchTest, LogUniformIsUniformInLogSpace) {
  std::vector<std::string> values =
      Draw(RandomSpec({DoubleParam("lr", 1e-4, 1, std::nullopt,
                                   api::Distribution::kLogUniform)}),
           2000);
  int below_geometric_mean = 0;
  for (const std::string& v : values) {
    double x = Parse(v);
    EXPECT_GE(x, 1e-4);
    EXPECT_LE(x, 1);
    if (x < 1e-2) ++below_geometric_mean;
  }
  // Uniform sampling would put about 1% below 0.01.
  EXPECT_GT(below_geometric_mean, 800);
  EXPECT_LT(below_geometric_mean, 1200);
}

TEST(RandomSearchTest, IntIsAnIntegerInRange) {
  std::vector<std::string> values =
      Draw(RandomSpec({IntParam("layers", -3, 3)}), 300);
  std::set<std::string> seen(values.begin(), values.end());
  EXPECT_EQ(seen,
            (std::set<std::string>{"-3", "-2", "-1", "0", "1", "2", "3"}));
}

TEST(RandomSearchTest, IntHonoursStep) {
  std::vector<std::string> values =
      Draw(RandomSpec({IntParam("batch", 1, 11, 3)}), 200);
  std::set<std::string> seen(values.begin(), values.end());
  EXPECT_EQ(seen, (std::set<std::string>{"1", "4", "7", "10"}));
}

TEST(RandomSearchTest, IntLogUniformFavoursSmallValues) {
  std::vector<std::string> values =
      Draw(RandomSpec({IntParam("units", 1, 100000, std::nullopt,
                                api::Distribution::kLogUniform)}),
           400);
  int small = 0;
  for (const std::string& v : values) {
    EXPECT_EQ(v.find('.'), std::string::npos) << v;
    double x = Parse(v);
    EXPECT_GE(x, 1);
    EXPECT_LE(x, 100000);
    if (x <= 316) ++small;
  }
  // Log-uniform puts half the mass there, uniform 0.3%. Fewer than half
  // land there because the few small integers, once used, are not repeated.
  EXPECT_GT(small, 80);
  EXPECT_LT(small, 260);
}

TEST(RandomSearchTest, DoubleWithStepStaysOnTheGrid) {
  std::vector<std::string> values =
      Draw(RandomSpec({DoubleParam("dropout", 0, 0.5, 0.1)}), 200);
  std::set<std::string> seen(values.begin(), values.end());
  EXPECT_EQ(seen,
            (std::set<std::string>{"0", "0.1", "0.2", "0.3", "0.4", "0.5"}));
}

// One value from each of `count` seeds: draws with repeats, which a finite
// space's batch avoids.
std::vector<double> DrawEachSeed(const api::ParameterSpec& p, int count) {
  std::vector<double> values;
  for (int seed = 0; seed < count; ++seed) {
    std::vector<std::string> one = Draw(RandomSpec({p}, std::to_string(seed)), 1);
    if (one.size() == 1) values.push_back(Parse(one[0]));
  }
  return values;
}

TEST(RandomSearchTest, NormalConcentratesAroundTheCentreWithinBounds) {
  std::vector<std::string> values = Draw(
      RandomSpec({DoubleParam("x", 0, 6, std::nullopt, api::Distribution::kNormal)}), 4000);
  double sum = 0, sum2 = 0;
  int within_one_sigma = 0;
  for (const std::string& v : values) {
    double x = Parse(v);
    ASSERT_GE(x, 0);
    ASSERT_LE(x, 6);
    sum += x;
    sum2 += x * x;
    within_one_sigma += std::fabs(x - 3) <= 1;
  }
  double mean = sum / 4000, sd = std::sqrt(sum2 / 4000 - mean * mean);
  EXPECT_NEAR(mean, 3, 0.06);
  // sigma = 6 / 6; truncating at +-3 sigma leaves 0.9866 of it.
  EXPECT_NEAR(sd, 0.9866, 0.04);
  // 68.5% within one sigma (uniform: 33%).
  EXPECT_NEAR(within_one_sigma / 4000.0, 0.6845, 0.03);
}

TEST(RandomSearchTest, LogNormalIsNormalInLogSpaceAndPositive) {
  std::vector<std::string> values = Draw(
      RandomSpec({DoubleParam("lr", 1e-4, 1, std::nullopt, api::Distribution::kLogNormal)}),
      4000);
  double sum = 0, sum2 = 0;
  for (const std::string& v : values) {
    double x = Parse(v);
    ASSERT_GE(x, 1e-4);
    ASSERT_LE(x, 1);
    sum += std::log10(x);
    sum2 += std::log10(x) * std::log10(x);
  }
  double mean = sum / 4000, sd = std::sqrt(sum2 / 4000 - mean * mean);
  EXPECT_NEAR(mean, -2, 0.04);           // the geometric centre, 0.01
  EXPECT_NEAR(sd, 4.0 / 6 * 0.9866, 0.03);  // four decades are +-3 sigma
}

TEST(RandomSearchTest, IntNormalIsIntegralAndPeaksAtTheCentre) {
  std::vector<double> values =
      DrawEachSeed(IntParam("n", 0, 12, std::nullopt, api::Distribution::kNormal), 1500);
  ASSERT_EQ(values.size(), 1500u);
  std::map<int, int> counts;
  double sum = 0;
  for (double x : values) {
    ASSERT_EQ(x, std::floor(x));
    ASSERT_GE(x, 0);
    ASSERT_LE(x, 12);
    ++counts[static_cast<int>(x)];
    sum += x;
  }
  EXPECT_NEAR(sum / 1500, 6, 0.15);
  // sigma 2: P(6) = 19.8%, P(3) = 6.6%, P(0) = 0.16%.
  EXPECT_GT(counts[6], 220);
  EXPECT_GT(counts[6], 2 * counts[3]);
  EXPECT_GT(counts[3], 3 * counts[0]);
  EXPECT_LT(counts[0], 20);
}

// Katib's hyperopt-distribution example: batch_size in [32, 64] logNormal.
TEST(RandomSearchTest, IntLogNormalCentresOnTheGeometricMean) {
  std::vector<double> values = DrawEachSeed(
      IntParam("batch_size", 32, 64, std::nullopt, api::Distribution::kLogNormal), 1000);
  ASSERT_EQ(values.size(), 1000u);
  std::sort(values.begin(), values.end());
  for (double x : values) {
    ASSERT_EQ(x, std::floor(x));
    ASSERT_GE(x, 32);
    ASSERT_LE(x, 64);
  }
  EXPECT_NEAR(values[500], 45, 1.0);  // sqrt(32 * 64) = 45.25
  EXPECT_NEAR(values[160], 45.25 / std::pow(2.0, 1.0 / 6), 1.5);  // one sigma below
}

// Katib's hyperopt-distribution example: lr normal on a 0.01 step grid.
TEST(RandomSearchTest, NormalWithStepStaysOnTheGrid) {
  std::vector<double> values = DrawEachSeed(
      DoubleParam("lr", 0.01, 0.05, 0.01, api::Distribution::kNormal), 1000);
  std::map<std::string, int> counts;
  for (double x : values) ++counts[api::FormatDouble(x)];
  EXPECT_EQ(counts.size(), 5u);
  for (const auto& [value, n] : counts) {
    EXPECT_TRUE(value == "0.01" || value == "0.02" || value == "0.03" ||
                value == "0.04" || value == "0.05")
        << value;
  }
  // sigma is 2/3 of a step: the centre takes 55%, its neighbours 21% each,
  // each end 1%.
  EXPECT_GT(counts["0.03"], counts["0.02"]);
  EXPECT_GT(counts["0.02"], 2 * counts["0.01"]);
  EXPECT_GT(counts["0.04"], 2 * counts["0.05"]);
}

TEST(RandomSearchTest, DiscreteValuesAreReturnedAsWritten) {
  std::vector<std::string> list = {"0.10", "1e-3", "2"};
  std::vector<std::string> values =
      Draw(RandomSpec({ListParam(ParameterType::kDiscrete, "wd", list)}), 3);
  EXPECT_EQ(std::set<std::string>(values.begin(), values.end()),
            std::set<std::string>(list.begin(), list.end()));
}

TEST(RandomSearchTest, CategoricalReturnsListEntries) {
  std::vector<std::string> list = {"sgd", "adam", "rmsprop", "ftrl"};
  std::vector<std::string> values = Draw(
      RandomSpec({DoubleParam("lr", 0, 1),
                  ListParam(ParameterType::kCategorical, "optimizer", list)}),
      200, 1);
  EXPECT_EQ(std::set<std::string>(values.begin(), values.end()),
            std::set<std::string>(list.begin(), list.end()));
}

TEST(RandomSearchTest, SameSeedAndHistoryGiveSameSuggestions) {
  api::ExperimentSpec spec =
      RandomSpec({DoubleParam("lr", 1e-5, 1e-1, std::nullopt,
                              api::Distribution::kLogUniform),
                  IntParam("layers", 1, 100)},
                 "42");
  std::vector<api::Trial> history = TrialsFor({{{"lr", "0.01"}}});
  RandomSearch a, b;
  StatusOr<Suggestion> first = a.Suggest(spec, history, "", 5);
  StatusOr<Suggestion> second = b.Suggest(spec, history, "", 5);
  ASSERT_TRUE(first.ok() && second.ok());
  EXPECT_EQ(first->assignments.size(), 5u);
  for (size_t i = 0; i < 5; ++i) {
    EXPECT_EQ(first->assignments[i][0].value, second->assignments[i][0].value);
    EXPECT_EQ(first->assignments[i][1].value, second->assignments[i][1].value);
  }

  api::ExperimentSpec other_seed = spec;
  other_seed.algorithm.settings[0].value = "43";
  StatusOr<Suggestion> third = a.Suggest(other_seed, history, "", 5);
  ASSERT_TRUE(third.ok());
  EXPECT_NE(first->assignments[0][0].value, third->assignments[0][0].value);

  // A longer history means a later call: fresh values, not a replay.
  StatusOr<Suggestion> later = a.Suggest(spec, TrialsFor({{}, {}}), "", 5);
  ASSERT_TRUE(later.ok());
  EXPECT_NE(first->assignments[0][0].value, later->assignments[0][0].value);
}

TEST(RandomSearchTest, UnseededCallsStillSample) {
  std::vector<std::string> values =
      Draw(RandomSpec({DoubleParam("lr", 0, 1)}, ""), 10);
  EXPECT_EQ(values.size(), 10u);
}

TEST(RandomSearchTest, SmallSpaceHasNoDuplicatesAndRunsOut) {
  api::ExperimentSpec spec = RandomSpec(
      {ListParam(ParameterType::kCategorical, "opt", {"sgd", "adam"}),
       IntParam("layers", 1, 3)});
  RandomSearch random;
  StatusOr<Suggestion> first = random.Suggest(spec, {}, "", 4);
  ASSERT_TRUE(first.ok());
  EXPECT_EQ(first->assignments.size(), 4u);
  EXPECT_FALSE(first->exhausted);

  std::vector<api::Trial> history = TrialsFor(first->assignments);
  StatusOr<Suggestion> rest = random.Suggest(spec, history, "", 5);
  ASSERT_TRUE(rest.ok());
  EXPECT_EQ(rest->assignments.size(), 2u);
  EXPECT_TRUE(rest->exhausted);

  std::set<std::string> keys;
  for (const api::Trial& t : history) {
    keys.insert(AssignmentKey(spec.parameters, t.assignment));
  }
  for (const api::Assignment& a : rest->assignments) {
    keys.insert(AssignmentKey(spec.parameters, a));
  }
  EXPECT_EQ(keys.size(), 6u);

  for (const api::Assignment& a : rest->assignments) {
    history.push_back(TrialsFor({a})[0]);
  }
  StatusOr<Suggestion> none = random.Suggest(spec, history, "", 3);
  ASSERT_TRUE(none.ok());
  EXPECT_TRUE(none->assignments.empty());
  EXPECT_TRUE(none->exhausted);
}

TEST(RandomSearchTest, BatchTakingTheLastPointsIsExhausted) {
  api::ExperimentSpec spec = RandomSpec({IntParam("x", 1, 6)});
  RandomSearch random;
  StatusOr<Suggestion> all = random.Suggest(spec, {}, "", 6);
  ASSERT_TRUE(all.ok());
  std::set<std::string> values;
  for (const api::Assignment& a : all->assignments) values.insert(a[0].value);
  EXPECT_EQ(values.size(), 6u);
  EXPECT_TRUE(all->exhausted);
}

TEST(RandomSearchTest, ContinuousSpaceIsNeverExhausted) {
  RandomSearch random;
  StatusOr<Suggestion> s =
      random.Suggest(RandomSpec({DoubleParam("x", 0, 1)}), {}, "", 3);
  ASSERT_TRUE(s.ok());
  EXPECT_FALSE(s->exhausted);
  EXPECT_TRUE(s->state.empty());
}

TEST(RandomSearchTest, ValidateRejectsUnknownSetting) {
  api::ExperimentSpec spec = MakeSpec("random", {DoubleParam("x", 0, 1)},
                                      {{"random_state", "1"}, {"foo", "2"}});
  Status status = RandomSearch().Validate(spec);
  EXPECT_EQ(status.code(), StatusCode::kInvalidArgument);
  EXPECT_EQ(status.message(),
            "algorithm.algorithmSettings[1].name: unknown setting 'foo' for "
            "random (supported: random_state)");
}

TEST(RandomSearchTest, ValidateRejectsNonIntegerRandomState) {
  for (const char* bad : {"1.5", "abc", "", "12x", "99999999999999999999"}) {
    api::ExperimentSpec spec =
        MakeSpec("random", {DoubleParam("x", 0, 1)}, {{"random_state", bad}});
    Status status = RandomSearch().Validate(spec);
    EXPECT_EQ(status.code(), StatusCode::kInvalidArgument) << bad;
    EXPECT_EQ(
        status.message().rfind("algorithm.algorithmSettings[0].value: ", 0), 0u)
        << status.message();
  }
  for (const char* good : {"0", "-3", " 12 ", "+5"}) {
    api::ExperimentSpec spec =
        MakeSpec("random", {DoubleParam("x", 0, 1)}, {{"random_state", good}});
    EXPECT_TRUE(RandomSearch().Validate(spec).ok()) << good;
  }
}

TEST(RandomSearchTest, SuggestRejectsAnInvalidSpec) {
  api::ExperimentSpec spec =
      MakeSpec("random", {DoubleParam("x", 0, 1), DoubleParam("y", 2, 1)});
  StatusOr<Suggestion> s = RandomSearch().Suggest(spec, {}, "", 1);
  ASSERT_FALSE(s.ok());
  EXPECT_EQ(s.status().message(),
            "parameters[1].feasibleSpace: min 2 is above max 1");
}

}  // namespace
}  // namespace hpt::suggestion
