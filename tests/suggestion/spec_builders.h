#pragma once
// Small builders for the specs and histories the suggestion tests feed to
// algorithms.

#include <optional>
#include <string>
#include <vector>

#include "api/types.h"

namespace hpt::suggestion::testing {

inline api::ParameterSpec DoubleParam(
    std::string name, double min, double max,
    std::optional<double> step = std::nullopt,
    api::Distribution distribution = api::Distribution::kUniform) {
  api::ParameterSpec p;
  p.name = std::move(name);
  p.type = api::ParameterType::kDouble;
  p.feasible_space.min = min;
  p.feasible_space.max = max;
  p.feasible_space.step = step;
  p.feasible_space.distribution = distribution;
  return p;
}

inline api::ParameterSpec IntParam(
    std::string name, double min, double max,
    std::optional<double> step = std::nullopt,
    api::Distribution distribution = api::Distribution::kUniform) {
  api::ParameterSpec p =
      DoubleParam(std::move(name), min, max, step, distribution);
  p.type = api::ParameterType::kInt;
  return p;
}

inline api::ParameterSpec ListParam(api::ParameterType type, std::string name,
                                    std::vector<std::string> list) {
  api::ParameterSpec p;
  p.name = std::move(name);
  p.type = type;
  p.feasible_space.list = std::move(list);
  return p;
}

inline api::ExperimentSpec MakeSpec(
    std::string algorithm, std::vector<api::ParameterSpec> parameters,
    std::vector<api::AlgorithmSetting> settings = {}) {
  api::ExperimentSpec spec;
  spec.name = "test";
  spec.objective.metric_name = "loss";
  spec.algorithm.name = std::move(algorithm);
  spec.algorithm.settings = std::move(settings);
  spec.parameters = std::move(parameters);
  return spec;
}

// lr in [0, 1], epochs the resource: r_l 9, eta 3 give brackets
// 9x1 3x3 1x9 | 5x3 1x9 | 3x9.
inline api::ExperimentSpec HyperbandSpec(
    std::vector<api::AlgorithmSetting> settings = {
        {"resource_name", "epochs"}, {"r_l", "9"}, {"random_state", "1"}}) {
  return MakeSpec("hyperband",
                  {DoubleParam("lr", 0, 1), IntParam("epochs", 1, 81)},
                  std::move(settings));
}

// One trial per assignment, as the server would create them.
inline std::vector<api::Trial> TrialsFor(
    const std::vector<api::Assignment>& assignments) {
  std::vector<api::Trial> trials;
  for (size_t i = 0; i < assignments.size(); ++i) {
    api::Trial t;
    t.name = "test-" + std::to_string(i);
    t.assignment = assignments[i];
    trials.push_back(std::move(t));
  }
  return trials;
}

}  // namespace hpt::suggestion::testing
