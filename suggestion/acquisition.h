#pragma once
// Acquisition functions on a GaussianProcess (for minimisation: lower
// outputs are better), and their maximisation over the unit cube.
//
//   kLogEi  log expected improvement below `best`, computed in log space so
//           that it stays finite and informative far from the incumbent
//           (Ament et al. 2023, "Unexpected improvements to expected
//           improvement"): log sd + log h((best - mean) / sd),
//           h(u) = phi(u) + u Phi(u).
//   kUcb    the lower confidence bound, negated: kappa sd - mean.
//
// With a FeasibilityModel (constraints), log P(feasible) is added to
// either: for log EI that is EI times the probability of feasibility
// (Gardner et al. 2014); for UCB a penalty in the same units. Without a
// feasible incumbent (`best` not finite) the value is log P(feasible)
// alone, so the search first looks for a feasible point.

#include <Eigen/Core>
#include <vector>

#include "suggestion/feasibility.h"
#include "suggestion/gaussian_process.h"
#include "suggestion/unit_cube.h"

namespace hpt::suggestion {

enum class AcquisitionKind { kLogEi, kUcb };

// log h(u) and d log h / du = Phi(u) / h(u), accurate for any finite u.
double LogH(double u, double* dlog_h = nullptr);

class Acquisition {
 public:
  // The models must outlive this object; `feasibility` may be null (no
  // constraints).
  Acquisition(const GaussianProcess& gp, AcquisitionKind kind, double best,
              double kappa, const FeasibilityModel* feasibility = nullptr);

  // The values at the columns of x.
  Eigen::VectorXd Values(const Eigen::MatrixXd& x) const;
  // The value at x and its gradient with respect to x.
  double ValueWithGradient(const Eigen::VectorXd& x,
                           Eigen::VectorXd* grad) const;

 private:
  double FromMoments(double mean, double variance) const;
  // ValueWithGradient without the feasibility term.
  double ObjectiveWithGradient(const Eigen::VectorXd& x, Eigen::VectorXd* grad) const;

  const GaussianProcess& gp_;
  AcquisitionKind kind_;
  double best_;
  double kappa_;
  const FeasibilityModel* feasibility_;
};

struct ScoredPoint {
  Eigen::VectorXd x;  // projected onto the space (unit_cube.h)
  double value;
};

struct MaximizeOptions {
  int starts = 3;            // best candidates refined by L-BFGS
  int max_evaluations = 40;  // per refinement
  int keep = 32;             // points returned
  // Bounds of the refinement per coordinate (bayesianoptimization's local
  // model: its trust region), widened to take in each start; empty: the
  // cube [0, 1].
  Eigen::VectorXd lower, upper;
};

// Scores the candidates (columns, already projected), refines the best
// few over the coordinates that are not categorical (categories stay as
// the candidate has them) and returns up to options.keep distinct
// projected points, best first, so that a caller can skip the ones already
// used.
std::vector<ScoredPoint> MaximizeAcquisition(const Acquisition& acquisition,
                                             const UnitCube& cube,
                                             const Eigen::MatrixXd& candidates,
                                             const MaximizeOptions& options);

}  // namespace hpt::suggestion
