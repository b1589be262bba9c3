#pragma once
// The check that algorithms modelling one objective (tpe,
// multivariate-tpe, cmaes, hyperband, pbt, darts) make in Validate: a
// multi-objective spec (api::IsMultiObjective) is refused rather than
// silently optimised on its first objective.

#include <string_view>

#include "api/status.h"
#include "api/types.h"

namespace hpt::suggestion {

// The algorithms that accept several objectives, for messages.
inline constexpr char kMultiObjectiveAlgorithms[] =
    "bayesianoptimization, nsga2, random, sobol and grid";

// OK for a single objective; otherwise InvalidArgument naming
// objective.objectives, e.g. "objective.objectives: tpe optimises one
// objective, got 2; the algorithms that support several are
// bayesianoptimization, nsga2, random, sobol and grid".
Status RequireSingleObjective(const api::ExperimentSpec& spec,
                              std::string_view algorithm);

}  // namespace hpt::suggestion
