#pragma once
// PBT's explore step (suggestion/pbt.h): new values near a member's, within
// each parameter's feasible space and of its type.

#include <optional>
#include <random>

#include "api/types.h"

namespace hpt::suggestion {

// `values` explored parameter by parameter: with probability
// `resample_probability` (when given) a fresh draw from the parameter's
// prior, else a perturbation (x0.8 or x1.2 for numbers, a list neighbour
// for lists). Every value returned lies in its parameter's feasible space,
// on its grid when it has one. Requires CheckSearchSpace to pass.
// Conditional parameters (api/conditions.h): one that was inactive in
// `values` (absent) is drawn from its prior when the explored parents make
// it active; one the explored parents make inactive is left out, so the
// result is consistent whichever parents were resampled.
api::Assignment Explore(const std::vector<api::ParameterSpec>& parameters,
                        const api::Assignment& values,
                        std::optional<double> resample_probability,
                        std::mt19937_64& rng);

}  // namespace hpt::suggestion
