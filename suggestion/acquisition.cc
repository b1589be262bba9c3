#include "suggestion/acquisition.h"

#include <algorithm>
#include <cmath>
#include <exception>
#include <nlopt.hpp>
#include <numeric>

namespace hpt::suggestion {
namespace {

constexpr double kInvSqrt2 = 0.70710678118654752440;
constexpr double kLogSqrt2Pi = 0.91893853320467274178;
// Below this u, h(u) is computed from a continued fraction.
constexpr double kFractionBelow = -5;
constexpr int kFractionDepth = 60;

double LogPhi(double u) { return -0.5 * u * u - kLogSqrt2Pi; }

struct Refinement {
  const Acquisition* acquisition;
  Eigen::VectorXd x;      // the full point; free coordinates overwritten
  std::vector<int> free;  // indices of the coordinates being moved
};

double RefineObjective(const std::vector<double>& v, std::vector<double>& g,
                       void* data) {
  auto* r = static_cast<Refinement*>(data);
  for (size_t i = 0; i < r->free.size(); ++i) r->x[r->free[i]] = v[i];
  Eigen::VectorXd grad;
  double value = r->acquisition->ValueWithGradient(r->x, &grad);
  if (!std::isfinite(value)) value = -1e300;
  if (!g.empty()) {
    for (size_t i = 0; i < r->free.size(); ++i) {
      g[i] = std::isfinite(grad[r->free[i]]) ? grad[r->free[i]] : 0;
    }
  }
  return value;
}

}  // namespace

double LogH(double u, double* dlog_h) {
  if (u > kFractionBelow) {
    double cdf = 0.5 * std::erfc(-u * kInvSqrt2);
    double h = std::exp(LogPhi(u)) + u * cdf;
    if (dlog_h) *dlog_h = cdf / h;
    return std::log(h);
  }
  // With t = -u and Mills' ratio R(t) = 1 / (t + c), where
  // c = 1 / (t + 2 / (t + 3 / (t + ...))): h(u) = phi(u) c R(t), and
  // Phi(u) / h(u) = 1 / c, all without cancellation.
  double t = -u;
  double f = t;
  for (int k = kFractionDepth; k >= 2; --k) f = t + k / f;
  double c = 1 / f;
  double mills = 1 / (t + c);
  if (dlog_h) *dlog_h = 1 / c;
  return LogPhi(u) + std::log(c) + std::log(mills);
}

Acquisition::Acquisition(const GaussianProcess& gp, AcquisitionKind kind,
                         double best, double kappa,
                         const FeasibilityModel* feasibility)
    : gp_(gp), kind_(kind), best_(best), kappa_(kappa), feasibility_(feasibility) {}

double Acquisition::FromMoments(double mean, double variance) const {
  double sd = std::sqrt(variance);
  if (kind_ == AcquisitionKind::kUcb) return kappa_ * sd - mean;
  return std::log(sd) + LogH((best_ - mean) / sd);
}

Eigen::VectorXd Acquisition::Values(const Eigen::MatrixXd& x) const {
  if (feasibility_ && !std::isfinite(best_)) return feasibility_->LogProbabilities(x);
  Eigen::VectorXd mean, variance;
  gp_.Predict(x, &mean, &variance);
  Eigen::VectorXd values(x.cols());
  for (Eigen::Index i = 0; i < x.cols(); ++i) {
    values[i] = FromMoments(mean[i], variance[i]);
  }
  if (feasibility_) values += feasibility_->LogProbabilities(x);
  return values;
}

double Acquisition::ValueWithGradient(const Eigen::VectorXd& x,
                                      Eigen::VectorXd* grad) const {
  if (!feasibility_) return ObjectiveWithGradient(x, grad);
  if (!std::isfinite(best_)) return feasibility_->LogProbabilityWithGradient(x, grad);
  Eigen::VectorXd feasible_grad;
  const double value = ObjectiveWithGradient(x, grad) +
                       feasibility_->LogProbabilityWithGradient(x, &feasible_grad);
  *grad += feasible_grad;
  return value;
}

double Acquisition::ObjectiveWithGradient(const Eigen::VectorXd& x,
                                          Eigen::VectorXd* grad) const {
  double mean = 0, variance = 0;
  Eigen::VectorXd dmean, dvariance;
  gp_.PredictWithGradient(x, &mean, &variance, &dmean, &dvariance);
  double sd = std::sqrt(variance);
  Eigen::VectorXd dsd = dvariance / (2 * sd);
  if (kind_ == AcquisitionKind::kUcb) {
    *grad = kappa_ * dsd - dmean;
    return kappa_ * sd - mean;
  }
  // d/dx [log sd + log h(u)], u = (best - mean) / sd.
  double u = (best_ - mean) / sd;
  double dlog_h = 0;
  double value = std::log(sd) + LogH(u, &dlog_h);
  Eigen::VectorXd du = (-dmean - u * dsd) / sd;
  *grad = dsd / sd + dlog_h * du;
  return value;
}

std::vector<ScoredPoint> MaximizeAcquisition(const Acquisition& acquisition,
                                             const UnitCube& cube,
                                             const Eigen::MatrixXd& candidates,
                                             const MaximizeOptions& options) {
  std::vector<ScoredPoint> scored;
  if (candidates.cols() == 0) return scored;
  Eigen::VectorXd values = acquisition.Values(candidates);
  std::vector<Eigen::Index> order(static_cast<size_t>(candidates.cols()));
  std::iota(order.begin(), order.end(), 0);
  size_t keep = std::min(order.size(), static_cast<size_t>(options.keep));
  std::partial_sort(
      order.begin(), order.begin() + static_cast<std::ptrdiff_t>(keep),
      order.end(),
      [&](Eigen::Index a, Eigen::Index b) { return values[a] > values[b]; });
  for (size_t i = 0; i < keep; ++i) {
    scored.push_back({candidates.col(order[i]), values[order[i]]});
  }

  std::vector<int> free;
  for (int d = 0; d < cube.dim(); ++d) {
    if (!cube.categorical()[static_cast<size_t>(d)]) free.push_back(d);
  }
  if (!free.empty()) {
    int starts = std::min(options.starts, static_cast<int>(keep));
    for (int s = 0; s < starts; ++s) {
      Refinement r{&acquisition, scored[static_cast<size_t>(s)].x, free};
      std::vector<double> v(free.size());
      for (size_t i = 0; i < free.size(); ++i) v[i] = r.x[free[i]];
      nlopt::opt opt(nlopt::LD_LBFGS, static_cast<unsigned>(free.size()));
      if (options.lower.size() == cube.dim() && options.upper.size() == cube.dim()) {
        std::vector<double> lo(free.size()), hi(free.size());
        for (size_t i = 0; i < free.size(); ++i) {
          lo[i] = std::clamp(std::min(options.lower[free[i]], v[i]), 0.0, 1.0);
          hi[i] = std::clamp(std::max(options.upper[free[i]], v[i]), 0.0, 1.0);
        }
        opt.set_lower_bounds(lo);
        opt.set_upper_bounds(hi);
      } else {
        opt.set_lower_bounds(0.0);
        opt.set_upper_bounds(1.0);
      }
      opt.set_max_objective(RefineObjective, &r);
      opt.set_maxeval(options.max_evaluations);
      opt.set_xtol_rel(1e-6);
      opt.set_ftol_rel(1e-9);
      double best = 0;
      try {
        opt.optimize(v, best);
      } catch (const std::exception&) {
        // Keep what was reached: v holds the last accepted point.
      }
      for (size_t i = 0; i < free.size(); ++i) {
        r.x[free[i]] = std::clamp(v[i], 0.0, 1.0);
      }
      Eigen::VectorXd projected = cube.Project(r.x);
      double value = acquisition.Values(projected)[0];
      scored.push_back({std::move(projected), value});
    }
  }
  std::stable_sort(scored.begin(), scored.end(),
                   [](const ScoredPoint& a, const ScoredPoint& b) {
                     return a.value > b.value;
                   });
  // Refinements from nearby starts often meet; keep one of each point.
  std::vector<ScoredPoint> distinct;
  for (ScoredPoint& p : scored) {
    bool seen = false;
    for (const ScoredPoint& q : distinct) seen = seen || q.x == p.x;
    if (!seen) distinct.push_back(std::move(p));
  }
  return distinct;
}

}  // namespace hpt::suggestion
