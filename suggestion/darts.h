#pragma once
// Darts ("darts"): Katib's gradient-based NAS suggestion. Like Katib's
// DARTS service it does no search itself: each trial it suggests IS a
// whole search (hpt nas darts, nas/darts.h), handed the experiment's
// settings, its nasConfig primitives and numLayers as Katib's three
// assignments (api/nas.h: algorithm-settings, search-space, num-layers).
//
// Validate checks nasConfig and the settings (api::ReadDartsSettings,
// api::DartsPrimitives), and reports the algorithm unavailable, with the
// reason, where this hpt has no libtorch to run the search with.
//
// Trials are independent searches with the same settings; when
// random_state is set, trial k (1-based) is seeded random_state + k - 1, so
// parallel trials explore different initialisations and a rerun repeats
// them. State is not used.

#include <string>
#include <string_view>
#include <vector>

#include "suggestion/algorithm.h"

namespace hpt::suggestion {

class Darts : public Algorithm {
 public:
  static constexpr char kName[] = "darts";

  // `available`: OK, or why this build cannot run a search (no libtorch).
  explicit Darts(Status available) : available_(std::move(available)) {}

  Status Validate(const api::ExperimentSpec& spec) const override;
  StatusOr<Suggestion> Suggest(const api::ExperimentSpec& spec,
                               const std::vector<api::Trial>& history,
                               std::string_view state, int count) override;

 private:
  Status available_;
};

}  // namespace hpt::suggestion
