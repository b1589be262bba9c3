#pragma once
// The successive-halving judgement that asha and hyperband's brackets share.
//
// Rungs sit at steps first * eta^k, k = 0, 1, ... A trial reaches a rung
// with its first report at a step >= the rung; its value there is that
// report's value. A running trial is judged at the highest rung its latest
// step has reached, against itself and every peer (any phase) that reached
// that rung: with n of them, the top max(1, floor(n / eta)) continue, and a
// trial is stopped only when at least that many are strictly better (ties
// keep every tied trial). The judgement is repeated on each report until
// the trial reaches the next rung.

#include <limits>
#include <string>
#include <vector>

#include "api/types.h"
#include "earlystop/policy.h"

namespace hpt::earlystop {

struct Rungs {
  double eta = 3;    // > 1
  double first = 1;  // the step of rung 0, >= 1
  // Rungs at or past this step are not judged: the trial has had its whole
  // budget and stopping it would save nothing.
  double last = std::numeric_limits<double>::infinity();
};

// The decision for `trial` (not finished) among `peers`; a peer named like
// `trial` is skipped. The reason names the rung as "(rung k, step r)".
StopDecision JudgeAtRung(const api::ExperimentSpec& spec,
                         const TrialCurve& trial,
                         const std::vector<const TrialCurve*>& peers,
                         const Rungs& rungs);

}  // namespace hpt::earlystop
