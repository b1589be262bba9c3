#include "suggestion/grid_search.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <string>
#include <vector>

#include "tests/suggestion/spec_builders.h"

namespace hpt::suggestion {
namespace {

using api::ParameterType;
using testing::DoubleParam;
using testing::IntParam;
using testing::ListParam;
using testing::MakeSpec;
using testing::TrialsFor;

// Each assignment's values joined by ",", one string per assignment.
std::vector<std::string> Rows(const std::vector<api::Assignment>& assignments) {
  std::vector<std::string> rows;
  for (const api::Assignment& a : assignments) {
    std::string row;
    for (const api::ParameterAssignment& p : a) {
      row += (row.empty() ? "" : ",") + p.value;
    }
    rows.push_back(row);
  }
  return rows;
}

Suggestion MustSuggest(const api::ExperimentSpec& spec, int count,
                       const std::vector<api::Trial>& history = {},
                       std::string_view state = "") {
  StatusOr<Suggestion> s = GridSearch().Suggest(spec, history, state, count);
  EXPECT_TRUE(s.ok()) << s.status().ToString();
  return s.ok() ? std::move(s).value() : Suggestion{};
}

TEST(GridSearchTest, FirstParameterVariesSlowest) {
  api::ExperimentSpec spec = MakeSpec(
      "grid", {ListParam(ParameterType::kCategorical, "opt", {"sgd", "adam"}),
               IntParam("layers", 1, 3)});
  Suggestion s = MustSuggest(spec, 100);
  EXPECT_EQ(Rows(s.assignments),
            (std::vector<std::string>{"sgd,1", "sgd,2", "sgd,3", "adam,1",
                                      "adam,2", "adam,3"}));
  EXPECT_EQ(s.assignments[0][0].name, "opt");
  EXPECT_EQ(s.assignments[0][1].name, "layers");
  EXPECT_TRUE(s.exhausted);
}

TEST(GridSearchTest, DoubleStepsWithoutFloatingNoise) {
  Suggestion s =
      MustSuggest(MakeSpec("grid", {DoubleParam("x", 0, 1, 0.1)}), 100);
  EXPECT_EQ(Rows(s.assignments),
            (std::vector<std::string>{"0", "0.1", "0.2", "0.3", "0.4", "0.5",
                                      "0.6", "0.7", "0.8", "0.9", "1"}));
}

// -0.3 + 3 * 0.1 is 5.6e-17 in doubles; the trial must get 0.
TEST(GridSearchTest, DoubleStepsCrossZeroExactly) {
  Suggestion s =
      MustSuggest(MakeSpec("grid", {DoubleParam("x", -0.3, 0.3, 0.1)}), 100);
  EXPECT_EQ(Rows(s.assignments),
            (std::vector<std::string>{"-0.3", "-0.2", "-0.1", "0", "0.1",
                                      "0.2", "0.3"}));
  for (double min : {-0.7, -1.1, -2.3}) {
    Suggestion wide =
        MustSuggest(MakeSpec("grid", {DoubleParam("x", min, 1, 0.1)}), 100);
    std::vector<std::string> rows = Rows(wide.assignments);
    EXPECT_NE(std::find(rows.begin(), rows.end(), "0"), rows.end()) << min;
    for (const std::string& row : rows) EXPECT_LE(row.size(), 4u) << row;
  }
  // A point truly near zero, off the float noise, keeps its value.
  Suggestion near = MustSuggest(
      MakeSpec("grid", {DoubleParam("x", -0.30000000001, 0, 0.1)}), 100);
  EXPECT_EQ(Rows(near.assignments).back(), "-1e-11");
}

TEST(GridSearchTest, DoubleStepStopsAtOrBeforeMax) {
  Suggestion s =
      MustSuggest(MakeSpec("grid", {DoubleParam("x", 0.5, 1, 0.2)}), 100);
  EXPECT_EQ(Rows(s.assignments),
            (std::vector<std::string>{"0.5", "0.7", "0.9"}));
}

TEST(GridSearchTest, LogUniformDoubleUsesLinearSteps) {
  Suggestion s = MustSuggest(
      MakeSpec("grid", {DoubleParam("lr", 0.001, 0.004, 0.001,
                                    api::Distribution::kLogUniform)}),
      100);
  EXPECT_EQ(Rows(s.assignments),
            (std::vector<std::string>{"0.001", "0.002", "0.003", "0.004"}));
}

TEST(GridSearchTest, IntStepDefaultsToOne) {
  Suggestion s = MustSuggest(MakeSpec("grid", {IntParam("n", -1, 2)}), 100);
  EXPECT_EQ(Rows(s.assignments),
            (std::vector<std::string>{"-1", "0", "1", "2"}));
  Suggestion stepped =
      MustSuggest(MakeSpec("grid", {IntParam("n", 16, 64, 16)}), 100);
  EXPECT_EQ(Rows(stepped.assignments),
            (std::vector<std::string>{"16", "32", "48", "64"}));
}

TEST(GridSearchTest, DiscreteValuesAsWritten) {
  Suggestion s = MustSuggest(
      MakeSpec("grid",
               {ListParam(ParameterType::kDiscrete, "wd", {"1e-4", "0.010"})}),
      100);
  EXPECT_EQ(Rows(s.assignments), (std::vector<std::string>{"1e-4", "0.010"}));
}

TEST(GridSearchTest, BatchesCarryThePositionInState) {
  api::ExperimentSpec spec = MakeSpec("grid", {IntParam("n", 1, 5)});
  Suggestion first = MustSuggest(spec, 2);
  EXPECT_EQ(Rows(first.assignments), (std::vector<std::string>{"1", "2"}));
  EXPECT_FALSE(first.exhausted);

  std::vector<api::Trial> history = TrialsFor(first.assignments);
  Suggestion second = MustSuggest(spec, 2, history, first.state);
  EXPECT_EQ(Rows(second.assignments), (std::vector<std::string>{"3", "4"}));
  EXPECT_FALSE(second.exhausted);

  for (const auto& a : second.assignments) history.push_back(TrialsFor({a})[0]);
  Suggestion last = MustSuggest(spec, 2, history, second.state);
  EXPECT_EQ(Rows(last.assignments), (std::vector<std::string>{"5"}));
  EXPECT_TRUE(last.exhausted);

  history.push_back(TrialsFor(last.assignments)[0]);
  Suggestion none = MustSuggest(spec, 2, history, last.state);
  EXPECT_TRUE(none.assignments.empty());
  EXPECT_TRUE(none.exhausted);
}

TEST(GridSearchTest, ExactBatchIsExhausted) {
  Suggestion s = MustSuggest(MakeSpec("grid", {IntParam("n", 1, 3)}), 3);
  EXPECT_EQ(s.assignments.size(), 3u);
  EXPECT_TRUE(s.exhausted);
}

TEST(GridSearchTest, SkipsPointsAlreadyInHistory) {
  api::ExperimentSpec spec = MakeSpec("grid", {IntParam("n", 1, 4)});
  std::vector<api::Trial> history =
      TrialsFor({{{"n", "1"}}, {{"n", "3"}}});  // 3 added by hand
  Suggestion s = MustSuggest(spec, 10, history);
  EXPECT_EQ(Rows(s.assignments), (std::vector<std::string>{"2", "4"}));
  EXPECT_TRUE(s.exhausted);
}

TEST(GridSearchTest, UnreadableStateIsInternal) {
  StatusOr<Suggestion> s = GridSearch().Suggest(
      MakeSpec("grid", {IntParam("n", 1, 4)}), {}, "banana", 1);
  ASSERT_FALSE(s.ok());
  EXPECT_EQ(s.status().code(), StatusCode::kInternal);
}

TEST(GridSearchTest, ValidateNeedsStepForDouble) {
  Status status = GridSearch().Validate(
      MakeSpec("grid", {IntParam("n", 1, 4), DoubleParam("lr", 0, 1)}));
  EXPECT_EQ(status.code(), StatusCode::kInvalidArgument);
  EXPECT_EQ(status.message(),
            "parameters[1].feasibleSpace.step: grid needs a step for double "
            "parameters");
}

TEST(GridSearchTest, ValidateRejectsAnySetting) {
  Status status = GridSearch().Validate(
      MakeSpec("grid", {IntParam("n", 1, 4)}, {{"random_state", "1"}}));
  EXPECT_EQ(status.code(), StatusCode::kInvalidArgument);
  EXPECT_EQ(status.message(),
            "algorithm.algorithmSettings[0].name: unknown setting "
            "'random_state' for grid (grid accepts no settings)");
}

TEST(GridSearchTest, ValidateRejectsHugeGrids) {
  Status status = GridSearch().Validate(
      MakeSpec("grid", {IntParam("a", 1, 10000), IntParam("b", 1, 10000)}));
  EXPECT_EQ(status.code(), StatusCode::kInvalidArgument);
  EXPECT_EQ(status.message(),
            "parameters: the grid has 100000000 points, more than grid's "
            "limit of 10000000; use larger steps or fewer values");

  Status overflow = GridSearch().Validate(
      MakeSpec("grid", {DoubleParam("a", 0, 1, 1e-300), IntParam("b", 1, 10)}));
  EXPECT_EQ(overflow.code(), StatusCode::kInvalidArgument);
  EXPECT_NE(overflow.message().find("more than 9223372036854775807 points"),
            std::string::npos)
      << overflow.message();

  EXPECT_TRUE(GridSearch()
                  .Validate(MakeSpec("grid", {IntParam("a", 1, 10000),
                                              IntParam("b", 1, 1000)}))
                  .ok());
}

TEST(GridSearchTest, ValidateNeedsParameters) {
  Status status = GridSearch().Validate(MakeSpec("grid", {}));
  EXPECT_EQ(status.code(), StatusCode::kInvalidArgument);
  EXPECT_EQ(status.message(), "parameters: grid needs at least one parameter");
}

}  // namespace
}  // namespace hpt::suggestion
