#pragma once
// Constrained optimisation (Optuna's constraints_func): a trial may carry
// constraint values c_0, c_1, ..., each satisfied when <= 0. They are
// stored as the trial's metrics named constraint_0, constraint_1, ...
// (kConstraintPrefix + index), so they need no column of their own and a
// trial the server runs can report them like any metric; the value that
// counts is each metric's latest.
//
// A trial is infeasible when any of its constraint values is above 0, and
// feasible otherwise (also when it has none, as Optuna's best_trial takes
// it). The best trial and the Pareto front leave infeasible trials out;
// tpe, bayesianoptimization and nsga2 use the values to steer away from
// infeasible regions (docs/constraints.md).

#include <cstddef>
#include <optional>
#include <string>
#include <vector>

#include "api/types.h"

namespace hpt::api {

inline constexpr char kConstraintPrefix[] = "constraint_";
// At most this many constraints per trial.
inline constexpr size_t kMaxConstraints = 64;

// "constraint_<index>".
std::string ConstraintMetricName(size_t index);

// The index of a constraint metric's name, or nullopt for any other name
// (constraint_0 .. constraint_63, written without leading zeros).
std::optional<size_t> ConstraintIndex(const std::string& metric_name);

// The trial's constraint values by index; empty when it has none. A gap
// (constraint_1 without constraint_0) reads as 0 (satisfied).
std::vector<double> ConstraintValues(const Trial& trial);

// True when the trial reported at least one constraint value.
bool HasConstraints(const Trial& trial);

// The sum of the positive constraint values (0: feasible), Optuna's
// violation score.
double Violation(const std::vector<double>& constraints);

// False only when a constraint value of the trial is above 0.
bool IsFeasible(const Trial& trial);

// True when any of the trials has constraint values.
bool AnyConstraints(const std::vector<Trial>& trials);

}  // namespace hpt::api
