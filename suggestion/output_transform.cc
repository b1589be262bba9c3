#include "suggestion/output_transform.h"

#include <algorithm>
#include <cmath>
#include <vector>

namespace hpt::suggestion {
namespace {

constexpr double kMinLambda = -2;
constexpr double kMaxLambda = 3;

// Mean 0 and variance 1; false (and zeros) for constant values.
bool Standardize(Eigen::VectorXd* y) {
  double mean = y->mean();
  double var = (y->array() - mean).square().mean();
  if (!(var > 1e-300) || !std::isfinite(var)) {
    y->setZero();
    return false;
  }
  *y = (y->array() - mean) / std::sqrt(var);
  return true;
}

// The exponent is fitted on at most this many values: past it, on evenly
// spaced order statistics of them (the likelihood depends on the values'
// distribution only), so that warping 10,000 values costs a sort rather
// than 42 passes of pow over all of them.
constexpr Eigen::Index kMaxFitValues = 2048;

// sum sign(y) log(1 + |y|): the Jacobian's part of the likelihood, which
// does not depend on lambda.
double JacobianSum(const Eigen::VectorXd& y) {
  double jacobian = 0;
  for (Eigen::Index i = 0; i < y.size(); ++i) {
    jacobian += std::copysign(std::log1p(std::fabs(y[i])), y[i]);
  }
  return jacobian;
}

// Yeo-Johnson profile log likelihood of lambda (constants dropped), given
// JacobianSum(y).
double LogLikelihood(const Eigen::VectorXd& y, double jacobian, double lambda) {
  Eigen::VectorXd t(y.size());
  for (Eigen::Index i = 0; i < y.size(); ++i) {
    t[i] = YeoJohnson(y[i], lambda);
  }
  double var = (t.array() - t.mean()).square().mean();
  if (!(var > 0) || !std::isfinite(var)) return -HUGE_VAL;
  return -0.5 * static_cast<double>(y.size()) * std::log(var) +
         (lambda - 1) * jacobian;
}

}  // namespace

double NormalQuantile(double p) {
  // Acklam's rational approximation (relative error 1e-9), then one Halley
  // step on erfc to full precision.
  static const double a[] = {-3.969683028665376e+01, 2.209460984245205e+02,
                             -2.759285104469687e+02, 1.383577518672690e+02,
                             -3.066479806614716e+01, 2.506628277459239e+00};
  static const double b[] = {-5.447609879822406e+01, 1.615858368580409e+02,
                             -1.556989798598866e+02, 6.680131188771972e+01,
                             -1.328068155288572e+01};
  static const double c[] = {-7.784894002430293e-03, -3.223964580411365e-01,
                             -2.400758277161838e+00, -2.549732539343734e+00,
                             4.374664141464968e+00,  2.938163982698783e+00};
  static const double d[] = {7.784695709041462e-03, 3.224671290700398e-01,
                             2.445134137142996e+00, 3.754408661907416e+00};
  double x;
  if (p < 0.02425) {
    double q = std::sqrt(-2 * std::log(p));
    x = (((((c[0] * q + c[1]) * q + c[2]) * q + c[3]) * q + c[4]) * q + c[5]) /
        ((((d[0] * q + d[1]) * q + d[2]) * q + d[3]) * q + 1);
  } else if (p <= 1 - 0.02425) {
    double q = p - 0.5, r = q * q;
    x = (((((a[0] * r + a[1]) * r + a[2]) * r + a[3]) * r + a[4]) * r + a[5]) *
        q / (((((b[0] * r + b[1]) * r + b[2]) * r + b[3]) * r + b[4]) * r + 1);
  } else {
    double q = std::sqrt(-2 * std::log1p(-p));
    x = -(((((c[0] * q + c[1]) * q + c[2]) * q + c[3]) * q + c[4]) * q + c[5]) /
        ((((d[0] * q + d[1]) * q + d[2]) * q + d[3]) * q + 1);
  }
  double e = 0.5 * std::erfc(-x / std::sqrt(2.0)) - p;
  double u = e * std::sqrt(2 * M_PI) * std::exp(x * x / 2);
  return x - u / (1 + x * u / 2);
}

Eigen::VectorXd HalfRankWarp(const Eigen::VectorXd& y) {
  const Eigen::Index n = y.size();
  Eigen::VectorXd out = y;
  if (n < 3) return out;
  std::vector<Eigen::Index> order(static_cast<size_t>(n));
  for (Eigen::Index i = 0; i < n; ++i) order[static_cast<size_t>(i)] = i;
  std::stable_sort(order.begin(), order.end(),
                   [&](Eigen::Index a, Eigen::Index b) { return y[a] < y[b]; });
  double median = n % 2 ? y[order[static_cast<size_t>(n / 2)]]
                        : 0.5 * (y[order[static_cast<size_t>(n / 2 - 1)]] +
                                 y[order[static_cast<size_t>(n / 2)]]);
  double spread = 0;
  int good = 0;
  for (Eigen::Index i = 0; i < n; ++i) {
    if (y[i] <= median) spread += (y[i] - median) * (y[i] - median), ++good;
  }
  spread = std::sqrt(spread / std::max(good, 1));
  if (!(spread > 0))
    return out;  // the better half is flat: nothing to scale by
  // Ties share the mean of their ranks, so equal values stay equal.
  for (size_t i = 0; i < order.size();) {
    size_t j = i;
    while (j + 1 < order.size() && y[order[j + 1]] == y[order[i]]) ++j;
    double value = y[order[i]];
    if (value > median) {
      double rank = 0.5 * static_cast<double>(i + j);
      double q = (rank + 0.5) / static_cast<double>(n);
      double warped = median + spread * NormalQuantile(q);
      // Never move a value the wrong side of the median or above itself.
      warped = std::clamp(warped, std::nextafter(median, HUGE_VAL), value);
      for (size_t k = i; k <= j; ++k) out[order[k]] = warped;
    }
    i = j + 1;
  }
  return out;
}

double YeoJohnson(double y, double lambda) {
  if (y >= 0) {
    if (std::fabs(lambda) < 1e-12) return std::log1p(y);
    return std::expm1(lambda * std::log1p(y)) / lambda;
  }
  if (std::fabs(lambda - 2) < 1e-12) return -std::log1p(-y);
  return -std::expm1((2 - lambda) * std::log1p(-y)) / (2 - lambda);
}

OutputTransform WarpOutputs(const Eigen::VectorXd& y) {
  OutputTransform out;
  out.values = HalfRankWarp(y);
  if (!Standardize(&out.values) || y.size() < 3) return out;
  Eigen::VectorXd sample = out.values;
  if (sample.size() > kMaxFitValues) {
    std::sort(sample.begin(), sample.end());
    Eigen::VectorXd picked(kMaxFitValues);
    const double step = static_cast<double>(sample.size() - 1) /
                        static_cast<double>(kMaxFitValues - 1);
    for (Eigen::Index i = 0; i < kMaxFitValues; ++i) {
      picked[i] = sample[static_cast<Eigen::Index>(std::lround(
          static_cast<double>(i) * step))];
    }
    sample = std::move(picked);
  }
  const double jacobian = JacobianSum(sample);
  auto likelihood = [&](double lambda) {
    return LogLikelihood(sample, jacobian, lambda);
  };
  // Golden-section search; the profile likelihood is unimodal in practice.
  // (Up to kMaxFitValues the sample is all the values, in their order.)
  const double ratio = (std::sqrt(5.0) - 1) / 2;
  double a = kMinLambda, b = kMaxLambda;
  double c = b - ratio * (b - a), d = a + ratio * (b - a);
  double fc = likelihood(c), fd = likelihood(d);
  for (int i = 0; i < 40; ++i) {
    if (fc > fd) {
      b = d, d = c, fd = fc;
      c = b - ratio * (b - a);
      fc = likelihood(c);
    } else {
      a = c, c = d, fc = fd;
      d = a + ratio * (b - a);
      fd = likelihood(d);
    }
  }
  out.lambda = (a + b) / 2;
  for (Eigen::Index i = 0; i < out.values.size(); ++i) {
    out.values[i] = YeoJohnson(out.values[i], out.lambda);
  }
  Standardize(&out.values);
  return out;
}

}  // namespace hpt::suggestion
