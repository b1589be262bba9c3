#pragma once
// Building learning curves from stored observations, and the few questions
// policies ask of a curve. Every query skips points whose value is not
// finite.

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "api/types.h"
#include "earlystop/policy.h"

namespace hpt::earlystop {

// The curve of `metric` for `trial` (name and phase taken from it) from its
// observations in the order they were reported. Observations without the
// metric, or with a non-finite value, are left out; of several at the same
// step the last reported wins. Points come out in increasing step order.
TrialCurve MakeCurve(const api::Trial& trial,
                     const std::vector<api::Observation>& observations,
                     const std::string& metric);

// Sets the value at `point.step` (replacing one reported before, else
// inserting in step order): O(1) when appending.
void SetPoint(TrialCurve& curve, CurvePoint point);

// The largest step with a finite value, or nullopt when there is none.
// Scans from the end: O(1) plus the non-finite points at the end.
std::optional<int64_t> LastStep(const TrialCurve& curve);

// The best finite value at steps <= `step` under `type`, or nullopt.
std::optional<double> BestUpTo(const TrialCurve& curve, int64_t step,
                               api::ObjectiveType type);

// The latest finite value at a step <= `step`: the value the trial had at
// `step`. nullopt when there is none. O(log n) plus the non-finite points
// skipped.
std::optional<double> ValueAt(const TrialCurve& curve, int64_t step);

// The first finite point whose step is >= `step`, or nullptr: the report
// with which a trial reached `step`.
const CurvePoint* FirstAtOrAfter(const TrialCurve& curve, double step);

}  // namespace hpt::earlystop
