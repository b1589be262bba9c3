#pragma once
// Finding the trials that points an algorithm suggested became (cmaes's
// generation, nsga2's population), for algorithms that keep those points in
// their state between calls.

#include <cstdint>
#include <vector>

#include "api/types.h"

namespace hpt::suggestion {

// A suggested point: the history index it was expected to land at (-1:
// unknown) and the KeyHash (cmaes_state.h) of its AssignmentKey.
struct SuggestedPoint {
  int64_t trial = -1;
  uint64_t key = 0;
};

// The trial each point became, or null: the one at its expected index when
// that trial's assignment has the point's key (the server appends trials
// in the order they are suggested), else searched for by key, a key asked
// twice taking its trials in order. One pass over the history at most.
std::vector<const api::Trial*> MatchTrials(const std::vector<api::ParameterSpec>& parameters,
                                           const std::vector<api::Trial>& history,
                                           const std::vector<SuggestedPoint>& points);

}  // namespace hpt::suggestion
