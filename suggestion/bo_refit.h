#pragma once
// The exact GP's full hyperparameter refits for bayesianoptimization
// (bayesian_optimization.h, "State", gives the schedule): when one falls
// due, and whether it runs in the call or on a FitWorker (fit_worker.h)
// between calls.
//
// A background fit submitted at n_r points is the fit an inline refit
// would have made there, less the call's own randomness: its inputs are
// the first n_r fitted points, their values warped as at n_r, the
// hyperparameters of the time as the warm start, and a generator from the
// state's seed and n_r. The first call with n_r + lag points or more
// adopts its result, from the worker when it has the job (waiting while
// it runs) or by computing it. So a seeded experiment's suggestions
// depend on the history and the state only, never on timing, a restart or
// another process. An unseeded one adopts the fit whenever it is done
// instead (RefitOptions::adopt_when_ready), and never waits.

#include <Eigen/Core>
#include <cstdint>
#include <memory>

#include "suggestion/bo_data.h"
#include "suggestion/fit_worker.h"
#include "suggestion/gaussian_process.h"
#include "suggestion/gp_fit.h"

namespace hpt::suggestion {

// Up to this many fitted points the hyperparameters are refitted on every
// call (inline); beyond, every n/10 new points.
inline constexpr int kRefitEveryCallUpTo = 50;

// The defaults were measured (bench/README.md, "GP at scale"): adopting
// the refits of the inline n/10 schedule later lost quality after a warm
// start (20 seeds of 400 + 80 steps: rosenbrock4's median regret 37
// against 12 when the refit due at 440 came only after the run, 14 when
// adopted at 462), so past background_from the fits come every n/25 new
// points and are adopted n/25 points later: the theta in use was fitted
// at most 2n/25 points ago, against n/10 inline.
struct RefitOptions {
  // Refits at more fitted points than this run in the background; up to
  // it, in the call (where a fit is cheap).
  int background_from = 100;
  // A background fit submitted at n_r points is adopted at
  // n_r + max(min_lag, n_r * lag_percent / 100) points. Until then the
  // last hyperparameters stay, and no further fit is submitted.
  int min_lag = 8;
  int lag_percent = 4;
  // Past background_from a refit falls due every
  // max(1, fit * interval_percent / 100) new points.
  int interval_percent = 4;
  // Set for an experiment without random_state, which promises no
  // repeatable run: a background fit is adopted by the first call after it
  // finished, however few points later, and never waited for (a call while
  // it runs keeps the last hyperparameters; one lost with a restart is
  // submitted again). A seeded experiment keeps the schedule above, which
  // depends on the history alone.
  bool adopt_when_ready = false;
};

// The values the GP fits: warped observations (output_transform.h),
// failures (NaN) at the worst of them; all 0 when none is observed.
struct FitValues {
  Eigen::VectorXd y;
  Eigen::VectorXd warped;  // the observations alone, warped
};
FitValues ValuesToFit(const Eigen::VectorXd& value);

// Brings state's hyperparameters (theta, fit_points, refit_at) up to date
// for a call on points x (dim x n) with values `value` (BoData's) and y =
// ValuesToFit(value).y. `fit` is the full fit's budget (the same for every
// n past background_from); `stream` the call's randomness for an inline
// fit; `refit_always` refits inline whatever the schedule. Returns the
// kernel factor the adopted background fit built (for FactorCache), or
// null.
std::unique_ptr<KernelFactor> RefitExact(const Eigen::MatrixXd& x,
                                         const Eigen::VectorXd& value,
                                         const Eigen::VectorXd& y,
                                         const FitOptions& fit, uint64_t stream,
                                         bool refit_always,
                                         const RefitOptions& options,
                                         FitWorker& worker, BoState& state);

}  // namespace hpt::suggestion
