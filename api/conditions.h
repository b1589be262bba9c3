#pragma once
// Conditional parameters: Vizier's conditional search space in Katib's
// field style. A parameter with a `parent` ({name, values}) is active, and
// present in a trial's assignment, only when its parent is active and takes
// one of `values`; a parameter without one is always active. Parents may be
// conditional themselves (chains), but must be int, discrete or categorical
// (finite choices).
//
// A parameter defined by run (ParameterSpec::defined_by_run) is active
// only in assignments that hold a value of it, as if conditional on its
// own presence; HasConditions counts it.
//
// Everything here is a pure function of the spec's parameters and an
// assignment; thread-safe. The functions that walk parents stay finite on a
// spec that skipped validation (unknown parents, cycles): such parameters
// count as inactive.

#include <string>
#include <vector>

#include "api/types.h"

namespace hpt::api {

// True when some parameter has a parent or is defined by run.
bool HasConditions(const std::vector<ParameterSpec>& params);

// Whether a value of `parent` meets the condition value `wanted`: the same
// text, or for int and discrete parents the same number ("3" and "3.0").
bool ConditionValueMatches(const ParameterSpec& parent, const std::string& value,
                           const std::string& wanted);
// A key equal for two values exactly when ConditionValueMatches holds
// (for sets and maps of a parent's values).
std::string ConditionValueKey(const ParameterSpec& parent, const std::string& value);

// Indices of `params` with every parent before its children, and otherwise
// in the spec's order. Parameters with an unknown parent come as roots;
// those on or below a cycle come last, in the spec's order.
std::vector<size_t> TopologicalOrder(const std::vector<ParameterSpec>& params);

// Whether the parameter `name` is active in `assignment`: it has no parent,
// or its parent is active there and has a value that matches one of
// parent.values. False for a name that is not a parameter.
bool IsActive(const std::vector<ParameterSpec>& params, const Assignment& assignment,
              const std::string& name);

// Per parameter (in `params`' order): whether it is active in `assignment`.
std::vector<bool> ActiveParameters(const std::vector<ParameterSpec>& params,
                                   const Assignment& assignment);

// `assignment` without the values of parameters that are inactive in it
// (order kept). Every algorithm's suggestions pass through it; values of
// names that are not parameters are kept.
Assignment PruneInactive(const std::vector<ParameterSpec>& params,
                         const Assignment& assignment);

// One problem with the parameters' parents, as validation reports them.
struct ConditionProblem {
  std::string path;  // "parameters[2].parent.name"
  std::string what;  // "unknown parameter 'optimzer'"
};

// Every problem with the parents: an empty or unknown parent, a parameter
// its own parent, a cycle (reported once, at its first parameter), a
// double parent, no values, a value listed twice, and a value outside the
// parent's feasible space (not in a discrete or categorical list; for an
// int, not a whole number within [min, max] on its step).
std::vector<ConditionProblem> ConditionProblems(const std::vector<ParameterSpec>& params);

}  // namespace hpt::api
