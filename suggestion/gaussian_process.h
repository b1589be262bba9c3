#pragma once
// A Gaussian-process regression model on the unit cube: constant zero mean
// (outputs are standardised first), Matérn-5/2 kernel with one length scale
// per coordinate (ARD), and Gaussian observation noise:
//
//   k(a, b) = s (1 + r + r^2/3) exp(-r),  r^2 = 5 sum_d ((a_d - b_d)/l_d)^2
//   y = f(x) + e,  e ~ N(0, noise)
//
// The Cholesky factor of K + (noise + jitter) I is built one row at a time,
// so that a factor over points p_1..p_n is bitwise the same whether it was
// built in one go or grown from a factor over p_1..p_k (the FactorCache
// relies on this). Jitter is the first of 0, 1e-8 s, 1e-7 s, ... that makes
// every pivot positive, so duplicate points never fail the factorisation.
//
// Not thread-safe; one model per call.

#include <Eigen/Core>
#include <memory>

namespace hpt::suggestion {

// Kernel hyperparameters. As a vector ("theta"): log length scales, then
// log signal variance, then log noise variance.
struct GpHyperparameters {
  Eigen::VectorXd lengthscales;
  double signal_variance = 1;
  double noise_variance = 1e-4;

  int dim() const { return static_cast<int>(lengthscales.size()); }
  Eigen::VectorXd ToTheta() const;
  static GpHyperparameters FromTheta(const Eigen::VectorXd& theta);
};

// Matérn-5/2 value for points already divided by the length scales.
double Matern52(const double* a, const double* b, int dim, double signal);

// The growing factor: points (dim x capacity, first `size` columns used)
// and the lower-triangular Cholesky factor (capacity x capacity, top-left
// size x size used) of their kernel matrix plus (noise + jitter) I.
struct KernelFactor {
  Eigen::VectorXd theta;  // the hyperparameters it was built with
  double jitter = 0;
  Eigen::MatrixXd points;  // unscaled, in [0, 1]
  Eigen::MatrixXd chol;
  int size = 0;
};

class GaussianProcess {
 public:
  // Conditions on points x (dim x n) with values y. `reuse`, when given, is
  // a factor built with the same hyperparameters whose points are the first
  // columns of x (see FactorCache); it is extended rather than rebuilt.
  GaussianProcess(const GpHyperparameters& h, const Eigen::MatrixXd& x,
                  const Eigen::VectorXd& y,
                  std::unique_ptr<KernelFactor> reuse = nullptr);

  int size() const { return factor_->size; }
  int dim() const { return h_.dim(); }
  const GpHyperparameters& hyperparameters() const { return h_; }
  double jitter() const { return factor_->jitter; }

  // One more observation (e.g. a fantasy for a pending point), O(n^2).
  void Add(const Eigen::VectorXd& x, double y);

  // Posterior mean and variance of f (noise excluded, floored at 1e-12 s)
  // at the columns of x.
  void Predict(const Eigen::MatrixXd& x, Eigen::VectorXd* mean,
               Eigen::VectorXd* variance) const;
  // The same at one point, with gradients with respect to it.
  void PredictWithGradient(const Eigen::VectorXd& x, double* mean,
                           double* variance, Eigen::VectorXd* dmean,
                           Eigen::VectorXd* dvariance) const;
  // Posterior means at the conditioning points themselves.
  Eigen::VectorXd FittedMeans() const;

  // Hands the factor over the first n points to the caller (for the
  // cache); the model must not be used afterwards.
  std::unique_ptr<KernelFactor> ReleaseFactor(int n);

 private:
  // Appends point column `i` of the factor's points; false when its pivot
  // is not safely positive.
  bool AppendRow(int i);
  void Reserve(int capacity);
  void Refactor();
  void SolveAlpha();

  GpHyperparameters h_;
  Eigen::VectorXd inv_lengthscales_;
  std::unique_ptr<KernelFactor> factor_;
  Eigen::MatrixXd scaled_;  // points divided by the length scales
  Eigen::VectorXd y_;
  Eigen::VectorXd alpha_;  // (K + noise I)^-1 y
};

}  // namespace hpt::suggestion
