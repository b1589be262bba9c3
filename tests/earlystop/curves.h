#pragma once
// Hand-made learning curves and specs for the early-stopping tests.

#include <cstdint>
#include <string>
#include <vector>

#include "api/types.h"
#include "earlystop/policy.h"

namespace hpt::earlystop::testing {

// A curve with values at steps first_step, first_step + 1, ...
inline TrialCurve Curve(std::string name, api::TrialPhase phase,
                        std::vector<double> values, int64_t first_step = 1) {
  TrialCurve curve{std::move(name), phase, {}};
  for (size_t i = 0; i < values.size(); ++i) {
    curve.points.push_back({first_step + static_cast<int64_t>(i), values[i]});
  }
  return curve;
}

inline TrialCurve Running(std::string name, std::vector<double> values) {
  return Curve(std::move(name), api::TrialPhase::kRunning, std::move(values));
}

inline TrialCurve Succeeded(std::string name, std::vector<double> values) {
  return Curve(std::move(name), api::TrialPhase::kSucceeded, std::move(values));
}

inline api::ExperimentSpec StopSpec(
    std::string policy, std::vector<api::AlgorithmSetting> settings = {},
    api::ObjectiveType type = api::ObjectiveType::kMinimize) {
  api::ExperimentSpec spec;
  spec.name = "test";
  spec.objective.type = type;
  spec.objective.metric_name = "loss";
  spec.algorithm.name = "random";
  spec.early_stopping.name = std::move(policy);
  spec.early_stopping.settings = std::move(settings);
  return spec;
}

}  // namespace hpt::earlystop::testing
