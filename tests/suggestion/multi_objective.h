#pragma once
// Helpers for the multi-objective suggestion tests (nsga2, ParEGO): specs
// with several objectives, trials that report them, a two-objective test
// problem and the hypervolume of a history.

#include <gtest/gtest.h>

#include <cmath>
#include <functional>
#include <string>
#include <vector>

#include "api/pareto.h"
#include "api/types.h"
#include "suggestion/algorithm.h"
#include "tests/suggestion/spec_builders.h"

namespace hpt::suggestion::testing {

// Objectives f1 (minimise) and f2 (minimise, or maximise when asked).
inline api::ExperimentSpec MultiObjectiveSpec(
    std::string algorithm, std::vector<api::ParameterSpec> parameters,
    std::vector<api::AlgorithmSetting> settings = {},
    api::ObjectiveType second = api::ObjectiveType::kMinimize) {
  api::ExperimentSpec spec = MakeSpec(
      std::move(algorithm), std::move(parameters), std::move(settings));
  spec.objective.metric_name = "f1";
  spec.objective.more_objectives = {{"f2", second}};
  return spec;
}

inline api::Trial ReportingTrial(
    const api::Assignment& a, const std::vector<double>& values,
    api::TrialPhase phase = api::TrialPhase::kSucceeded) {
  static int64_t clock = 0;
  api::Trial t;
  t.name = "mo" + std::to_string(++clock);
  t.assignment = a;
  t.phase = phase;
  t.completion_time_ms = clock;
  for (size_t i = 0; i < values.size(); ++i) {
    const double v = values[i];
    t.metrics.push_back({"f" + std::to_string(i + 1), v, v, v});
  }
  return t;
}

inline double Number(const api::Assignment& a, const std::string& name) {
  return std::stod(*api::FindValue(a, name));
}

// ZDT1 on x0..x{n-1} in [0, 1]: f1 = x0, f2 = g (1 - sqrt(f1 / g)),
// g = 1 + 9 mean(x1..).
inline std::vector<double> Zdt1(const api::Assignment& a) {
  const double f1 = Number(a, "x0");
  double sum = 0;
  for (size_t i = 1; i < a.size(); ++i)
    sum += Number(a, "x" + std::to_string(i));
  const double g = 1 + 9 * sum / static_cast<double>(a.size() - 1);
  return {f1, g * (1 - std::sqrt(f1 / g))};
}

inline std::vector<api::ParameterSpec> UnitBox(int n) {
  std::vector<api::ParameterSpec> p;
  for (int i = 0; i < n; ++i)
    p.push_back(DoubleParam("x" + std::to_string(i), 0, 1));
  return p;
}

// Sequential ask/tell of `trials` trials on `f` (minimisation), the state
// handed back each time; the history.
inline std::vector<api::Trial> RunMultiObjective(
    Algorithm& algorithm, const api::ExperimentSpec& spec, int trials,
    const std::function<std::vector<double>(const api::Assignment&)>& f) {
  std::vector<api::Trial> history;
  std::string state;
  for (int i = 0; i < trials; ++i) {
    StatusOr<Suggestion> s = algorithm.Suggest(spec, history, state, 1);
    if (!s.ok() || s->assignments.empty()) {
      ADD_FAILURE() << (s.ok() ? "no suggestion" : s.status().ToString());
      break;
    }
    state = s->state;
    history.push_back(ReportingTrial(s->assignments[0], f(s->assignments[0])));
  }
  return history;
}

inline double HistoryHypervolume(const std::vector<api::Trial>& history,
                                 const api::Objective& objective,
                                 const std::vector<double>& reference) {
  std::vector<std::vector<double>> points;
  for (const api::Trial& t : history) {
    if (auto v = api::ObjectiveValues(t, objective)) points.push_back(*v);
  }
  return api::Hypervolume(points, reference);
}

}  // namespace hpt::suggestion::testing
