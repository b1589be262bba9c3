#pragma once
// The search space as a grid of points, shared by the algorithms that
// enumerate it (grid) or need to know whether it is finite (random's
// duplicate avoidance).
//
// A parameter is finite ("has a grid") when it is int (step defaults to 1),
// discrete, categorical, or double with feasibleSpace.step. Its grid values
// are min, min+step, ... <= max (floating error tolerated) or the list
// entries in order. Values are text as trials receive them: ints as integers
// ("3"), doubles via api::FormatDouble, list entries exactly as written.
//
// Points of the whole space are numbered in Katib's grid order: the first
// parameter varies slowest.

#include <cstdint>
#include <limits>
#include <optional>
#include <string>
#include <vector>

#include "api/status.h"
#include "api/types.h"

namespace hpt::suggestion {

// Sizes saturate here rather than overflow.
inline constexpr int64_t kUnboundedSize = std::numeric_limits<int64_t>::max();

// OK when every parameter has what its type needs: min and max with
// min <= max for double and int (int bounds integral, |bound| <= 2^53), a
// positive step when given (integral for int), min > 0 for logUniform and
// logNormal, and a non-empty list for discrete and categorical (discrete
// entries numeric, distribution left uniform).
// Otherwise InvalidArgument naming the field ("parameters[1].feasibleSpace.
// min: ..."). Algorithms call it so that they never act on a spec that
// skipped api validation.
Status CheckSearchSpace(const std::vector<api::ParameterSpec>& parameters);

// Number of grid values of one parameter (saturating at kUnboundedSize), or
// nullopt for a double without step. Requires CheckSearchSpace to pass.
std::optional<int64_t> GridSize(const api::ParameterSpec& parameter);

// The k-th grid value, 0 <= k < *GridSize(parameter), as text.
std::string GridValue(const api::ParameterSpec& parameter, int64_t k);

// Product of the parameters' grid sizes (1 for no parameters), saturating at
// kUnboundedSize; nullopt when some parameter has no grid.
std::optional<int64_t> SpaceSize(
    const std::vector<api::ParameterSpec>& parameters);

// The point numbered `index`, 0 <= index < *SpaceSize(parameters), with
// values in the parameters' order.
api::Assignment PointAt(const std::vector<api::ParameterSpec>& parameters,
                        int64_t index);

// A key equal for two assignments exactly when they give every parameter
// the same text (missing values count as empty). Used to spot duplicates.
std::string AssignmentKey(const std::vector<api::ParameterSpec>& parameters,
                          const api::Assignment& assignment);

// Text of an int parameter's value.
std::string FormatInt(int64_t value);

}  // namespace hpt::suggestion
