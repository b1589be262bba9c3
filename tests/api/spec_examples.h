#pragma once
// Specs shared by the api tests: the full example of issue 2 as YAML and
// as JSON, and a small valid spec built in code.

#include <nlohmann/json.hpp>
#include <string>

#include "api/spec_codec.h"
#include "api/types.h"

namespace hpt::api::testing {

// Every field of the spec format, with numbers given as strings (Katib).
inline constexpr const char* kFullYaml = R"(
name: branin-random            # lowercase DNS label, <= 63 chars, unique
objective: {type: minimize, objectiveMetricName: loss, goal: 0.4, additionalMetricNames: [acc]}
algorithm: {algorithmName: random, algorithmSettings: [{name: random_state, value: "7"}]}
parallelTrialCount: 3          # default 3
maxTrialCount: 12              # required
maxFailedTrialCount: 3         # default 3
parameters:
  - {name: x, parameterType: double, feasibleSpace: {min: "-5", max: "10"}}
  - {name: lr, parameterType: double, feasibleSpace: {min: "1e-5", max: "1e-1", distribution: logUniform}}
  - {name: layers, parameterType: int, feasibleSpace: {min: "1", max: "8", step: "1"}}
  - {name: batch, parameterType: discrete, feasibleSpace: {list: ["16", "32", "64"]}}
  - {name: opt, parameterType: categorical, feasibleSpace: {list: [sgd, adam]}}
trialTemplate:                 # optional; absent = client-run (ask/tell) experiment
  command: [python3, train.py, "--x=${trialParameters.x}"]   # argv, no shell
  trialParameters: [{name: x, reference: x}]
  workingDir: .                # relative to the spec file
  env: {KEY: value}
  resources: {gpu: 0}
  timeoutSeconds: 600
metricsCollectorSpec: {collector: {kind: StdOut}}   # StdOut (default) | File | Push | None
)";

// The same spec as JSON with numbers as JSON numbers.
inline constexpr const char* kFullJson = R"({
  "name": "branin-random",
  "objective": {"type": "minimize", "objectiveMetricName": "loss", "goal": 0.4,
                "additionalMetricNames": ["acc"]},
  "algorithm": {"algorithmName": "random",
                "algorithmSettings": [{"name": "random_state", "value": 7}]},
  "parallelTrialCount": 3,
  "maxTrialCount": 12,
  "maxFailedTrialCount": 3,
  "parameters": [
    {"name": "x", "parameterType": "double", "feasibleSpace": {"min": -5, "max": 10}},
    {"name": "lr", "parameterType": "double",
     "feasibleSpace": {"min": 1e-5, "max": 1e-1, "distribution": "logUniform"}},
    {"name": "layers", "parameterType": "int", "feasibleSpace": {"min": 1, "max": 8, "step": 1}},
    {"name": "batch", "parameterType": "discrete", "feasibleSpace": {"list": [16, 32, 64]}},
    {"name": "opt", "parameterType": "categorical", "feasibleSpace": {"list": ["sgd", "adam"]}}
  ],
  "trialTemplate": {
    "command": ["python3", "train.py", "--x=${trialParameters.x}"],
    "trialParameters": [{"name": "x", "reference": "x"}],
    "workingDir": ".",
    "env": {"KEY": "value"},
    "resources": {"gpu": 0},
    "timeoutSeconds": 600
  },
  "metricsCollectorSpec": {"collector": {"kind": "StdOut"}}
})";

// A small valid spec: one double parameter x used by the command.
inline ExperimentSpec ValidSpec() {
  ExperimentSpec spec;
  spec.name = "valid";
  spec.objective.metric_name = "loss";
  spec.algorithm.name = "random";
  spec.max_trial_count = 10;
  spec.parallel_trial_count = 2;
  spec.max_failed_trial_count = 1;
  ParameterSpec x;
  x.name = "x";
  x.feasible_space.min = 0;
  x.feasible_space.max = 1;
  spec.parameters.push_back(x);
  TrialTemplate t;
  t.command = {"python3", "train.py", "--x=${trialParameters.x}"};
  t.trial_parameters = {{"x", "x", ""}};
  spec.trial_template = t;
  return spec;
}

// kFullJson, parsed.
inline nlohmann::json FullJson() { return nlohmann::json::parse(kFullJson); }

// Decodes `j` and returns the error message ("" when it decoded).
inline std::string DecodeError(const nlohmann::json& j) {
  auto spec = SpecFromJson(j);
  return spec.ok() ? "" : spec.status().message();
}

}  // namespace hpt::api::testing
