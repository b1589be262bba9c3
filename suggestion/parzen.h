#pragma once
// ParzenEstimator: the density model of the tree-structured Parzen
// estimator (Bergstra et al. 2011), with Optuna 3.1's published defaults:
// one truncated-normal kernel per observation on a numeric dimension
// (bandwidth from the distance to its neighbours, or Scott-like
// 0.17 * n^(-1/(d+4)) * range when multivariate: Optuna's 0.2 narrowed,
// see tpe.h), a categorical kernel
// that puts weight 1 on the observed choice on top of a prior_weight/(n+1)
// floor on every choice, one prior component (the range's middle,
// bandwidth = range, or a sixth of it for a normal prior as hyperopt's TPE
// takes hp.normal's; uniform over choices) of weight 1, "magic clip" on bandwidths, and
// observation weights that ramp up older ones past 25 (Optuna's
// default_weights).
//
// Densities are Optuna 3.1's: a numeric kernel's log density is the
// normal's, less the log of its mass inside the range but without its
// -log(sigma) (tpe.h says why that is kept), and on a grid dimension it is
// the mass of the point's grid cell.
//
// Dimensions live in an internal space: log for logUniform and logNormal,
// the index for a categorical. A mixture component is one observation across every
// dimension, so the same class serves the univariate sampler (one
// dimension) and the multivariate one (all, with joint components).

#include <random>
#include <vector>

namespace hpt::suggestion {

struct ParzenDimension {
  bool categorical = false;
  double low = 0, high = 1;  // numeric: the internal range
  int choices = 0;           // categorical: K
  double step = 0;           // > 0: values on a grid this far apart; a
                             // point's density is its cell's mass
  double prior_sigma = 1;    // the prior kernel's bandwidth, in ranges
};

class ParzenEstimator {
 public:
  // `observations[i][d]`: observation i's value of dimension d (a choice's
  // index for a categorical one), oldest first.
  ParzenEstimator(const std::vector<ParzenDimension>& dims,
                  const std::vector<std::vector<double>>& observations, bool multivariate);

  // One draw: a component by its weight, then each dimension from it.
  std::vector<double> Sample(std::mt19937_64& rng) const;
  // log density of a point (a sum over dimensions within each component).
  double LogPdf(const std::vector<double>& x) const;

 private:
  std::vector<ParzenDimension> dims_;
  std::vector<double> log_weights_;            // per component, normalised
  std::vector<double> weights_;                // the same, not in logs
  // Numeric kernels, flat [numeric dim][component] (index
  // dim * components_ + component) so that a dimension's are contiguous.
  size_t components_ = 0;
  std::vector<double> mus_;
  std::vector<double> sigmas_;
  // log(the kernel's mass inside the range): each kernel's normaliser,
  // computed once rather than per evaluation.
  std::vector<double> log_norms_;
  std::vector<std::vector<double>> probs_;     // [component][choice], flattened per dim
  std::vector<int> offsets_;                   // categorical dim -> first choice in probs_
};

// Optuna's default_weights: n ones below 25 observations, else a ramp from
// 1/n to 1 over the oldest n-25 and ones for the latest 25.
std::vector<double> ObservationWeights(int n);

}  // namespace hpt::suggestion
