#include "suggestion/parzen.h"

#include <algorithm>
#include <boost/math/special_functions/erf.hpp>
#include <cmath>
#include <limits>
#include <numeric>

namespace hpt::suggestion {
namespace {

constexpr double kPriorWeight = 1.0;
// Optuna's SIGMA0_MAGNITUDE is 0.2; hpt's joint kernels are 15% narrower
// (tpe.h says why).
constexpr double kMultivariateSigma0 = 0.17;
constexpr double kLogSqrt2Pi = 0.91893853320467274178;

double Phi(double z) { return 0.5 * std::erfc(-z / std::sqrt(2.0)); }

// log Phi(z), kept finite far into the lower tail (Mills' ratio series).
double LogPhi(double z) {
  if (z > -30) return std::log(Phi(z));
  const double r = 1 / (z * z);
  return -0.5 * z * z - std::log(-z) - kLogSqrt2Pi + std::log1p(-r + 3 * r * r);
}

// log of the standard normal's mass on [a, b], a <= b, accurate in either
// tail (the mass is taken on the side of zero it lies on).
double LogGaussMass(double a, double b) {
  // No mass on an empty (or NaN) interval; also ends the mirroring below
  // for a = b = 0, which an infinite sigma gives.
  if (!(a < b)) return -std::numeric_limits<double>::infinity();
  if (a >= 0) return LogGaussMass(-b, -a);
  if (b <= 0) {
    const double hi = LogPhi(b), lo = LogPhi(a);
    return hi + std::log1p(-std::exp(std::min(lo - hi, 0.0)));
  }
  return std::log1p(-Phi(a) - Phi(-b));
}

// Terms this far below the largest add less than e^-50 each: even a
// million of them stay far below a double's rounding of the sum (>= 1), so
// they are skipped rather than exponentiated (most of a wide mixture's
// kernels, at n = 1,000, are that far from a point).
constexpr double kNegligibleLogTerm = 50;

double LogSumExp(const std::vector<double>& v) {
  const double top = *std::max_element(v.begin(), v.end());
  if (!std::isfinite(top)) return top;
  double sum = 0;
  for (double x : v) {
    if (x > top - kNegligibleLogTerm) sum += std::exp(x - top);
  }
  return top + std::log(sum);
}

// log of the normal(mu, sigma)'s mass inside [low, high]: what the
// truncated density divides by.
double LogMass(double mu, double sigma, double low, double high) {
  return LogGaussMass((low - mu) / sigma, (high - mu) / sigma);
}

double SampleTruncNormal(double mu, double sigma, double low, double high,
                         std::mt19937_64& rng) {
  const double a = Phi((low - mu) / sigma), b = Phi((high - mu) / sigma);
  if (!(b - a > 1e-12)) {  // all the mass beyond a bound: that bound's side
    return std::clamp(mu, low, high);
  }
  const double u = std::uniform_real_distribution<double>(a, b)(rng);
  const double p = std::clamp(u, 1e-15, 1 - 1e-15);
  const double z = std::sqrt(2.0) * boost::math::erf_inv(2 * p - 1);
  return std::clamp(mu + sigma * z, low, high);
}

}  // namespace

std::vector<double> ObservationWeights(int n) {
  if (n < 25) return std::vector<double>(static_cast<size_t>(std::max(n, 0)), 1.0);
  std::vector<double> w(static_cast<size_t>(n), 1.0);
  const int ramp = n - 25;
  for (int i = 0; i < ramp; ++i) {
    w[static_cast<size_t>(i)] =
        ramp == 1 ? 1.0 / n : 1.0 / n + (1 - 1.0 / n) * i / (ramp - 1);
  }
  return w;
}

ParzenEstimator::ParzenEstimator(const std::vector<ParzenDimension>& dims,
                                 const std::vector<std::vector<double>>& observations,
                                 bool multivariate)
    : dims_(dims) {
  const int n = static_cast<int>(observations.size());
  const int components = n + 1;  // the observations, then the prior
  std::vector<double> weights = ObservationWeights(n);
  weights.push_back(kPriorWeight);
  const double total = std::accumulate(weights.begin(), weights.end(), 0.0);
  for (double w : weights) {
    weights_.push_back(w / total);
    log_weights_.push_back(std::log(w / total));
  }
  components_ = static_cast<size_t>(components);
  probs_.assign(static_cast<size_t>(components), {});
  for (size_t dim = 0; dim < dims_.size(); ++dim) {
    const ParzenDimension& d = dims_[dim];
    if (d.categorical) {
      offsets_.push_back(static_cast<int>(probs_[0].size()));
      for (int c = 0; c < components; ++c) {
        // Optuna's floor: the prior weight spread over the components.
        std::vector<double> p(static_cast<size_t>(d.choices), kPriorWeight / components);
        if (c < n) p[static_cast<size_t>(observations[static_cast<size_t>(c)][dim])] += 1;
        const double sum = std::accumulate(p.begin(), p.end(), 0.0);
        for (double& x : p) probs_[static_cast<size_t>(c)].push_back(x / sum);
      }
      continue;
    }
    offsets_.push_back(-1);
    const double range = d.high - d.low;
    std::vector<double> mus(static_cast<size_t>(components));
    for (int i = 0; i < n; ++i) mus[static_cast<size_t>(i)] = observations[static_cast<size_t>(i)][dim];
    mus[static_cast<size_t>(n)] = 0.5 * (d.low + d.high);
    std::vector<double> sigmas(static_cast<size_t>(components), range);
    if (multivariate) {
      // Optuna counts every parameter here, categorical ones too.
      const double s = kMultivariateSigma0 * std::pow(std::max(n, 1), -1.0 / (dims_.size() + 4.0)) * range;
      std::fill(sigmas.begin(), sigmas.end(), s);
    } else {
      // The larger gap to a neighbour, the range's ends standing in for the
      // missing neighbours of the first and last (then the inner gap only).
      std::vector<size_t> order(static_cast<size_t>(components));
      std::iota(order.begin(), order.end(), 0);
      std::sort(order.begin(), order.end(), [&](size_t a, size_t b) { return mus[a] < mus[b]; });
      std::vector<double> sorted = {d.low};
      for (size_t i : order) sorted.push_back(mus[i]);
      sorted.push_back(d.high);
      const size_t m = order.size();
      for (size_t k = 0; k < m; ++k) {
        double gap = std::max(sorted[k + 1] - sorted[k], sorted[k + 2] - sorted[k + 1]);
        if (m >= 2 && k == 0) gap = sorted[2] - sorted[1];
        if (m >= 2 && k == m - 1) gap = sorted[m] - sorted[m - 1];
        sigmas[order[k]] = gap;
      }
    }
    const double max_sigma = range;
    const double min_sigma = range / std::min(100.0, 1.0 + components);
    for (double& s : sigmas) s = std::clamp(s, min_sigma, max_sigma);
    sigmas[static_cast<size_t>(n)] = d.prior_sigma * range;  // the prior
    for (int c = 0; c < components; ++c) {
      const auto i = static_cast<size_t>(c);
      mus_.push_back(mus[i]);
      sigmas_.push_back(sigmas[i]);
      // Optuna 3.1 divides by the mass only, not by sigma (tpe.h).
      log_norms_.push_back(LogMass(mus[i], sigmas[i], d.low, d.high));
    }
  }
}

std::vector<double> ParzenEstimator::Sample(std::mt19937_64& rng) const {
  const size_t c = std::discrete_distribution<size_t>(weights_.begin(), weights_.end())(rng);
  std::vector<double> x;
  size_t numeric = 0;
  for (size_t dim = 0; dim < dims_.size(); ++dim) {
    const ParzenDimension& d = dims_[dim];
    if (d.categorical) {
      const auto first = probs_[c].begin() + offsets_[dim];
      x.push_back(static_cast<double>(
          std::discrete_distribution<int>(first, first + d.choices)(rng)));
    } else {
      const size_t k = numeric * components_ + c;
      x.push_back(SampleTruncNormal(mus_[k], sigmas_[k], d.low, d.high, rng));
      ++numeric;
    }
  }
  return x;
}

double ParzenEstimator::LogPdf(const std::vector<double>& x) const {
  std::vector<double> terms(log_weights_.size());
  for (size_t c = 0; c < log_weights_.size(); ++c) {
    double sum = log_weights_[c];
    size_t numeric = 0;
    for (size_t dim = 0; dim < dims_.size(); ++dim) {
      const ParzenDimension& d = dims_[dim];
      if (d.categorical) {
        sum += std::log(probs_[c][static_cast<size_t>(offsets_[dim]) + static_cast<size_t>(x[dim])]);
      } else {
        const size_t k = numeric * components_ + c;
        const double mu = mus_[k], sigma = sigmas_[k];
        if (d.step > 0) {  // the mass of x's grid cell
          const double lo = std::max(x[dim] - d.step / 2, d.low), hi = std::min(x[dim] + d.step / 2, d.high);
          sum += LogGaussMass((lo - mu) / sigma, (hi - mu) / sigma) - log_norms_[k];
        } else {
          const double z = (x[dim] - mu) / sigma;
          sum += -0.5 * z * z - kLogSqrt2Pi - log_norms_[k];
        }
        ++numeric;
      }
    }
    terms[c] = sum;
  }
  return LogSumExp(terms);
}

}  // namespace hpt::suggestion
