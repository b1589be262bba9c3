#pragma once
// The rule that medianstop and percentile share: Optuna 3.1's
// PercentilePruner (MedianPruner is it at the 50th percentile), with hpt's
// trial phases and curves.
//
// A running trial whose latest step s passes the step checks below is
// stopped when its best value at steps <= s is strictly worse than the
// `percentile`-th percentile of the values the Succeeded trials had at step
// s. "Worse" and the percentile follow the objective's direction: when
// maximizing, the (100 - percentile)-th percentile and below it; so
// percentile 25 keeps the top 25% either way. Percentiles interpolate
// linearly between the sorted values (numpy's default), so the 50th of an
// even count is the mean of the middle two.
//
// Nothing is decided
//  - before n_startup_trials trials have Succeeded (and never with none);
//  - before step n_warmup_steps (steps are those trials report; Optuna
//    counts from 0, as hpt's clients do);
//  - at a step that is not the first report in its interval: checks fall at
//    n_warmup_steps + k * interval_steps, and a trial is judged at its first
//    report at or after such a point (a report that skipped the point is
//    judged in its place);
//  - when fewer than n_min_trials Succeeded trials reached step s.
//
// A Succeeded trial's value at step s is its latest value at a step <= s,
// and it reached step s when it reported some step >= s. Where every trial
// reports the same steps (epochs, folds) that is Optuna's "value at step s";
// where they do not (steps counted in samples, say), a trial that skipped s
// still counts with the value it had there, where Optuna leaves it out.
//
// Only Succeeded trials are references: an EarlyStopped trial is one found
// worse, and counting it would lower the bar with every stop. Ties are not
// worse, so flat identical curves are never stopped.

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "earlystop/policy.h"

namespace hpt::earlystop {

struct PercentileRule {
  double percentile = 50;        // in [0, 100]
  int64_t n_startup_trials = 5;  // >= 0
  int64_t n_warmup_steps = 0;    // >= 0
  int64_t interval_steps = 1;    // >= 1
  int64_t n_min_trials = 1;      // >= 1
};

// Whether `step` (the trial's latest) is a pruning check under Optuna's
// warm-up and interval: step >= warmup, and no other reported step of
// `trial` lies in [the latest check point <= step, step).
bool IsPruningStep(const TrialCurve& trial, int64_t step,
                   int64_t n_warmup_steps, int64_t interval_steps);

// The q-th percentile (q in [0, 100]) of `values` (not empty), linearly
// interpolated as numpy.percentile does.
double Percentile(std::vector<double> values, double q);

// The decision for `trial` under `rule`. `what` names the reference in the
// reason ("the median", "the 25th percentile").
StopDecision JudgeByPercentile(const api::ExperimentSpec& spec,
                               const TrialCurve& trial,
                               const std::vector<TrialCurve>& others,
                               const PercentileRule& rule,
                               const std::string& what);

// "never fires" notes shared by the two policies: n_startup_trials or
// n_min_trials Succeeded trials can never be had while a trial still runs.
std::vector<std::string> PercentileRuleNotes(const api::ExperimentSpec& spec,
                                             const PercentileRule& rule,
                                             const std::string& policy);

}  // namespace hpt::earlystop
