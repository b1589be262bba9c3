#pragma once
// SobolSearch ("sobol"): quasi-random search. Successive suggestions walk
// a scrambled Sobol sequence (sobol_sequence.h) through the unit cube of
// the search space (unit_cube.h for how each parameter type maps), so that
// any n trials cover the space more evenly than n random ones.
//
// Settings: `random_state` (an integer) seeds the scramble; the same spec,
// history and state give the same suggestions. Without it the first call
// draws a seed from std::random_device and keeps it in the state, so one
// experiment still walks one sequence.
//
// State: "seed=<u64>;next=<index of the next sequence point>". Points whose
// assignment is already used (in history or earlier in the batch) are
// skipped; when the sequence keeps landing on used points (a finite space
// running out), the batch is completed with unused random points, and
// exhausted is set once no unused point is left, as for random.
// Conditional parameters keep their coordinates; a point leaves out the
// parameters it makes inactive (unit_cube.h).

#include <string>
#include <string_view>
#include <vector>

#include "suggestion/algorithm.h"

namespace hpt::suggestion {

class SobolSearch : public Algorithm {
 public:
  static constexpr char kName[] = "sobol";
  static constexpr char kRandomState[] = "random_state";

  Status Validate(const api::ExperimentSpec& spec) const override;
  StatusOr<Suggestion> Suggest(const api::ExperimentSpec& spec,
                               const std::vector<api::Trial>& history,
                               std::string_view state, int count) override;
};

}  // namespace hpt::suggestion
