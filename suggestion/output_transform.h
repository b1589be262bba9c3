#pragma once
// Warping objective values (to minimise) before a Gaussian process sees
// them. Real losses have heavy tails (a diverged run scores 1e6 beside
// 0.3), which a GP with one signal variance fits badly: the outlier sets
// the scale and the good runs, where the optimum is, look all alike.
//
//   1. Half-rank warping (as Google Vizier's output warper does): values
//      at or below the median (the better half) are kept; each worse value
//      is replaced by the normal quantile of its rank, scaled by the better
//      half's spread around the median. Outliers then sit a few spreads
//      out, however far they were, and the order is kept.
//   2. Standardise, Yeo-Johnson power transform with its exponent fitted
//      by maximum likelihood (sklearn's PowerTransformer, HEBO) to pull in
//      remaining skew, standardise again (mean 0, variance 1).
// Constant values map to all zeros.

#include <Eigen/Core>

namespace hpt::suggestion {

struct OutputTransform {
  double lambda = 1;  // the fitted Yeo-Johnson exponent (1: identity)
  Eigen::VectorXd values;
};

// Exponents are searched in [-2, 3].
OutputTransform WarpOutputs(const Eigen::VectorXd& y);

// Step 1 alone.
Eigen::VectorXd HalfRankWarp(const Eigen::VectorXd& y);

// The Yeo-Johnson transform of one value.
double YeoJohnson(double y, double lambda);

// The standard normal quantile function, 0 < p < 1.
double NormalQuantile(double p);

}  // namespace hpt::suggestion
