#include "suggestion/parzen.h"

#include <algorithm>
#include <boost/math/special_functions/erf.hpp>
#include <cmath>
#include <numeric>

namespace hpt::suggestion {
namespace {

constexpr double kPriorWeight = 1.0;
constexpr double kMultivariateSigma0 = 0.2;  // Optuna's SIGMA0_MAGNITUDE
constexpr double kLogSqrt2Pi = 0.91893853320467274178;

double Phi(double z) { return 0.5 * std::erfc(-z / std::sqrt(2.0)); }

double LogSumExp(const std::vector<double>& v) {
  const double top = *std::max_element(v.begin(), v.end());
  if (!std::isfinite(top)) return top;
  double sum = 0;
  for (double x : v) sum += std::exp(x - top);
  return top + std::log(sum);
}

// log(sigma * mass of the normal(mu, sigma) inside [low, high]): what the
// truncated density divides by.
double LogNorm(double mu, double sigma, double low, double high) {
  const double mass = Phi((high - mu) / sigma) - Phi((low - mu) / sigma);
  return std::log(sigma) + std::log(std::max(mass, 1e-300));
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
  log_norms_.assign(static_cast<size_t>(components), {});

  mus_.assign(static_cast<size_t>(components), {});
  sigmas_.assign(static_cast<size_t>(components), {});
  probs_.assign(static_cast<size_t>(components), {});
  int numeric_dims = 0;
  for (const ParzenDimension& d : dims_) numeric_dims += d.categorical ? 0 : 1;
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
      const double s = kMultivariateSigma0 * std::pow(std::max(n, 1), -1.0 / (numeric_dims + 4)) * range;
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
    sigmas[static_cast<size_t>(n)] = range;  // the prior
    for (int c = 0; c < components; ++c) {
      const auto i = static_cast<size_t>(c);
      mus_[i].push_back(mus[i]);
      sigmas_[i].push_back(sigmas[i]);
      log_norms_[i].push_back(LogNorm(mus[i], sigmas[i], d.low, d.high));
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
      x.push_back(SampleTruncNormal(mus_[c][numeric], sigmas_[c][numeric], d.low, d.high, rng));
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
        const double z = (x[dim] - mus_[c][numeric]) / sigmas_[c][numeric];
        sum += -0.5 * z * z - kLogSqrt2Pi - log_norms_[c][numeric];
        ++numeric;
      }
    }
    terms[c] = sum;
  }
  return LogSumExp(terms);
}

}  // namespace hpt::suggestion
