#pragma once
// Downsampling a trial list for plots (GET .../trials:columns?maxPoints=):
// the optimisation history, parallel coordinates and slices of a 50,000-
// trial experiment drawn from a few thousand trials that keep what a reader
// looks for.
//
// The rule, when more than `max_points` trials are given (fewer: all kept):
//  1. every trial that set a new best-so-far (a ranked, feasible trial
//     better than every one before it), so the best-so-far line drawn from
//     the sample is the full list's and the best trial is always in it;
//  2. the max_points / 10 best ranked trials by objective;
//  3. every Failed, Killed or MetricsUnavailable trial, up to max_points / 2
//     of them (past that, evenly spaced ones among them);
//  4. evenly spaced trials among the rest, up to max_points in all.
// Rules 1 and 2 may take the sample past max_points only when more trials
// than that set a record, which does not happen in practice.

#include <cstddef>
#include <vector>

#include "api/types.h"

namespace hpt::api {

struct TrialSample {
  std::vector<size_t> kept;  // positions in `trials`, ascending
  size_t best = 0;           // kept by rules 1 and 2
  size_t failed = 0;         // kept by rule 3
  bool sampled = false;      // false when every trial was kept
};

// `selected`: positions in `trials` (creation order) to sample from.
TrialSample SampleTrials(const std::vector<Trial>& trials, const std::vector<size_t>& selected,
                         const Objective& objective, size_t max_points);

}  // namespace hpt::api
