#pragma once
// GridSearch ("grid"): every point of the cartesian product of the
// parameters' grid values, once each, in Katib's order (the first parameter
// varies slowest, the last fastest). See search_space.h for each type's
// values; double parameters need feasibleSpace.step (linear steps, also for
// logUniform, normal and logNormal: as in Katib's grid, the distribution
// does not change the grid), int steps default to 1. No settings are
// accepted. With conditional parameters (api/conditions.h) the grid is
// the distinct active configurations, each once (an inactive parameter's
// values are not multiplied in; conditional_grid.h has the order).
//
// State is the index of the next grid point (decimal text); with an empty
// state the walk starts at 0. Points whose assignment is already in history
// are skipped, so trials added by hand are not repeated. Suggest sets
// exhausted once no grid point is left, including when this batch takes the
// last ones; later calls return no assignments.

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "suggestion/algorithm.h"

namespace hpt::suggestion {

class GridSearch : public Algorithm {
 public:
  static constexpr char kName[] = "grid";
  // Validate rejects larger grids.
  static constexpr int64_t kMaxPoints = 10'000'000;

  Status Validate(const api::ExperimentSpec& spec) const override;
  StatusOr<Suggestion> Suggest(const api::ExperimentSpec& spec,
                               const std::vector<api::Trial>& history,
                               std::string_view state, int count) override;
};

}  // namespace hpt::suggestion
