#include "suggestion/gp_fit.h"

#include <Eigen/Cholesky>
#include <Eigen/Dense>
#include <algorithm>
#include <cmath>
#include <exception>
#include <nlopt.hpp>
#include <numeric>
#include <vector>

#include "suggestion/gaussian_process.h"

namespace hpt::suggestion {
namespace {

constexpr double kLog2Pi = 1.8378770664093454836;
constexpr double kLengthscaleMean = 0;  // log 1: a unit of the cube
constexpr double kLengthscaleSd = 1;
constexpr double kSignalSd = 1.5;
constexpr double kNoiseMean = -6;
constexpr double kNoiseSd = 3;

double Gaussian(double x, double mean, double sd, double* grad) {
  double z = (x - mean) / sd;
  if (grad) *grad = -z / sd;
  return -0.5 * z * z;
}

// Matrices reused across the evaluations of one fit: n x n temporaries
// allocated afresh each time cost more in page faults than in arithmetic.
struct LmlWorkspace {
  Eigen::MatrixXd scaled, r, e, kf, k, w, m, ms;
  Eigen::VectorXd alpha, row_sums;
  Eigen::LLT<Eigen::MatrixXd> llt;
};

double LogMarginalLikelihood(const Eigen::MatrixXd& x, const Eigen::VectorXd& y,
                             const Eigen::VectorXd& theta,
                             Eigen::VectorXd* grad, LmlWorkspace* ws) {
  const int n = static_cast<int>(x.cols());
  const int dim = static_cast<int>(x.rows());
  GpHyperparameters h = GpHyperparameters::FromTheta(theta);
  const double s = h.signal_variance;
  ws->scaled = x.array().colwise() / h.lengthscales.array();
  const Eigen::MatrixXd& scaled = ws->scaled;
  Eigen::MatrixXd& r = ws->r;
  r.resize(n, n);
  for (int j = 0; j < n; ++j) {
    r(j, j) = 0;
    for (int i = j + 1; i < n; ++i) {
      r(i, j) = r(j, i) =
          std::sqrt(5 * (scaled.col(i) - scaled.col(j)).squaredNorm());
    }
  }
  ws->e = (-r.array()).exp();
  auto e = ws->e.array();
  ws->kf = (s * (1 + r.array() + r.array().square() / 3) * e).matrix();
  ws->k = ws->kf;
  double jitter = 0;
  Eigen::LLT<Eigen::MatrixXd>& llt = ws->llt;
  while (true) {
    ws->k.diagonal().array() = s + h.noise_variance + jitter;
    llt.compute(ws->k);
    if (llt.info() == Eigen::Success) break;
    jitter = jitter == 0 ? 1e-8 * s : jitter * 10;
    if (jitter > 1e2 * s) return -HUGE_VAL;
  }
  ws->alpha = llt.solve(y);
  const Eigen::VectorXd& alpha = ws->alpha;
  double value = -0.5 * y.dot(alpha) -
                 llt.matrixLLT().diagonal().array().log().sum() -
                 0.5 * n * kLog2Pi;
  if (!grad) return value;
  // W = alpha alpha' - K^-1.
  Eigen::MatrixXd& w = ws->w;
  w.setIdentity(n, n);
  llt.solveInPlace(w);
  w = -w;
  w.noalias() += alpha * alpha.transpose();
  grad->resize(dim + 2);
  // d k / d log l_d = (5/3) s exp(-r) (1 + r) (a_d - b_d)^2 / l_d^2.
  ws->m = (w.array() * ((5.0 / 3.0) * s) * e * (1 + r.array())).matrix();
  ws->row_sums = ws->m.rowwise().sum();
  ws->ms.resize(n, dim);
  ws->ms.noalias() = ws->m * scaled.transpose();
  for (int d = 0; d < dim; ++d) {
    double sum = 2 * scaled.row(d).array().square().matrix().dot(ws->row_sums) -
                 2 * scaled.row(d).dot(ws->ms.col(d));
    (*grad)[d] = 0.5 * sum;
  }
  ws->kf.diagonal().setConstant(s);
  (*grad)[dim] = 0.5 * (w.array() * ws->kf.array()).sum();
  (*grad)[dim + 1] = 0.5 * w.trace() * h.noise_variance;
  return value;
}

struct Problem {
  const Eigen::MatrixXd* x = nullptr;
  const Eigen::VectorXd* y = nullptr;
  LmlWorkspace workspace;
  const std::atomic<bool>* cancel = nullptr;
  double best_value = -HUGE_VAL;
  Eigen::VectorXd best_theta;
};

double Objective(const std::vector<double>& t, std::vector<double>& g,
                 void* data) {
  auto* p = static_cast<Problem*>(data);
  if (p->cancel && p->cancel->load(std::memory_order_relaxed)) {
    throw nlopt::forced_stop();
  }
  Eigen::VectorXd theta = Eigen::Map<const Eigen::VectorXd>(
      t.data(), static_cast<Eigen::Index>(t.size()));
  Eigen::VectorXd grad_lml, grad_prior;
  bool want = !g.empty();
  double value =
      LogMarginalLikelihood(*p->x, *p->y, theta, want ? &grad_lml : nullptr,
                            &p->workspace) +
      LogPrior(theta, want ? &grad_prior : nullptr);
  if (!std::isfinite(value)) {
    // Keeps L-BFGS away without poisoning its line search with NaN.
    if (want) std::fill(g.begin(), g.end(), 0.0);
    return -1e300;
  }
  if (want) {
    for (size_t i = 0; i < g.size(); ++i) {
      g[i] = grad_lml[static_cast<Eigen::Index>(i)] +
             grad_prior[static_cast<Eigen::Index>(i)];
    }
  }
  if (value > p->best_value) {
    p->best_value = value;
    p->best_theta = theta;
  }
  return value;
}

// The rows to fit on when there are more than max_points.
std::vector<int> FitSubset(const Eigen::VectorXd& y, int max_points,
                           std::mt19937_64& rng) {
  std::vector<int> order(static_cast<size_t>(y.size()));
  std::iota(order.begin(), order.end(), 0);
  if (static_cast<int>(order.size()) <= max_points) return order;
  std::stable_sort(order.begin(), order.end(),
                   [&](int a, int b) { return y[a] < y[b]; });
  size_t best = static_cast<size_t>(max_points / 4);
  std::shuffle(order.begin() + static_cast<std::ptrdiff_t>(best), order.end(),
               rng);
  order.resize(static_cast<size_t>(max_points));
  std::sort(order.begin(), order.end());
  return order;
}

}  // namespace

Eigen::VectorXd PriorCentre(int dim) {
  Eigen::VectorXd theta(dim + 2);
  theta.head(dim).setConstant(kLengthscaleMean);
  theta[dim] = 0;
  theta[dim + 1] = kNoiseMean;
  return theta;
}

Eigen::VectorXd LowerBounds(int dim) {
  Eigen::VectorXd lower(dim + 2);
  lower.head(dim).setConstant(std::log(0.01));
  lower[dim] = std::log(0.01);
  lower[dim + 1] = std::log(1e-6);
  return lower;
}

Eigen::VectorXd UpperBounds(int dim) {
  Eigen::VectorXd upper(dim + 2);
  upper.head(dim).setConstant(std::log(100.0));
  upper[dim] = std::log(100.0);
  upper[dim + 1] = 0;
  return upper;
}

double LogPrior(const Eigen::VectorXd& theta, Eigen::VectorXd* grad) {
  const int dim = static_cast<int>(theta.size()) - 2;
  if (grad) grad->resize(theta.size());
  double g = 0;
  double value = 0;
  for (int d = 0; d < dim; ++d) {
    value += Gaussian(theta[d], kLengthscaleMean, kLengthscaleSd, &g);
    if (grad) (*grad)[d] = g;
  }
  value += Gaussian(theta[dim], 0, kSignalSd, &g);
  if (grad) (*grad)[dim] = g;
  value += Gaussian(theta[dim + 1], kNoiseMean, kNoiseSd, &g);
  if (grad) (*grad)[dim + 1] = g;
  return value;
}

double LogMarginalLikelihood(const Eigen::MatrixXd& x, const Eigen::VectorXd& y,
                             const Eigen::VectorXd& theta,
                             Eigen::VectorXd* grad) {
  LmlWorkspace ws;
  return LogMarginalLikelihood(x, y, theta, grad, &ws);
}

Eigen::VectorXd FitHyperparameters(
    const Eigen::MatrixXd& x, const Eigen::VectorXd& y,
    const std::optional<Eigen::VectorXd>& warm_start, const FitOptions& options,
    std::mt19937_64& rng) {
  const int dim = static_cast<int>(x.rows());
  std::vector<int> rows = FitSubset(y, options.max_points, rng);
  Eigen::MatrixXd fx(dim, static_cast<Eigen::Index>(rows.size()));
  Eigen::VectorXd fy(static_cast<Eigen::Index>(rows.size()));
  for (size_t i = 0; i < rows.size(); ++i) {
    fx.col(static_cast<Eigen::Index>(i)) = x.col(rows[i]);
    fy[static_cast<Eigen::Index>(i)] = y[rows[i]];
  }
  Eigen::VectorXd lower = LowerBounds(dim), upper = UpperBounds(dim);
  std::vector<Eigen::VectorXd> starts;
  if (warm_start && warm_start->size() == dim + 2)
    starts.push_back(*warm_start);
  if (options.centre_start || starts.empty()) starts.push_back(PriorCentre(dim));
  std::normal_distribution<double> normal;
  for (int i = 0; i < options.random_starts; ++i) {
    Eigen::VectorXd t = PriorCentre(dim);
    for (int d = 0; d < dim; ++d) t[d] += kLengthscaleSd * normal(rng);
    t[dim] += kSignalSd * normal(rng);
    t[dim + 1] += kNoiseSd * normal(rng);
    starts.push_back(t);
  }

  Problem problem;
  problem.x = &fx;
  problem.y = &fy;
  problem.cancel = options.cancel;
  std::vector<double> lo(lower.data(), lower.data() + lower.size());
  std::vector<double> hi(upper.data(), upper.data() + upper.size());
  for (Eigen::VectorXd& start : starts) {
    if (options.cancel && options.cancel->load(std::memory_order_relaxed)) break;
    start = start.cwiseMax(lower).cwiseMin(upper);
    nlopt::opt opt(nlopt::LD_LBFGS, static_cast<unsigned>(dim + 2));
    opt.set_lower_bounds(lo);
    opt.set_upper_bounds(hi);
    opt.set_max_objective(Objective, &problem);
    opt.set_maxeval(options.max_evaluations);
    opt.set_ftol_rel(1e-9);
    opt.set_xtol_rel(1e-6);
    std::vector<double> t(start.data(), start.data() + start.size());
    double value = 0;
    try {
      opt.optimize(t, value);
    } catch (const std::exception&) {
      // Round-off and similar stops still leave the best point seen, which
      // Objective has kept.
    }
  }
  if (problem.best_theta.size() == 0) return starts.front();
  return problem.best_theta;
}

}  // namespace hpt::suggestion
