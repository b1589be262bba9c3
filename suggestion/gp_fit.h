#pragma once
// Fitting a GaussianProcess's kernel hyperparameters (as the vector theta
// of GpHyperparameters): the maximum a posteriori point of the log marginal
// likelihood plus a log prior, by bounded L-BFGS (NLopt) from several
// starts.
//
// Priors, for inputs in the unit cube and standardised outputs:
//   log length scale  ~ N(0, 1): a length scale near the cube's side, a
//                       factor e either way at one standard deviation
//   log signal var.   ~ N(0, 1.5^2)
//   log noise var.    ~ N(-6, 3^2), weak: noiseless and noisy objectives
//                       both fit
// and bounds: length scales [0.01, 100], signal variance [0.01, 100],
// noise variance [1e-6, 1]. (The dimension-scaled prior of Hvarfner et al.
// 2024, centred near l = 10, and BoTorch's older Gamma(3, 6), centred near
// 0.3, both did worse in bench/'s quality benchmark: see bench/README.md.)

#include <Eigen/Core>
#include <atomic>
#include <optional>
#include <random>

namespace hpt::suggestion {

// log p(y | x, theta) for points x (dim x n) and values y; its gradient
// with respect to theta in *grad when grad is not null. Jitter is added as
// in GaussianProcess when K is not numerically positive definite.
double LogMarginalLikelihood(const Eigen::MatrixXd& x, const Eigen::VectorXd& y,
                             const Eigen::VectorXd& theta,
                             Eigen::VectorXd* grad = nullptr);

// log p(theta) up to a constant, and its gradient when grad is not null.
double LogPrior(const Eigen::VectorXd& theta, Eigen::VectorXd* grad = nullptr);

// The prior's centre, and the bounds, for `dim` coordinates.
Eigen::VectorXd PriorCentre(int dim);
Eigen::VectorXd LowerBounds(int dim);
Eigen::VectorXd UpperBounds(int dim);

struct FitOptions {
  int random_starts = 2;      // draws from the prior, besides the centre
  int max_evaluations = 120;  // per start
  // Larger data sets are fitted on a subset this size: the best quarter
  // (lowest y) and a random sample of the rest.
  int max_points = 250;
  // Also start from the prior's centre. Off (with random_starts 0), a fit
  // with a warm start is one bounded L-BFGS run continuing the last fit,
  // as bayesianoptimization's local model does on every call.
  bool centre_start = true;
  // When given and set (by another thread), the fit stops at its next
  // evaluation and its result is meaningless: for a background fit that
  // is no longer wanted (fit_worker.h).
  const std::atomic<bool>* cancel = nullptr;
};

// The best theta found from the prior's centre (see centre_start),
// `warm_start` (e.g. the last fit) when given, and options.random_starts
// draws from the prior.
Eigen::VectorXd FitHyperparameters(
    const Eigen::MatrixXd& x, const Eigen::VectorXd& y,
    const std::optional<Eigen::VectorXd>& warm_start, const FitOptions& options,
    std::mt19937_64& rng);

}  // namespace hpt::suggestion
