#pragma once
// Decoders for the bodies of observation and completion requests.

#include <vector>

#include <nlohmann/json.hpp>

#include "api/status.h"
#include "api/types.h"
#include "controller/runner_types.h"

namespace hpt::server {

// `{"step": 3, "metrics": {...}}` or `{"observations": [{...}, ...]}`.
// Metric values must be finite numbers, metric names api::IsSafeName, at
// most api::kMaxMetricsPerReport distinct names in one request (the same
// for a completion); `timestamp_ms` stamps them all.
StatusOr<std::vector<api::Observation>> DecodeObservations(const nlohmann::json& body,
                                                           int64_t timestamp_ms);
// `{"metrics": {...}}` or `{"infeasible": true, "reason": "..."}`; with
// metrics, `"constraints": [c0, c1, ...]` (finite numbers, <= 0 satisfied,
// at most api::kMaxConstraints) become the metrics constraint_0, ...
// (api/constraints.h).
StatusOr<controller::Completion> DecodeCompletion(const nlohmann::json& body);
// {"trials": [{"name": "e-1", "metrics": {...}, "constraints": [...]} |
// {"name": ..., "infeasible":
// true, "reason": ...}, ...]}: at most 1,000 entries; problems named by
// their path (trials[3].metrics.loss).
StatusOr<std::vector<controller::NamedCompletion>> DecodeCompletions(
    const nlohmann::json& body);

}  // namespace hpt::server
