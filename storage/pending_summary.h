#pragma once
// PendingSummary: one metric's summary over the observations of one
// AddObservations call, which each store merges into its stored row with
// one upsert (min, max, and latest = the value at the highest step, ties
// going to the later write). NaN is ignored by min and max unless every
// value is NaN (then they stay NaN, stored as NULL).

#include <algorithm>
#include <cmath>
#include <cstdint>

namespace hpt::storage {

struct PendingSummary {
  double min = NAN;
  double max = NAN;
  double latest = NAN;
  int64_t latest_step = 0;
  bool empty = true;

  void Add(int64_t step, double value) {
    if (!std::isnan(value)) {
      min = std::isnan(min) ? value : std::min(min, value);
      max = std::isnan(max) ? value : std::max(max, value);
    }
    // >=: of two values at the same step the later write wins.
    if (empty || step >= latest_step) {
      latest = value;
      latest_step = step;
    }
    empty = false;
  }
};

}  // namespace hpt::storage
