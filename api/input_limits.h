#pragma once
// What user-given names may contain and how long user-given lists may be.
// Parameter and metric names reach shell-free argv templates, SQLite, logs
// and the dashboard's HTML, so they are held to a charset that needs no
// escaping anywhere and that covers every name Katib's default metrics
// regex can produce (`[\w|-]+`), plus '.' and '/' ("train/loss").

#include <cstddef>
#include <string>
#include <string_view>

namespace hpt::api {

inline constexpr size_t kMaxNameLength = 128;

// Lists in an experiment spec.
inline constexpr size_t kMaxParameters = 256;
inline constexpr size_t kMaxMetricNames = 100;   // objective + additional
inline constexpr size_t kMaxObjectives = 8;     // objective.objectives
inline constexpr size_t kMaxWarmStartExperiments = 16;  // warmStart.fromExperiments
inline constexpr size_t kMaxListValues = 10000;  // feasibleSpace.list
inline constexpr size_t kMaxSettings = 100;      // algorithmSettings
inline constexpr size_t kMaxCommandArgs = 4096;  // trialTemplate.command
inline constexpr size_t kMaxEnvVars = 1024;      // trialTemplate.env
inline constexpr size_t kMaxMetricsFormats = 32;
inline constexpr size_t kMaxReasonLength = 4096;  // a completion's reason

// Optuna's user attributes (api/user_attrs.h), on one trial or one
// experiment: keys, each of 1 to kMaxNameLength characters, and all keys
// and values together as JSON.
inline constexpr size_t kMaxUserAttrs = 100;
inline constexpr size_t kMaxUserAttrsBytes = 64 * 1024;

// Distinct metric names in one observation request or one :complete.
inline constexpr size_t kMaxMetricsPerReport = kMaxMetricNames;

// True for a parameter or metric name: 1 to kMaxNameLength characters of
// [A-Za-z0-9_.\-/|], the first one of [A-Za-z0-9_].
bool IsSafeName(std::string_view name);

// Why `name` is not a safe name, for a message after "path: ".
std::string SafeNameProblem(std::string_view name);

}  // namespace hpt::api
