#pragma once
// CmaEs: one run of the covariance matrix adaptation evolution strategy
// (N. Hansen, "The CMA Evolution Strategy: A Tutorial", arXiv:1604.00772)
// on the unit cube [0, 1]^n, with the tutorial's default parameters
// (Table 1, including its negative recombination weights) as the `cmaes`
// package behind Optuna's CmaEsSampler sets them:
//   popsize lambda = 4 + floor(3 ln n), mu = lambda / 2 parents,
//   weights w_i ~ ln((lambda + 1) / 2) - ln i, c_1, c_mu, c_c, c_sigma,
//   d_sigma from mu_eff and n.
//
// Ask draws x ~ N(m, sigma^2 C), redrawn up to 10 n times until it lies in
// the cube and clipped to it after that. OrthogonalStep gives the standard
// normal steps z of a generation in blocks of n mutually orthogonal ones
// (Wang, Emmerich & Baeck, "Mirrored orthogonal sampling with pairwise
// selection in evolution strategies", 2014, without the mirroring): each z
// is still N(0, I) on its own, so the strategy's updates are unbiased, but
// a generation's points spread over every direction instead of clumping. Tell
// takes exactly popsize evaluated points (a loss to minimise) and updates m,
// sigma, C and the two evolution paths. A point that was not drawn from the
// distribution (an "injected" one, such as a random fill-in) has its step y =
// (x - m) / sigma shortened to Mahalanobis length sqrt(n) + 2n / (n + 2) first,
// as the tutorial recommends, so that it cannot blow up C.
//
// ShouldStop is the `cmaes` package's test that the run has converged or
// stalled (no change in the best and worst values over the last
// 10 + ceil(30 n / lambda) generations, a step below 1e-12 sigma0, a step
// above 1e4, a step that no longer moves m, a condition number of C above
// 1e14); restart strategies act on it.
//
// The whole run is a value: ToJson / FromJson round-trip it exactly
// (vectors as PackDoubles text), so that a run that is
// stored and read back continues as if it had not been.

#include <Eigen/Dense>
#include <cstdint>
#include <nlohmann/json.hpp>
#include <optional>
#include <random>
#include <string>
#include <string_view>
#include <vector>

namespace hpt::suggestion {

// The draw-th standard normal step of a generation whose plan is `seed`:
// block draw / n holds n orthogonal directions (a Haar-random rotation)
// with independent chi_n lengths.
Eigen::VectorXd OrthogonalStep(uint64_t seed, int64_t draw, int n);

// Doubles as text for the state, exactly and quickly: 16 hex digits of
// each one's IEEE-754 bits. Unpack: nullopt for text Pack did not write.
std::string PackDoubles(const std::vector<double>& values);
std::optional<std::vector<double>> UnpackDoubles(std::string_view text);

struct CmaSolution {
  Eigen::VectorXd x;  // in [0, 1]^n
  double loss = 0;
  bool injected = false;
};

class CmaEs {
 public:
  // 4 + floor(3 ln n).
  static int DefaultPopsize(int n);

  // A run of dimension mean.size() >= 1 starting at `mean` with step size
  // `sigma` > 0 and C = diag(scales)^2 (scales > 0; empty: C = I).
  CmaEs(Eigen::VectorXd mean, double sigma, int popsize,
        const Eigen::VectorXd& scales = {});

  int dim() const { return static_cast<int>(mean_.size()); }
  int popsize() const { return popsize_; }
  int64_t generation() const { return generation_; }
  const Eigen::VectorXd& mean() const { return mean_; }
  double sigma() const { return sigma_; }

  // A point of N(m, sigma^2 C): m + sigma B D z for `planned` z when that
  // lies in the cube, else for fresh standard normal draws (as above).
  Eigen::VectorXd Ask(std::mt19937_64& rng,
                      const Eigen::VectorXd* planned = nullptr) const;
  // `solutions` must hold popsize() points (HPT_CHECK).
  void Tell(std::vector<CmaSolution> solutions);
  bool ShouldStop() const;

  nlohmann::json ToJson() const;
  // nullopt when `j` is not a run of dimension n written by ToJson.
  static std::optional<CmaEs> FromJson(const nlohmann::json& j, int n);

 private:
  void SetParameters();  // the strategy parameters from n and popsize
  void Decompose();      // B_, D_ from C_

  // The state.
  Eigen::VectorXd mean_;
  double sigma_ = 0;
  Eigen::MatrixXd c_;
  Eigen::VectorXd p_sigma_, p_c_;
  int popsize_ = 0;
  int64_t generation_ = 0;
  double tol_x_ = 0;
  std::vector<double> fun_history_;  // best, worst per generation (a ring)

  // Derived from the state.
  int mu_ = 0;
  double mu_eff_ = 0, c1_ = 0, c_mu_ = 0, c_sigma_ = 0, d_sigma_ = 0, c_c_ = 0,
         chi_n_ = 0;
  Eigen::VectorXd weights_;
  int fun_history_term_ = 0;
  Eigen::MatrixXd b_;  // eigenvectors of C (columns)
  Eigen::VectorXd d_;  // square roots of its eigenvalues
};

}  // namespace hpt::suggestion
