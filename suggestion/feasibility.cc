#include "suggestion/feasibility.h"

#include <algorithm>
#include <cmath>
#include <map>
#include <utility>
#include <vector>

#include "api/constraints.h"

namespace hpt::suggestion {
namespace {

constexpr double kInvSqrt2 = 0.70710678118654752440;
constexpr double kLogSqrt2Pi = 0.91893853320467274178;
// Below this z, log Phi comes from the Mills ratio's continued fraction.
constexpr double kTailBelow = -5;
constexpr int kFractionDepth = 60;

}  // namespace

double LogNormalCdf(double z, double* dlog) {
  if (z > kTailBelow) {
    const double cdf = 0.5 * std::erfc(-z * kInvSqrt2);
    if (dlog) *dlog = std::exp(-0.5 * z * z - kLogSqrt2Pi) / cdf;
    return std::log(cdf);
  }
  // Phi(z) = phi(z) R(t), t = -z, with Mills' ratio
  // R(t) = 1 / (t + 1 / (t + 2 / (t + 3 / ...))).
  const double t = -z;
  double f = t;
  for (int k = kFractionDepth; k >= 1; --k) f = t + k / f;
  const double mills = 1 / f;
  if (dlog) *dlog = 1 / mills;
  return -0.5 * z * z - kLogSqrt2Pi + std::log(mills);
}

std::unique_ptr<FeasibilityModel> FeasibilityModel::Fit(const UnitCube& cube,
                                                        const std::vector<api::Trial>& history,
                                                        const FitOptions& options,
                                                        std::mt19937_64& rng,
                                                        const Eigen::VectorXd* centre,
                                                        int max_points) {
  // Each constraint's points and values, by index.
  std::map<size_t, std::pair<std::vector<Eigen::VectorXd>, std::vector<double>>> data;
  for (const api::Trial& t : history) {
    if (!api::HasConstraints(t)) continue;
    std::optional<Eigen::VectorXd> x = cube.Encode(t.assignment);
    if (!x) continue;
    for (const api::MetricSummary& m : t.metrics) {
      std::optional<size_t> k = api::ConstraintIndex(m.name);
      if (!k || !std::isfinite(m.latest)) continue;
      data[*k].first.push_back(*x);
      data[*k].second.push_back(m.latest);
    }
  }
  if (data.empty()) return nullptr;
  auto model = std::unique_ptr<FeasibilityModel>(new FeasibilityModel());
  for (auto& [k, points] : data) {
    auto& [xs, values] = points;
    if (centre && max_points > 0 && static_cast<int>(values.size()) > max_points) {
      // The nearest max_points, in history order.
      std::vector<std::pair<double, size_t>> distance;
      for (size_t i = 0; i < xs.size(); ++i) {
        distance.push_back({(xs[i] - *centre).squaredNorm(), i});
      }
      std::nth_element(distance.begin(), distance.begin() + max_points, distance.end());
      std::vector<size_t> keep;
      for (int i = 0; i < max_points; ++i) {
        keep.push_back(distance[static_cast<size_t>(i)].second);
      }
      std::sort(keep.begin(), keep.end());
      std::vector<Eigen::VectorXd> kept_x;
      std::vector<double> kept_values;
      for (size_t i : keep) {
        kept_x.push_back(std::move(xs[i]));
        kept_values.push_back(values[i]);
      }
      xs = std::move(kept_x);
      values = std::move(kept_values);
    }
    const auto n = static_cast<Eigen::Index>(values.size());
    Eigen::VectorXd y = Eigen::Map<const Eigen::VectorXd>(values.data(), n);
    const double mean = y.mean();
    const double sd = std::sqrt((y.array() - mean).square().mean());
    if (!(sd > 1e-12 * std::max(1.0, std::abs(mean)))) {
      model->fixed_.push_back(mean <= 0 ? 0.0 : -HUGE_VAL);
      continue;
    }
    y = (y.array() - mean) / sd;
    Eigen::MatrixXd x(cube.dim(), n);
    for (Eigen::Index i = 0; i < n; ++i) x.col(i) = xs[static_cast<size_t>(i)];
    const Eigen::VectorXd theta = FitHyperparameters(x, y, std::nullopt, options, rng);
    model->models_.push_back(
        {std::make_unique<GaussianProcess>(GpHyperparameters::FromTheta(theta), x, y),
         -mean / sd});
  }
  return model;
}

Eigen::VectorXd FeasibilityModel::LogProbabilities(const Eigen::MatrixXd& x) const {
  Eigen::VectorXd out = Eigen::VectorXd::Zero(x.cols());
  for (double f : fixed_) out.array() += f;
  for (const Model& m : models_) {
    Eigen::VectorXd mean, variance;
    m.gp->Predict(x, &mean, &variance);
    for (Eigen::Index i = 0; i < x.cols(); ++i) {
      out[i] += LogNormalCdf((m.threshold - mean[i]) / std::sqrt(variance[i]));
    }
  }
  return out;
}

double FeasibilityModel::LogProbabilityWithGradient(const Eigen::VectorXd& x,
                                                    Eigen::VectorXd* grad) const {
  double value = 0;
  *grad = Eigen::VectorXd::Zero(x.size());
  for (double f : fixed_) value += f;
  for (const Model& m : models_) {
    double mean = 0, variance = 0;
    Eigen::VectorXd dmean, dvariance;
    m.gp->PredictWithGradient(x, &mean, &variance, &dmean, &dvariance);
    const double sd = std::sqrt(variance);
    const double z = (m.threshold - mean) / sd;
    double dlog = 0;
    value += LogNormalCdf(z, &dlog);
    const Eigen::VectorXd dsd = dvariance / (2 * sd);
    *grad += dlog * (-dmean - z * dsd) / sd;
  }
  return value;
}

}  // namespace hpt::suggestion
