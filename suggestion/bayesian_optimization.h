#pragma once
// BayesianOptimization ("bayesianoptimization"): a Gaussian-process
// optimizer. The search space is seen as the unit cube (unit_cube.h: log
// parameters in log space, int and discrete as ordered cells, categorical
// one-hot); objective values are warped (output_transform.h); a Matérn-5/2
// ARD GP (gaussian_process.h) with hyperparameters fitted by maximum a
// posteriori (gp_fit.h) models them; each suggestion maximises an
// acquisition (acquisition.h) over Sobol candidates, perturbations of the
// best points and L-BFGS refinement.
//
// History, per trial phase:
//   Succeeded, EarlyStopped  observations (the objective metric's latest
//                            value); without a finite value, as Failed
//   Failed (also Infeasible), not fitted as values, but placed in the GP at
//   MetricsUnavailable       the worst observed value so that their region
//                            is not proposed again
//   Running, Pending         pending: the GP is told its own mean there,
//                            but no better than the average observation
//                            (kriging believer with a constant liar's
//                            floor), so parallel workers get points apart
//   Killed                   ignored, except that its point is not repeated
// Suggestions within a batch are pending for the ones after them. No
// suggestion repeats an assignment in history or in the batch; when a
// finite space runs out the batch is completed with unused random points
// and exhausted is set as for random.
//
// The first n_initial_points trials (counting every trial in history) come
// from a scrambled Sobol sequence, as do later ones until some trial has a
// value.
//
// Settings (Katib's names):
//   random_state      integer seed; the same spec, history and state give
//                     the same suggestions. Without it a seed is drawn once
//                     and kept in the state.
//   n_initial_points  integer >= 1, default max(5, 2 x parameters); with
//                     several objectives at most 10 (see below)
//   acq_func          ei (log expected improvement, default) or ucb
//                     (lcb is accepted as another name for it)
//   kappa             number >= 0, default 1.96: UCB's exploration weight
//
// Several objectives (api::IsMultiObjective): ParEGO (Knowles 2006,
// parego.h). For each suggestion a weight vector w is drawn uniformly
// from the simplex (seeded by the state's seed, itself from random_state,
// the history's size and the suggestion's place in the batch); each
// objective, in minimisation form, is normalised to [0, 1] over the
// trials that reported every objective, and the GP models the augmented
// Chebyshev scalar max_i(w_i f_i) + 0.05 sum_i(w_i f_i) exactly as it
// models a single objective above (a trial missing an objective counts as
// a failure). The hyperparameters are refitted for every suggestion (the
// scalar changes with w), warm-started from the last fit; a batch's
// earlier suggestions are pending for its later ones. The default initial
// design is capped at 10 trials (Optuna's n_startup_trials for its
// multi-objective TPE): every ParEGO suggestion already explores (each
// has its own w), and with many parameters max(5, 2 x parameters) would
// spend most of a small budget on random points (60 of 100 for 30
// parameters; bench/README.md, "Quality: multi-objective", has the
// measurements). With one objective none of this applies and nothing
// changes.
//
// Conditional parameters (api/conditions.h): a parameter inactive in a
// trial is held at its unit-cube midpoint (0.5 on each of its coordinates,
// unit_cube.h) for the GP, so the model sees one fixed value there; each
// suggestion leaves out the parameters its point makes inactive, and a
// small finite space is scored over its distinct active configurations.
//
// Long histories (local_model.h): up to 1,200 fitted points the GP
// conditions on every point (exact); past that, on 400 points around the
// incumbent (the neighbours in the length-scale metric, then the best
// values), with Sobol candidates drawn in their bounding box (TuRBO's
// trust region), so a call's cost grows linearly with the history
// (bench/README.md, "GP at scale": ~30 ms at 10,000 trials).
//
// State (opaque): the seed, the number of points at the last full
// hyperparameter fit, its hyperparameters, the number of points of a
// background fit not yet adopted, and the local model's size when one was
// used. A full multi-start fit runs when there is no fit yet (on at most
// 250 points, gp_fit.h), then every call up to 50 points and every n/10
// new points beyond; calls in between reuse the last hyperparameters
// (which also lets FactorCache extend the last Cholesky factor). Past
// RefitOptions::background_from (100) points the periodic refit does not
// run in the call where it falls due: the same full fit, on the first n_r
// points then fitted, goes to a FitWorker (fit_worker.h; one thread,
// shared by the instances one registry makes), which also builds the
// kernel factor over those points, and the first call at n_r + lag points
// or more adopts it: at once when it is done, after waiting when it still
// runs (calls that come faster than a fit), computed in the call when the
// worker never had it (a restart, another process). These fits fall due
// every n/25 new points and lag = max(8, n_r / 25), so the
// hyperparameters in use were fitted at most 2n/25 points ago, against
// n/10 inline (bo_refit.h has the measurements). A fit's result depends
// only on the first n_r points and the seed, so a seeded run repeats
// exactly whatever the timing. An experiment without random_state, which
// promises no repeatable run, never waits: the first call after the fit
// finished adopts it, and calls before keep the last hyperparameters
// (RefitOptions::adopt_when_ready). With the local model every call continues
// the last fit instead: one warm-started L-BFGS run of at most 6
// evaluations on at most 160 of the local points, so no call waits for a
// full refit. An unreadable state is
// ignored (the next call refits).

#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "suggestion/algorithm.h"
#include "suggestion/bo_refit.h"
#include "suggestion/factor_cache.h"
#include "suggestion/fit_worker.h"
#include "suggestion/local_model.h"

namespace hpt::suggestion {

class BayesianOptimization : public Algorithm {
 public:
  static constexpr char kName[] = "bayesianoptimization";
  static constexpr char kRandomState[] = "random_state";
  static constexpr char kInitialPoints[] = "n_initial_points";
  static constexpr char kAcqFunc[] = "acq_func";
  static constexpr char kKappa[] = "kappa";
  // Katib's (scikit-optimize's) further settings, read for compatibility:
  // base_estimator GP is the only model; every acq_optimizer samples
  // candidates and refines the best with L-BFGS.
  static constexpr char kBaseEstimator[] = "base_estimator";
  static constexpr char kAcqOptimizer[] = "acq_optimizer";
  static constexpr double kDefaultKappa = 1.96;
  // With several objectives, n_initial_points defaults to at most this.
  static constexpr int64_t kMultiObjectiveMaxInitialPoints = 10;

  // `cache` keeps kernel factors between calls (shared by the instances one
  // registry makes, see builtins.cc); null: a cache of this instance's own.
  // `local`: where the exact GP gives way to the local model, and its size
  // (local_model.h; tests lower the threshold). `fits` runs the periodic
  // refits in the background (shared like the cache; null: a worker of
  // this instance's own), on the schedule `refit` sets (bo_refit.h).
  explicit BayesianOptimization(std::shared_ptr<FactorCache> cache = nullptr,
                                LocalModelOptions local = {},
                                std::shared_ptr<FitWorker> fits = nullptr,
                                RefitOptions refit = {});

  Status Validate(const api::ExperimentSpec& spec) const override;
  StatusOr<Suggestion> Suggest(const api::ExperimentSpec& spec,
                               const std::vector<api::Trial>& history,
                               std::string_view state, int count) override;

 private:
  std::shared_ptr<FactorCache> cache_;
  LocalModelOptions local_;
  std::shared_ptr<FitWorker> fits_;
  RefitOptions refit_;
};

}  // namespace hpt::suggestion
