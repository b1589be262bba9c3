#pragma once
// Cmaes ("cmaes"): the covariance matrix adaptation evolution strategy
// (Hansen 2016; CmaEs in cmaes_core.h) as Katib runs it through Goptuna and
// Optuna's CmaEsSampler does, ask/tell in generations over stateless calls.
//
// Settings (Katib's):
//   restart_strategy  none (Katib's default: no option is passed to
//                     Goptuna unless it is set), ipop (after a run stops,
//                     start again at a uniformly random point with twice
//                     the population; Auger & Hansen 2005) or bipop
//                     (Hansen 2009: runs with doubling populations
//                     alternate with small runs of population
//                     floor(lambda0 (lambda_large / (2 lambda0))^(u^2)) and
//                     step sigma0 10^(-2u'), whichever regime has used fewer
//                     evaluations going next; the first run counts as
//                     small, as in Goptuna).
//   sigma             the initial step size (standard deviation), in the
//                     parameters' own units (log units for logUniform,
//                     list positions for discrete), the same for all of
//                     them, as in Goptuna and Optuna. Default: the
//                     narrowest parameter's range / 6 (Optuna's
//                     min_range / 6). Must be positive.
//   random_state      seeds every draw. The same random_state, history and
//                     state give the same suggestions.
//
// Space (CmaSpace, cmaes_space.h): int, double and discrete parameters are
// the coordinates of the unit cube CMA-ES searches (log space for
// logUniform; ints, steps and lists rounded, with half a step of margin at
// each end); categorical ones are drawn at random for every trial, as
// Optuna 3.1's CmaEsSampler leaves them to its random sampler, and so are
// conditional parameters (a parent, api/conditions.h): CMA runs over the
// always-active numeric ones, as Optuna's CmaEsSampler runs over the
// intersection search space; the inactive ones are left out of each
// suggestion. Like Katib,
// at least two coordinates are required (InvalidArgument otherwise).
// The first run's population is two smaller than Optuna's 4 + floor(3 ln
// n), at least 4 (CmaSession::FirstPopsize): at the tens of trials an
// experiment usually has, the extra generations cut the quality bench's
// median regret to 0.43-0.97x of the tutorial population's over 400 seeds
// (bench/README.md); ipop and bipop grow from it. The
// first mean is the cube's centre (Optuna's x0); the cube's coordinates
// have unit ranges, and C starts as diag(CmaSpace::scales)^2, so a run
// behaves as Optuna's does on the untransformed space.
//
// Generations: every suggestion is drawn from the current distribution and
// recorded in the state with its generation. Once popsize of the current
// generation's trials have an objective value the generation is told (the
// first popsize in the order they were asked) and the next one begins.
// Its trials still running then (and values beyond the first popsize) are
// not lost, as they are in Optuna: they join the next generation as
// injected solutions (cmaes_core.h), unless the run restarts. So parallel
// workers waste no trials. Succeeded and EarlyStopped trials count, with
// the value they reported (Optuna's consider_pruned_trials); Failed,
// Killed and MetricsUnavailable trials, and values that are not finite, do
// not: the generation keeps asking from the same distribution until enough
// have values. So parallel workers (count > 1, trials still running) and
// failures never stall a generation; a generation simply asks more.
// CMA-ES is told the point each trial was drawn at (before ints and steps
// were rounded), so that rounding does not collapse a coordinate's
// variance.
//
// No assignment repeats in a finite space (every parameter int, discrete,
// categorical or with a step): a draw that repeats one is redrawn, and
// after kMaxRedraws the trial is an unused point at random, told to CMA-ES
// as an injected solution; once the space is used up, fewer are returned
// (exhausted), as tpe does.
//
// State: JSON, {"version": 1, "coordinates": [names], "run": CmaEs::ToJson,
// "sigma0", "restarts", "bipop": {...}, "plan_seed", "plan_draws",
// "generation": [{"key" (KeyHash), "x", "injected", "trial"}]}, vectors
// as PackDoubles text. A generation's trials are found at the place in the
// history where they were expected ("trial": the server appends trials in
// the order they are suggested) when their assignment (search_space.h's
// AssignmentKey) agrees, and by that assignment alone otherwise, as Katib
// matches Goptuna's trials. An
// empty state starts a fresh run; a state that does not parse, or that
// belongs to other parameters, is an Internal error.

#include <string>
#include <string_view>
#include <vector>

#include "suggestion/algorithm.h"

namespace hpt::suggestion {

class Cmaes : public Algorithm {
 public:
  static constexpr char kName[] = "cmaes";
  static constexpr char kRestartStrategy[] = "restart_strategy";
  static constexpr char kSigma[] = "sigma";
  // Draws of a repeated point in a finite space before a random unused one.
  static constexpr int kMaxRedraws = 10;

  Status Validate(const api::ExperimentSpec& spec) const override;
  StatusOr<Suggestion> Suggest(const api::ExperimentSpec& spec,
                               const std::vector<api::Trial>& history,
                               std::string_view state, int count) override;
};

}  // namespace hpt::suggestion
