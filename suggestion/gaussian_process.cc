#include "suggestion/gaussian_process.h"

#include <Eigen/Dense>
#include <algorithm>
#include <cmath>

#include "api/status.h"

namespace hpt::suggestion {
namespace {

constexpr double kSqrt5 = 2.23606797749978969641;
// A pivot below this fraction of the diagonal counts as a failure.
constexpr double kMinPivot = 1e-12;
constexpr double kFirstJitter = 1e-8;
constexpr double kMaxJitter = 1e2;
// The variance floor, relative to the signal variance.
constexpr double kMinVariance = 1e-12;

bool SameBits(const Eigen::VectorXd& a, const Eigen::VectorXd& b) {
  if (a.size() != b.size()) return false;
  for (Eigen::Index i = 0; i < a.size(); ++i) {
    if (a[i] != b[i]) return false;
  }
  return true;
}

}  // namespace

Eigen::VectorXd GpHyperparameters::ToTheta() const {
  Eigen::VectorXd theta(dim() + 2);
  theta.head(dim()) = lengthscales.array().log();
  theta[dim()] = std::log(signal_variance);
  theta[dim() + 1] = std::log(noise_variance);
  return theta;
}

GpHyperparameters GpHyperparameters::FromTheta(const Eigen::VectorXd& theta) {
  GpHyperparameters h;
  int dim = static_cast<int>(theta.size()) - 2;
  h.lengthscales = theta.head(dim).array().exp();
  h.signal_variance = std::exp(theta[dim]);
  h.noise_variance = std::exp(theta[dim + 1]);
  return h;
}

double Matern52(const double* a, const double* b, int dim, double signal) {
  double r2 = 0;
  for (int d = 0; d < dim; ++d) {
    double diff = a[d] - b[d];
    r2 += diff * diff;
  }
  double r = std::sqrt(5 * r2);
  return signal * (1 + r + r * r / 3) * std::exp(-r);
}

GaussianProcess::GaussianProcess(const GpHyperparameters& h,
                                 const Eigen::MatrixXd& x,
                                 const Eigen::VectorXd& y,
                                 std::unique_ptr<KernelFactor> reuse)
    : h_(h), inv_lengthscales_(h.lengthscales.cwiseInverse()), y_(y) {
  HPT_CHECK(x.rows() == h.dim() && x.cols() == y.size());
  const int n = static_cast<int>(x.cols());
  Eigen::VectorXd theta = h.ToTheta();
  bool usable = reuse && SameBits(reuse->theta, theta) && reuse->size <= n &&
                reuse->points.rows() == x.rows();
  for (int j = 0; usable && j < reuse->size; ++j) {
    usable = SameBits(reuse->points.col(j), x.col(j));
  }
  if (usable) {
    factor_ = std::move(reuse);
  } else {
    factor_ = std::make_unique<KernelFactor>();
    factor_->theta = theta;
  }
  Reserve(n + 8);
  if (scaled_.cols() != factor_->points.cols()) {
    scaled_.resize(h.dim(), factor_->points.cols());
  }
  factor_->points.leftCols(n) = x;
  scaled_.leftCols(n) = x.array().colwise() * inv_lengthscales_.array();
  int start = factor_->size;
  bool ok = true;
  for (int i = start; i < n && ok; ++i) {
    ok = AppendRow(i);
    if (ok) factor_->size = i + 1;
  }
  factor_->size = n;
  if (!ok) Refactor();
  SolveAlpha();
}

void GaussianProcess::Reserve(int capacity) {
  KernelFactor& f = *factor_;
  if (f.points.cols() >= capacity) return;
  // Grow geometrically: a cached factor gains a row or so per call.
  capacity =
      std::max<int>(capacity, static_cast<int>(f.points.cols()) * 6 / 5 + 16);
  int n = f.size;
  Eigen::MatrixXd points(h_.dim(), capacity);
  Eigen::MatrixXd chol(capacity, capacity);
  Eigen::MatrixXd scaled(h_.dim(), capacity);
  points.leftCols(n) = f.points.leftCols(n);
  chol.topLeftCorner(n, n) = f.chol.topLeftCorner(n, n);
  scaled.leftCols(n) =
      f.points.leftCols(n).array().colwise() * inv_lengthscales_.array();
  f.points = std::move(points);
  f.chol = std::move(chol);
  scaled_ = std::move(scaled);
}

bool GaussianProcess::AppendRow(int i) {
  KernelFactor& f = *factor_;
  Eigen::MatrixXd& l = f.chol;
  const int dim = h_.dim();
  const double* xi = scaled_.col(i).data();
  Eigen::VectorXd r(i);
  for (int j = 0; j < i; ++j) {
    r[j] = Matern52(xi, scaled_.col(j).data(), dim, h_.signal_variance);
  }
  // Forward substitution by columns: each entry sees the same operations in
  // the same order whatever the row's length, hence the bitwise repeatability.
  for (int j = 0; j < i; ++j) {
    r[j] /= l(j, j);
    int below = i - j - 1;
    if (below > 0)
      r.segment(j + 1, below) -= r[j] * l.col(j).segment(j + 1, below);
  }
  double diagonal = h_.signal_variance + h_.noise_variance + f.jitter;
  double pivot = diagonal;
  for (int j = 0; j < i; ++j) pivot -= r[j] * r[j];
  if (!(pivot > kMinPivot * diagonal)) return false;
  l.row(i).head(i) = r.transpose();
  l(i, i) = std::sqrt(pivot);
  return true;
}

void GaussianProcess::Refactor() {
  KernelFactor& f = *factor_;
  const int n = f.size;
  while (true) {
    f.jitter =
        f.jitter == 0 ? kFirstJitter * h_.signal_variance : f.jitter * 10;
    HPT_CHECK(f.jitter <= kMaxJitter * h_.signal_variance);
    bool ok = true;
    for (int i = 0; i < n && ok; ++i) ok = AppendRow(i);
    if (ok) return;
  }
}

void GaussianProcess::SolveAlpha() {
  const int n = size();
  auto l = factor_->chol.topLeftCorner(n, n).triangularView<Eigen::Lower>();
  alpha_ = l.solve(y_);
  l.transpose().solveInPlace(alpha_);
}

void GaussianProcess::Add(const Eigen::VectorXd& x, double y) {
  KernelFactor& f = *factor_;
  const int n = f.size;
  Reserve(n + 1);
  f.points.col(n) = x;
  scaled_.col(n) = x.cwiseProduct(inv_lengthscales_);
  bool ok = AppendRow(n);
  f.size = n + 1;
  if (!ok) Refactor();
  y_.conservativeResize(n + 1);
  y_[n] = y;
  SolveAlpha();
}

void GaussianProcess::Predict(const Eigen::MatrixXd& x, Eigen::VectorXd* mean,
                              Eigen::VectorXd* variance) const {
  const int n = size();
  const int m = static_cast<int>(x.cols());
  const double s = h_.signal_variance;
  mean->resize(m);
  variance->resize(m);
  // Blocks of columns keep the kernel block small enough for the heap to
  // reuse (a block of n x m would be a fresh mmap, and page faults, per
  // call).
  const int block = std::max(1, std::min(m, (1 << 13) / std::max(n, 1)));
  Eigen::MatrixXd k(n, block);
  Eigen::VectorXd scaled(h_.dim());
  auto l = factor_->chol.topLeftCorner(n, n).triangularView<Eigen::Lower>();
  for (int first = 0; first < m; first += block) {
    const int width = std::min(block, m - first);
    auto kb = k.leftCols(width);
    for (int c = 0; c < width; ++c) {
      scaled = x.col(first + c).cwiseProduct(inv_lengthscales_);
      auto column = kb.col(c).array();
      for (int j = 0; j < n; ++j) {
        column[j] = kSqrt5 * std::sqrt((scaled_.col(j) - scaled).squaredNorm());
      }
      column = s * (1 + column + column.square() / 3) * (-column).exp();
    }
    mean->segment(first, width).noalias() = kb.transpose() * alpha_;
    l.solveInPlace(kb);
    variance->segment(first, width) = (s - kb.colwise().squaredNorm().array())
                                          .max(kMinVariance * s)
                                          .matrix()
                                          .transpose();
  }
}

void GaussianProcess::PredictWithGradient(const Eigen::VectorXd& x,
                                          double* mean, double* variance,
                                          Eigen::VectorXd* dmean,
                                          Eigen::VectorXd* dvariance) const {
  const int n = size();
  const int dim = h_.dim();
  const double s = h_.signal_variance;
  Eigen::VectorXd scaled = x.cwiseProduct(inv_lengthscales_);
  Eigen::VectorXd k(n);
  Eigen::MatrixXd dk(n, dim);
  for (int j = 0; j < n; ++j) {
    Eigen::VectorXd diff = scaled - scaled_.col(j);
    double r = kSqrt5 * diff.norm();
    double e = std::exp(-r);
    k[j] = s * (1 + r + r * r / 3) * e;
    dk.row(j) = (-(5.0 / 3.0) * s * e * (1 + r)) *
                diff.cwiseProduct(inv_lengthscales_).transpose();
  }
  *mean = k.dot(alpha_);
  *dmean = dk.transpose() * alpha_;
  auto l = factor_->chol.topLeftCorner(n, n).triangularView<Eigen::Lower>();
  Eigen::VectorXd v = l.solve(k);
  double var = s - v.squaredNorm();
  Eigen::VectorXd w = l.transpose().solve(v);
  if (var > kMinVariance * s) {
    *variance = var;
    *dvariance = -2 * (dk.transpose() * w);
  } else {
    *variance = kMinVariance * s;
    *dvariance = Eigen::VectorXd::Zero(dim);
  }
}

Eigen::VectorXd GaussianProcess::FittedMeans() const {
  return y_ - (h_.noise_variance + factor_->jitter) * alpha_;
}

std::unique_ptr<KernelFactor> GaussianProcess::ReleaseFactor(int n) {
  HPT_CHECK(n <= factor_->size);
  factor_->size = n;
  return std::move(factor_);
}

}  // namespace hpt::suggestion
