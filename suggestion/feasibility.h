#pragma once
// The probability that a point satisfies every constraint (api/constraints.h),
// for bayesianoptimization's constrained acquisition (Gardner et al. 2014,
// "Bayesian optimization with inequality constraints"; Vizier's
// constrained EI): one Gaussian process per constraint, fitted to the
// trials that reported it, and
//
//   P(feasible at x) = prod_k Phi((0 - mean_k(x)) / sd_k(x))
//
// taking the constraints as independent. The acquisition adds its log to
// log EI (EI times the probability). Each constraint's values are
// standardised before fitting (so the threshold 0 moves with them); a
// constraint whose values are all equal is certain: its probability is 1
// when they are <= 0 and 0 otherwise.
//
// Not thread-safe; one model per call.

#include <Eigen/Core>
#include <memory>
#include <optional>
#include <random>
#include <vector>

#include "api/types.h"
#include "suggestion/gaussian_process.h"
#include "suggestion/gp_fit.h"
#include "suggestion/unit_cube.h"

namespace hpt::suggestion {

// log Phi(z) and, when dlog is given, d log Phi / dz = phi(z) / Phi(z),
// accurate far into the lower tail.
double LogNormalCdf(double z, double* dlog = nullptr);

class FeasibilityModel {
 public:
  // The model of the constraint values in `history` (its trials whose
  // assignment encodes in `cube`); nullptr when no trial has any. With
  // `centre` (bayesianoptimization's local model, local_model.h), a
  // constraint with more than `max_points` values is modelled on the
  // max_points nearest to it (unit-cube distance), which bounds the cost.
  static std::unique_ptr<FeasibilityModel> Fit(const UnitCube& cube,
                                               const std::vector<api::Trial>& history,
                                               const FitOptions& options,
                                               std::mt19937_64& rng,
                                               const Eigen::VectorXd* centre = nullptr,
                                               int max_points = 0);

  // log P(feasible) at the columns of x.
  Eigen::VectorXd LogProbabilities(const Eigen::MatrixXd& x) const;
  // log P(feasible) at x and its gradient with respect to x.
  double LogProbabilityWithGradient(const Eigen::VectorXd& x, Eigen::VectorXd* grad) const;

  int constraints() const { return static_cast<int>(models_.size() + fixed_.size()); }

 private:
  struct Model {
    std::unique_ptr<GaussianProcess> gp;
    double threshold;  // 0 in the standardised units the GP was fitted in
  };
  std::vector<Model> models_;
  // Constraints whose values were all equal: log P is 0 or -inf.
  std::vector<double> fixed_;
};

}  // namespace hpt::suggestion
