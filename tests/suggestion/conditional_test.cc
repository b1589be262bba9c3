// Every algorithm on conditional search spaces (api/conditions.h): a
// suggestion holds exactly the parameters active under its own values,
// each in its feasible space; histories whose trials lack inactive
// parameters (or carry them, made by hand) never make an algorithm fail;
// a seed repeats a run; finite spaces end without repeating a
// configuration.
#include <gtest/gtest.h>

#include <cmath>
#include <map>
#include <memory>
#include <optional>
#include <random>
#include <set>
#include <string>
#include <vector>

#include "api/conditions.h"
#include "suggestion/algorithm.h"
#include "suggestion/search_space.h"
#include "suggestion/unit_cube.h"
#include "tests/suggestion/conditional_spaces.h"

namespace hpt::suggestion {
namespace {

using testing::ExpectValidAssignment;

double Number(const api::Assignment& a, const std::string& name, double missing = 0) {
  const std::string* v = api::FindValue(a, name);
  return v ? std::strtod(v->c_str(), nullptr) : missing;
}

std::string ConditionalText(const api::Assignment& a) {
  std::string out;
  for (const auto& v : a) out += v.name + "=" + v.value + " ";
  return out;
}

// Smallest at x = 0.3, y = 5, sgd with momentum 0.9 and nesterov.
double Loss(const api::Assignment& a) {
  double loss = std::pow(Number(a, "x") - 0.3, 2) + 0.05 * std::abs(Number(a, "y") - 5);
  const std::string* opt = api::FindValue(a, "optimizer");
  if (opt && *opt == "sgd") {
    loss += std::pow(Number(a, "momentum") - 0.9, 2);
    const std::string* nesterov = api::FindValue(a, "nesterov");
    loss += nesterov && *nesterov == "no" ? 0.1 + Number(a, "dampening") : 0;
  } else if (opt) {
    loss += 0.2 + std::pow(Number(a, "beta1") - 0.9, 2);
  }
  return loss + std::abs(Number(a, "width", 32) - 32) / 100 + Number(a, "lr") + Number(a, "batch");
}

api::ExperimentSpec ConditionalSpec(
    const std::string& algorithm, std::vector<api::ParameterSpec> parameters,
    std::vector<api::AlgorithmSetting> settings) {
  api::ExperimentSpec spec =
      testing::MakeSpec(algorithm, std::move(parameters), std::move(settings));
  spec.trial_template.emplace();  // pbt's checkpoints need one
  spec.trial_template->command = {"python3", "train.py"};
  return spec;
}

// Hand-made trials: one with every parameter (inactive ones too), one
// that lacks an active parameter (outside the space), both finished.
std::vector<api::Trial> ForeignTrials() {
  api::Trial full;
  full.name = "by-hand-1";
  full.assignment = {{"x", "0.5"},     {"y", "3"},        {"optimizer", "adam"},
                     {"momentum", "0.7"}, {"nesterov", "no"}, {"dampening", "0.01"},
                     {"beta1", "0.9"}, {"layers", "1"},   {"width", "16"}};
  full.phase = api::TrialPhase::kSucceeded;
  full.metrics.push_back({"loss", 1, 1, 1});
  api::Trial partial = full;
  partial.name = "by-hand-2";
  partial.assignment = {{"x", "0.5"}, {"y", "3"}, {"optimizer", "sgd"}, {"layers", "1"}};
  partial.phase = api::TrialPhase::kFailed;
  partial.metrics.clear();
  return {full, partial};
}

struct Outcome {
  std::vector<api::Assignment> suggested;
  bool exhausted = false;
};

// Plays the server: every suggestion becomes a trial that succeeds at
// once with Loss, and the state is handed back.
Outcome Drive(const api::ExperimentSpec& spec, int calls, int batch,
          std::vector<api::Trial> history = {}) {
  Registry<Algorithm> registry;
  RegisterBuiltins(registry);
  auto algorithm = registry.Create(spec.algorithm.name);
  EXPECT_TRUE(algorithm.ok());
  if (!algorithm.ok()) return {};
  Status valid = (*algorithm)->Validate(spec);
  EXPECT_TRUE(valid.ok()) << valid.ToString();
  Outcome run;
  std::string state;
  for (int call = 0; call < calls && !run.exhausted; ++call) {
    StatusOr<Suggestion> s = (*algorithm)->Suggest(spec, history, state, batch);
    EXPECT_TRUE(s.ok()) << spec.algorithm.name << ": " << s.status().ToString();
    if (!s.ok()) break;
    state = s->state;
    run.exhausted = s->exhausted;
    for (const api::Assignment& a : s->assignments) {
      ExpectValidAssignment(spec.parameters, a);
      run.suggested.push_back(a);
      api::Trial t;
      t.name = "t-" + std::to_string(history.size());
      t.assignment = a;
      t.phase = api::TrialPhase::kSucceeded;
      t.completion_time_ms = static_cast<int64_t>(history.size());
      const double loss = Loss(a);
      t.metrics.push_back({"loss", loss, loss, loss});
      history.push_back(std::move(t));
    }
  }
  return run;
}

struct Case {
  const char* algorithm;
  std::vector<api::AlgorithmSetting> settings;
};

std::vector<Case> Cases() {
  return {
      {"random", {{"random_state", "3"}}},
      {"sobol", {{"random_state", "3"}}},
      {"bayesianoptimization", {{"random_state", "3"}, {"n_initial_points", "6"}}},
      {"tpe", {{"random_state", "3"}, {"n_startup_trials", "6"}}},
      {"multivariate-tpe", {{"random_state", "3"}, {"n_startup_trials", "6"}}},
      {"cmaes", {{"random_state", "3"}}},
      {"hyperband", {{"resource_name", "y"}, {"r_l", "9"}, {"random_state", "3"}}},
      {"pbt", {{"n_population", "5"}, {"resample_probability", "0.5"}, {"random_state", "3"}}},
  };
}

class ConditionalAlgorithmTest : public ::testing::TestWithParam<Case> {};

TEST_P(ConditionalAlgorithmTest, SuggestsOnlyActiveParametersInTheirSpaces) {
  const Case& c = GetParam();
  const api::ExperimentSpec spec = ConditionalSpec(
      c.algorithm, testing::ConditionalParameters(), c.settings);
  const Outcome run = Drive(spec, 16, 2, ForeignTrials());
  ASSERT_GE(run.suggested.size(), 16u) << c.algorithm;
  // Each branch shows up: a conditional parameter is present when active.
  std::map<std::string, int> seen;
  for (const api::Assignment& a : run.suggested) {
    for (const auto& v : a) ++seen[v.name];
  }
  for (const char* name : {"momentum", "nesterov", "beta1", "width"}) {
    EXPECT_GT(seen[name], 0) << c.algorithm << " never made " << name << " active";
  }
  EXPECT_LT(seen["momentum"], static_cast<int>(run.suggested.size())) << c.algorithm;
}

TEST_P(ConditionalAlgorithmTest, ASeedRepeatsTheRun) {
  const Case& c = GetParam();
  const api::ExperimentSpec spec = ConditionalSpec(
      c.algorithm, testing::ConditionalParameters(), c.settings);
  const Outcome first = Drive(spec, 10, 2);
  const Outcome second = Drive(spec, 10, 2);
  ASSERT_EQ(first.suggested.size(), second.suggested.size());
  for (size_t i = 0; i < first.suggested.size(); ++i) {
    EXPECT_EQ(ConditionalText(first.suggested[i]),
              ConditionalText(second.suggested[i]))
        << c.algorithm << " #" << i;
  }
}

INSTANTIATE_TEST_SUITE_P(Algorithms, ConditionalAlgorithmTest, ::testing::ValuesIn(Cases()),
                         [](const ::testing::TestParamInfo<Case>& info) {
                           std::string name = info.param.algorithm;
                           for (char& ch : name) {
                             if (ch == '-') ch = '_';
                           }
                           return name;
                         });

// Finite conditional spaces end once every distinct active configuration
// was suggested, and none twice.
class FiniteConditionalTest : public ::testing::TestWithParam<Case> {};

TEST_P(FiniteConditionalTest, EndsWithoutRepeatingAConfiguration) {
  const Case& c = GetParam();
  const api::ExperimentSpec spec = ConditionalSpec(
      c.algorithm, testing::FiniteConditionalParameters(), c.settings);
  const Outcome run = Drive(spec, 60, 3);
  std::set<std::string> keys;
  for (const api::Assignment& a : run.suggested) {
    EXPECT_TRUE(keys.insert(AssignmentKey(spec.parameters, a)).second)
        << c.algorithm << " repeated " << ConditionalText(a);
  }
  EXPECT_TRUE(run.exhausted) << c.algorithm;
  EXPECT_EQ(keys.size(), static_cast<size_t>(testing::kFiniteConfigurations)) << c.algorithm;
}

INSTANTIATE_TEST_SUITE_P(
    Algorithms, FiniteConditionalTest,
    ::testing::Values(Case{"random", {{"random_state", "3"}}}, Case{"grid", {}},
                      Case{"sobol", {{"random_state", "3"}}},
                      Case{"bayesianoptimization", {{"random_state", "3"}}},
                      Case{"tpe", {{"random_state", "3"}, {"n_startup_trials", "6"}}},
                      Case{"multivariate-tpe", {{"random_state", "3"}, {"n_startup_trials", "6"}}},
                      Case{"cmaes", {{"random_state", "3"}}}),
    [](const ::testing::TestParamInfo<Case>& info) {
      std::string name = info.param.algorithm;
      for (char& ch : name) {
        if (ch == '-') ch = '_';
      }
      return name;
    });

TEST(HyperbandConditionalTest, TheResourceMustBeUnconditionalAndNoParent) {
  Registry<Algorithm> registry;
  RegisterBuiltins(registry);
  auto hyperband = registry.Create("hyperband");
  ASSERT_TRUE(hyperband.ok());
  api::ExperimentSpec spec =
      ConditionalSpec("hyperband", testing::ConditionalParameters(),
                      {{"resource_name", "width"}, {"r_l", "9"}});
  Status s = (*hyperband)->Validate(spec);
  EXPECT_EQ(s.code(), StatusCode::kInvalidArgument);
  EXPECT_NE(s.message().find("must not be a conditional parameter"), std::string::npos)
      << s.message();
  spec.algorithm.settings = {{"resource_name", "layers"}, {"r_l", "3"}};
  s = (*hyperband)->Validate(spec);
  EXPECT_NE(s.message().find("must not be the parent of 'width'"), std::string::npos)
      << s.message();
}

TEST(TpeConditionalTest, UsesOnlyTrialsWhereAParameterWasActive) {
  // momentum is good near 0.9 with sgd; adam trials (without momentum)
  // must not blur its model: after 40 trials sgd's momenta cluster near
  // the optimum.
  const api::ExperimentSpec spec = ConditionalSpec(
      "tpe", testing::ConditionalParameters(), {{"random_state", "5"}});
  const Outcome run = Drive(spec, 40, 1);
  std::vector<double> late;
  for (size_t i = 20; i < run.suggested.size(); ++i) {
    if (const std::string* m = api::FindValue(run.suggested[i], "momentum")) {
      late.push_back(std::strtod(m->c_str(), nullptr));
    }
  }
  ASSERT_FALSE(late.empty());
  double mean = 0;
  for (double m : late) mean += m / static_cast<double>(late.size());
  EXPECT_GT(mean, 0.75);
}

TEST(UnitCubeConditionalTest, InactiveParametersSitAtTheMidpoint) {
  const std::vector<api::ParameterSpec> params = testing::ConditionalParameters();
  const UnitCube cube(params);
  // x, y, optimizer (3), momentum, nesterov (2), dampening, beta1, layers, width.
  ASSERT_EQ(cube.dim(), 12);
  const api::Assignment adam = {
      {"x", "0.3"}, {"y", "4"}, {"optimizer", "adam"}, {"beta1", "0.9"}, {"layers", "1"}};
  std::optional<Eigen::VectorXd> x = cube.Encode(adam);
  ASSERT_TRUE(x.has_value());
  for (int inactive : {5, 6, 7, 8, 11}) EXPECT_EQ((*x)[inactive], 0.5) << inactive;
  EXPECT_EQ((*x)[3], 1);  // adam's one-hot coordinate
  std::string names;
  for (const auto& v : cube.Decode(*x)) names += v.name + " ";
  EXPECT_EQ(names, "x y optimizer beta1 layers ");
  // An active parameter without a value is outside the space, as before.
  EXPECT_FALSE(cube.Encode({{"x", "0.3"}, {"y", "4"}, {"optimizer", "sgd"}, {"layers", "1"}}));
  // Project is still Encode(Decode(x)).
  std::mt19937_64 rng(1);
  std::uniform_real_distribution<double> u(0, 1);
  for (int i = 0; i < 50; ++i) {
    Eigen::VectorXd p(cube.dim());
    for (int d = 0; d < cube.dim(); ++d) p[d] = u(rng);
    const api::Assignment a = cube.Decode(p);
    ExpectValidAssignment(params, a);
    std::optional<Eigen::VectorXd> round_trip = cube.Encode(a);
    ASSERT_TRUE(round_trip.has_value()) << ConditionalText(a);
    EXPECT_LT((cube.Project(p) - *round_trip).cwiseAbs().maxCoeff(), 1e-9)
        << ConditionalText(a);
  }
}

}  // namespace
}  // namespace hpt::suggestion
