#pragma once
// Experiment specs the server tests share.

#include <algorithm>
#include <string>

#include <nlohmann/json.hpp>

namespace hpt::testing {

// A runner-run experiment whose trial runs `sh -c script`; the script sees
// the parameter x (double in [0, 1]) as $X.
inline nlohmann::json ShellExperiment(const std::string& name, const std::string& script,
                                      int max_trials = 6, int parallel = 2) {
  return {{"name", name},
          {"objective", {{"type", "minimize"}, {"objectiveMetricName", "loss"}}},
          {"algorithm",
           {{"algorithmName", "random"},
            {"algorithmSettings", {{{"name", "random_state"}, {"value", "3"}}}}}},
          {"parallelTrialCount", parallel},
          {"maxTrialCount", max_trials},
          {"maxFailedTrialCount", std::min(3, max_trials)},
          {"parameters",
           {{{"name", "x"},
             {"parameterType", "double"},
             {"feasibleSpace", {{"min", "0"}, {"max", "1"}}}}}},
          {"trialTemplate",
           {{"command", {"sh", "-c", script}},
            {"trialParameters", {{{"name", "x"}, {"reference", "x"}}}},
            {"env", {{"X", "${trialParameters.x}"}}},
            {"workingDir", "/tmp"}}}};
}

// A client-run (ask/tell) experiment over x in [-5, 10] and y in [0, 15].
inline nlohmann::json ClientExperiment(const std::string& name, int max_trials = 10) {
  return {{"name", name},
          {"objective", {{"type", "minimize"}, {"objectiveMetricName", "loss"}}},
          {"algorithm", {{"algorithmName", "random"}}},
          {"parallelTrialCount", 4},
          {"maxTrialCount", max_trials},
          {"parameters",
           {{{"name", "x"},
             {"parameterType", "double"},
             {"feasibleSpace", {{"min", -5}, {"max", 10}}}},
            {{"name", "y"},
             {"parameterType", "double"},
             {"feasibleSpace", {{"min", 0}, {"max", 15}}}}}}};
}

}  // namespace hpt::testing
