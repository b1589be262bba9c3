#include "suggestion/cmaes_core.h"

#include <algorithm>
#include <bit>
#include <charconv>
#include <cmath>

#include "api/status.h"

namespace hpt::suggestion {
namespace {

using Eigen::MatrixXd;
using Eigen::VectorXd;
using nlohmann::json;

constexpr double kEigenFloor =
    1e-8;  // sqrt of what a negative eigenvalue becomes
constexpr double kSigmaMax = 1e32;
constexpr double kTolFun = 1e-12;
constexpr double kTolXUp = 1e4;
constexpr double kTolCondition = 1e14;

json Vector(const VectorXd& v) {
  return PackDoubles(std::vector<double>(v.data(), v.data() + v.size()));
}

std::optional<VectorXd> ReadVector(const json& j, int n) {
  std::optional<std::vector<double>> v =
      j.is_string() ? UnpackDoubles(j.get<std::string>()) : std::nullopt;
  if (!v || static_cast<int>(v->size()) != n) return std::nullopt;
  return Eigen::Map<const VectorXd>(v->data(), n);
}

}  // namespace

std::string PackDoubles(const std::vector<double>& values) {
  std::string text(16 * values.size(), '0');
  for (size_t i = 0; i < values.size(); ++i) {
    char digits[16];
    auto end = std::to_chars(digits, digits + 16,
                             std::bit_cast<uint64_t>(values[i]), 16)
                   .ptr;
    std::copy(digits, end,
              text.begin() + static_cast<long>(16 * i + 16) - (end - digits));
  }
  return text;
}

std::optional<std::vector<double>> UnpackDoubles(std::string_view text) {
  if (text.size() % 16 != 0) return std::nullopt;
  std::vector<double> values(text.size() / 16);
  for (size_t i = 0; i < values.size(); ++i) {
    uint64_t bits = 0;
    const char* begin = text.data() + 16 * i;
    auto [end, error] = std::from_chars(begin, begin + 16, bits, 16);
    if (error != std::errc() || end != begin + 16) return std::nullopt;
    values[i] = std::bit_cast<double>(bits);
  }
  return values;
}

int CmaEs::DefaultPopsize(int n) {
  return 4 + static_cast<int>(std::floor(3 * std::log(static_cast<double>(n))));
}

CmaEs::CmaEs(VectorXd mean, double sigma, int popsize, const VectorXd& scales)
    : mean_(std::move(mean)), sigma_(sigma), popsize_(popsize) {
  const int n = dim();
  HPT_CHECK(n >= 1 && popsize_ >= 2 && sigma_ > 0);
  HPT_CHECK(scales.size() == 0 ||
            (scales.size() == n && scales.minCoeff() > 0));
  c_ = MatrixXd::Identity(n, n);
  if (scales.size() == n) c_.diagonal() = scales.cwiseAbs2();
  p_sigma_ = VectorXd::Zero(n);
  p_c_ = VectorXd::Zero(n);
  tol_x_ = 1e-12 * sigma_;
  SetParameters();
  fun_history_.assign(static_cast<size_t>(2 * fun_history_term_), 0.0);
  Decompose();
}

void CmaEs::SetParameters() {
  const int n = dim();
  const double nd = n;
  mu_ = popsize_ / 2;
  VectorXd prime(popsize_);
  for (int i = 0; i < popsize_; ++i) {
    prime[i] = std::log((popsize_ + 1) / 2.0) - std::log(i + 1.0);
  }
  const VectorXd top = prime.head(mu_), rest = prime.tail(popsize_ - mu_);
  mu_eff_ = top.sum() * top.sum() / top.squaredNorm();
  const double mu_eff_minus = rest.sum() * rest.sum() / rest.squaredNorm();
  c1_ = 2 / ((nd + 1.3) * (nd + 1.3) + mu_eff_);
  c_mu_ = std::min(1 - c1_ - 1e-8, 2 * (mu_eff_ - 2 + 1 / mu_eff_) /
                                       ((nd + 2) * (nd + 2) + mu_eff_));
  // How much the negative weights may take away (tutorial, eqs. 50-53).
  const double alpha =
      std::min({1 + c1_ / c_mu_, 1 + 2 * mu_eff_minus / (mu_eff_ + 2),
                (1 - c1_ - c_mu_) / (nd * c_mu_)});
  double positive = 0, negative = 0;
  for (int i = 0; i < popsize_; ++i)
    (prime[i] >= 0 ? positive : negative) += std::abs(prime[i]);
  weights_.resize(popsize_);
  for (int i = 0; i < popsize_; ++i) {
    weights_[i] =
        prime[i] >= 0 ? prime[i] / positive : alpha * prime[i] / negative;
  }
  c_sigma_ = (mu_eff_ + 2) / (nd + mu_eff_ + 5);
  d_sigma_ =
      1 + 2 * std::max(0.0, std::sqrt((mu_eff_ - 1) / (nd + 1)) - 1) + c_sigma_;
  c_c_ = (4 + mu_eff_ / nd) / (nd + 4 + 2 * mu_eff_ / nd);
  chi_n_ = std::sqrt(nd) * (1 - 1 / (4 * nd) + 1 / (21 * nd * nd));
  fun_history_term_ = 10 + static_cast<int>(std::ceil(30 * nd / popsize_));
}

void CmaEs::Decompose() {
  c_ = (c_ + c_.transpose()) / 2;
  Eigen::SelfAdjointEigenSolver<MatrixXd> eigen(c_);
  b_ = eigen.eigenvectors();
  VectorXd values = eigen.eigenvalues();
  if (values.minCoeff() < 0) {  // rounding: C is positive definite
    values = values.unaryExpr(
        [](double v) { return v < 0 ? kEigenFloor * kEigenFloor : v; });
    c_ = b_ * values.asDiagonal() * b_.transpose();
  }
  d_ = values.cwiseSqrt();
}

VectorXd OrthogonalStep(uint64_t seed, int64_t draw, int n) {
  std::mt19937_64 rng(
      seed ^ (0x9e3779b97f4a7c15ULL * static_cast<uint64_t>(draw / n + 1)));
  std::normal_distribution<double> normal;
  MatrixXd g(n, n);
  for (int j = 0; j < n; ++j) {
    for (int i = 0; i < n; ++i) g(i, j) = normal(rng);
  }
  Eigen::HouseholderQR<MatrixXd> qr(g);
  const int column = static_cast<int>(draw % n);
  // Q's column, its sign fixed by R's diagonal so that Q is Haar-random.
  VectorXd direction = qr.householderQ() * VectorXd::Unit(n, column);
  if (qr.matrixQR()(column, column) < 0) direction = -direction;
  VectorXd length(n);
  for (int j = 0; j <= column; ++j) {
    for (int i = 0; i < n; ++i) length[i] = normal(rng);
  }
  return direction * length.norm();
}

VectorXd CmaEs::Ask(std::mt19937_64& rng, const VectorXd* planned) const {
  std::normal_distribution<double> normal;
  auto at = [&](const VectorXd& z) {
    return VectorXd(mean_ + sigma_ * (b_ * d_.cwiseProduct(z)));
  };
  if (planned) {
    VectorXd x = at(*planned);
    if (x.minCoeff() >= 0 && x.maxCoeff() <= 1) return x;
  }
  auto draw = [&] {
    VectorXd z(dim());
    for (int i = 0; i < dim(); ++i) z[i] = normal(rng);
    return at(z);
  };
  for (int attempt = 0; attempt < 10 * dim(); ++attempt) {
    VectorXd x = draw();
    if (x.minCoeff() >= 0 && x.maxCoeff() <= 1) return x;
  }
  return draw().cwiseMax(0.0).cwiseMin(1.0);
}

void CmaEs::Tell(std::vector<CmaSolution> solutions) {
  HPT_CHECK(static_cast<int>(solutions.size()) == popsize_);
  const int n = dim();
  std::stable_sort(solutions.begin(), solutions.end(),
                   [](const CmaSolution& a, const CmaSolution& b) {
                     return a.loss < b.loss;
                   });
  ++generation_;
  const size_t slot =
      static_cast<size_t>(2 * (generation_ % fun_history_term_));
  fun_history_[slot] = solutions.front().loss;
  fun_history_[slot + 1] = solutions.back().loss;

  const MatrixXd inv_sqrt =
      b_ * d_.cwiseInverse().asDiagonal() * b_.transpose();  // C^-1/2
  const double max_length = std::sqrt(double(n)) + 2.0 * n / (n + 2.0);
  MatrixXd y(n, popsize_);
  for (int k = 0; k < popsize_; ++k) {
    VectorXd step = (solutions[static_cast<size_t>(k)].x - mean_) / sigma_;
    const double length = (inv_sqrt * step).norm();
    if (solutions[static_cast<size_t>(k)].injected && length > max_length) {
      step *= max_length / length;
    }
    y.col(k) = step;
  }
  const VectorXd y_w = y.leftCols(mu_) * weights_.head(mu_);
  mean_ += sigma_ * y_w;

  p_sigma_ = (1 - c_sigma_) * p_sigma_ +
             std::sqrt(c_sigma_ * (2 - c_sigma_) * mu_eff_) * (inv_sqrt * y_w);
  const double norm_p_sigma = p_sigma_.norm();
  sigma_ *= std::exp(c_sigma_ / d_sigma_ * (norm_p_sigma / chi_n_ - 1));
  sigma_ = std::min(sigma_, kSigmaMax);

  const double h_left =
      norm_p_sigma /
      std::sqrt(1 - std::pow(1 - c_sigma_, 2.0 * double(generation_ + 1)));
  const double h_sigma = h_left < (1.4 + 2.0 / (n + 1)) * chi_n_ ? 1 : 0;
  p_c_ = (1 - c_c_) * p_c_ +
         h_sigma * std::sqrt(c_c_ * (2 - c_c_) * mu_eff_) * y_w;

  // Negative weights act on steps rescaled to length sqrt(n) (eq. 46).
  VectorXd w = weights_;
  for (int k = 0; k < popsize_; ++k) {
    if (w[k] < 0) w[k] *= n / ((inv_sqrt * y.col(k)).squaredNorm() + 1e-8);
  }
  const double delta_h = (1 - h_sigma) * c_c_ * (2 - c_c_);
  const MatrixXd rank_mu = y * w.asDiagonal() * y.transpose();
  c_ = (1 + c1_ * delta_h - c1_ - c_mu_ * weights_.sum()) * c_ +
       c1_ * p_c_ * p_c_.transpose() + c_mu_ * rank_mu;
  Decompose();
}

bool CmaEs::ShouldStop() const {
  const int n = dim();
  const VectorXd dc = c_.diagonal();
  if (generation_ > fun_history_term_) {
    const auto [lo, hi] =
        std::minmax_element(fun_history_.begin(), fun_history_.end());
    if (*hi - *lo < kTolFun) return true;
  }
  if ((sigma_ * dc.cwiseSqrt()).maxCoeff() < tol_x_ &&
      (sigma_ * p_c_).cwiseAbs().maxCoeff() < tol_x_) {
    return true;
  }
  if (sigma_ * d_.maxCoeff() > kTolXUp) return true;
  for (int i = 0; i < n; ++i) {
    if (mean_[i] == mean_[i] + 0.2 * sigma_ * std::sqrt(dc[i])) return true;
  }
  const int axis = static_cast<int>(generation_ % n);
  const VectorXd moved = mean_ + 0.1 * sigma_ * d_[axis] * b_.col(axis);
  if (moved == mean_) return true;
  return d_.maxCoeff() / d_.minCoeff() > kTolCondition;
}

json CmaEs::ToJson() const {
  const int n = dim();
  std::vector<double> upper;  // C's upper triangle, row by row
  for (int i = 0; i < n; ++i) {
    for (int j = i; j < n; ++j) upper.push_back(c_(i, j));
  }
  return {{"mean", Vector(mean_)},
          {"sigma", sigma_},
          {"C", PackDoubles(upper)},
          {"p_sigma", Vector(p_sigma_)},
          {"p_c", Vector(p_c_)},
          {"popsize", popsize_},
          {"generation", generation_},
          {"tol_x", tol_x_},
          {"fun_history", PackDoubles(fun_history_)}};
}

std::optional<CmaEs> CmaEs::FromJson(const json& j, int n) {
  try {
    std::optional<VectorXd> mean = ReadVector(j.at("mean"), n);
    std::optional<VectorXd> p_sigma = ReadVector(j.at("p_sigma"), n);
    std::optional<VectorXd> p_c = ReadVector(j.at("p_c"), n);
    std::optional<VectorXd> upper = ReadVector(j.at("C"), n * (n + 1) / 2);
    const double sigma = j.at("sigma").get<double>();
    const int popsize = j.at("popsize").get<int>();
    if (!mean || !p_sigma || !p_c || !upper || !(sigma > 0) || popsize < 2)
      return std::nullopt;
    CmaEs run(*mean, sigma, popsize);
    int k = 0;
    for (int r = 0; r < n; ++r) {
      for (int c = r; c < n; ++c, ++k)
        run.c_(r, c) = run.c_(c, r) = (*upper)[k];
    }
    run.p_sigma_ = *p_sigma;
    run.p_c_ = *p_c;
    run.generation_ = j.at("generation").get<int64_t>();
    run.tol_x_ = j.at("tol_x").get<double>();
    std::optional<std::vector<double>> history =
        UnpackDoubles(j.at("fun_history").get<std::string>());
    if (!history || history->size() != run.fun_history_.size() ||
        run.generation_ < 0)
      return std::nullopt;
    run.fun_history_ = std::move(*history);
    run.Decompose();
    return run;
  } catch (const json::exception&) {
    return std::nullopt;
  }
}

}  // namespace hpt::suggestion
