#pragma once
// The REST API's JSON forms of trials, observations and experiments (the
// contract clients and the dashboard rely on; see the README's REST API section).

#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "api/types.h"

namespace hpt::api {

nlohmann::json AssignmentToJson(const Assignment& assignment);
// With "objectiveValue" (ObjectiveValue under `objective`, or null) and
// "index" (trial.index), so clients need not recompute either; a trial with
// constraint values (api/constraints.h) also has "constraints" (by index)
// and "feasible".
nlohmann::json TrialToJson(const Trial& trial, const Objective& objective);
nlohmann::json ObservationToJson(const Observation& observation);
// The experiment with its spec and a status computed from its trials.
nlohmann::json ExperimentToJson(const Experiment& experiment,
                                const std::vector<Trial>& trials);

// RFC 3339 UTC time with milliseconds; null for 0 (not yet).
nlohmann::json TimeToJson(int64_t millis);

}  // namespace hpt::api
