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
// parameter varies slowest. In a conditional space (api/conditions.h) the
// points are the distinct active configurations, inactive parameters
// absent (conditional_grid.h has their order).

#include <cstdint>
#include <limits>
#include <optional>
#include <string>
#include <vector>

#include "api/status.h"
#include "api/types.h"
#include "suggestion/conditional_grid.h"

namespace hpt::suggestion {

// Sizes saturate here rather than overflow.
inline constexpr int64_t kUnboundedSize = std::numeric_limits<int64_t>::max();

// OK when every parameter has what its type needs: min and max with
// min <= max for double and int (int bounds integral, |bound| <= 2^53), a
// positive step when given (integral for int), min > 0 for logUniform and
// logNormal, and a non-empty list for discrete and categorical (discrete
// entries numeric, distribution left uniform).
// Otherwise InvalidArgument naming the field ("parameters[1].feasibleSpace.
// min: ..."). Conditional parameters' parents are checked too
// (api::ConditionProblems: known, acyclic, finite values in the parent's
// space). Algorithms call it so that they never act on a spec that skipped
// api validation.
Status CheckSearchSpace(const std::vector<api::ParameterSpec>& parameters);

// Number of grid values of one parameter (saturating at kUnboundedSize), or
// nullopt for a double without step. Requires CheckSearchSpace to pass.
std::optional<int64_t> GridSize(const api::ParameterSpec& parameter);

// The k-th grid value, 0 <= k < *GridSize(parameter), as text.
std::string GridValue(const api::ParameterSpec& parameter, int64_t k);

// Product of the parameters' grid sizes (1 for no parameters), saturating at
// kUnboundedSize; nullopt when some parameter has no grid. For a
// conditional space, the number of distinct active configurations.
std::optional<int64_t> SpaceSize(
    const std::vector<api::ParameterSpec>& parameters);

// The point numbered `index`, 0 <= index < *SpaceSize(parameters), with
// values in the parameters' order (inactive ones absent).
api::Assignment PointAt(const std::vector<api::ParameterSpec>& parameters,
                        int64_t index);

// SpaceSize and PointAt for many points of one space: a conditional
// space's tree is built once. Keeps a pointer to `parameters`, which must
// outlive it; requires CheckSearchSpace to pass.
class SpacePoints {
 public:
  explicit SpacePoints(const std::vector<api::ParameterSpec>& parameters);
  std::optional<int64_t> size() const { return size_; }
  api::Assignment At(int64_t index) const;  // 0 <= index < *size()

 private:
  const std::vector<api::ParameterSpec>* parameters_;
  std::optional<ConditionalGrid> conditional_;
  std::optional<int64_t> size_;
};

// A key equal for two assignments exactly when they give every parameter
// the same text (missing values count as empty; so do the values of
// parameters inactive in the assignment). Used to spot duplicates.
std::string AssignmentKey(const std::vector<api::ParameterSpec>& parameters,
                          const api::Assignment& assignment);

// Text of an int parameter's value.
std::string FormatInt(int64_t value);

}  // namespace hpt::suggestion
