#pragma once
// Helpers the model-based algorithms (sobol, bayesianoptimization) share
// for what random search already does well: remembering which assignments
// are used, and completing a batch with unused random points once their own
// proposals keep landing on used ones (finite spaces running out).

#include <cstdint>
#include <string>
#include <unordered_set>
#include <vector>

#include "suggestion/algorithm.h"

namespace hpt::suggestion {

// AssignmentKey of every trial in history.
std::unordered_set<std::string> UsedKeys(
    const api::ExperimentSpec& spec, const std::vector<api::Trial>& history);

// Up to `count` random assignments used neither in history nor in `batch`,
// drawn as RandomSearch draws them (seeded by `seed`); exhausted when the
// space is finite and history, batch and these leave no point unused.
// count = 0 only answers whether the space is exhausted.
StatusOr<Suggestion> RandomFill(const api::ExperimentSpec& spec,
                                const std::vector<api::Trial>& history,
                                const std::vector<api::Assignment>& batch,
                                uint64_t seed, int count);

}  // namespace hpt::suggestion
