#pragma once
// RandomSearch ("random"): independent random draws from the search space,
// as Katib's random suggestion service makes.
//
// Per parameter type:
//   double       a draw from its distribution over [min, max] (prior.h):
//                uniform, log-uniform, or Katib's normal and logNormal
//                truncated to [min, max]; with feasibleSpace.step, the grid
//                value min + k*step nearest the draw, as hyperopt's
//                qloguniform and qnormal do, but uniform over k for uniform.
//   int          min + k*step (step defaults to 1), uniform over k, or the
//                grid value nearest a draw from logUniform, normal or
//                logNormal.
//   discrete,
//   categorical  one list entry, exactly as written.
//
// Settings: `random_state` (an integer) seeds the draws. The same spec,
// history and random_state give the same suggestions; a longer history
// gives fresh ones (the seed is mixed with the history's size). Without it
// each call is seeded from std::random_device.
//
// When every parameter is finite, suggestions repeat no assignment already
// in history or earlier in the batch. Once the space is used up, Suggest
// returns fewer than asked for, and sets exhausted as soon as no unused
// point is left (including when this batch takes the last ones). State is
// not used: it is always returned empty.
//
// Conditional parameters (api/conditions.h): every parameter is drawn,
// then those inactive under the drawn parents are left out; a finite space
// counts its distinct active configurations (search_space.h).

#include <random>
#include <string>
#include <string_view>
#include <vector>

#include "suggestion/algorithm.h"

namespace hpt::suggestion {

class RandomSearch : public Algorithm {
 public:
  static constexpr char kName[] = "random";
  static constexpr char kRandomState[] = "random_state";

  Status Validate(const api::ExperimentSpec& spec) const override;
  StatusOr<Suggestion> Suggest(const api::ExperimentSpec& spec,
                               const std::vector<api::Trial>& history,
                               std::string_view state, int count) override;
};

// One draw of a parameter's value, as random search makes it (the table
// above). Requires CheckSearchSpace to pass.
std::string SampleValue(const api::ParameterSpec& p, std::mt19937_64& rng);

// The spec random search runs for another algorithm's start-up and fill-in
// draws: the same space and random_state, no other settings.
api::ExperimentSpec SeedOnlySpec(const api::ExperimentSpec& spec);

}  // namespace hpt::suggestion
