#pragma once
// CmaSpace: the search space as the cmaes algorithm sees it. Each parameter
// that can vary along a line becomes one coordinate of the unit cube
// [0, 1]^n, on which CMA-ES samples; the rest are filled in around it.
//
//   double        its range [min, max], in log space for logUniform and
//                 logNormal (prior.h). The prior's shape is not used:
//                 CMA-ES's first distribution, centred with sigma a sixth
//                 of the range, is already Katib's normal one.
//   int, double
//   with a step   the grid's range widened by half a step each side (in log
//                 space for the log scales), so that the end values are as
//                 likely as the inner ones; a point is rounded to the
//                 nearest grid value (Optuna's _SearchSpaceTransform).
//   discrete      ordinal: the list's values in numeric order, the k-th at
//                 k, widened by one half each side and rounded.
//   categorical   not a coordinate: drawn uniformly at random for every
//                 suggestion, as Optuna 3.1's CmaEsSampler leaves it to its
//                 independent (random) sampler.
// A parameter with a single value (min == max, a one-entry list) is not a
// coordinate either: it always gets that value.
//   conditional   (a parent, api/conditions.h) not a coordinate either: CMA
//                 runs over the always-active parameters, and a conditional
//                 one is drawn from its prior as random search draws it
//                 (SampleValue) for every suggestion, as Optuna's
//                 CmaEsSampler leaves parameters outside its (intersection)
//                 search space to its independent sampler. Decode leaves
//                 out the ones the drawn parents make inactive.
//
// Coordinates are scaled so that each parameter's range is 1; scales() says
// how a step in the parameters' own units looks there. Thread-safe
// after construction; holds pointers into the parameters it was built from,
// which must outlive it.

#include <Eigen/Dense>
#include <optional>
#include <random>
#include <string>
#include <vector>

#include "api/types.h"

namespace hpt::suggestion {

class CmaSpace {
 public:
  // Requires CheckSearchSpace(parameters) to pass.
  explicit CmaSpace(const std::vector<api::ParameterSpec>& parameters);

  // Number of coordinates (n).
  int size() const { return static_cast<int>(coords_.size()); }
  // The narrowest coordinate's range in the parameter's own units (log
  // units for logUniform; one list step for discrete): what a step size
  // given in those units is divided by to act on the unit cube.
  double narrowest_range() const { return narrowest_range_; }
  // Per coordinate: the narrowest range over its own (<= 1). A distribution
  // on the cube with covariance sigma^2 diag(scales)^2 has the standard
  // deviation sigma * narrowest_range() in every parameter's own units, as
  // CMA-ES on the untransformed space (Optuna, Goptuna) starts.
  Eigen::VectorXd scales() const;
  // Names of the parameters that are coordinates, in order (to check that
  // a stored state belongs to this space).
  std::vector<std::string> coordinate_names() const;

  // The assignment at x (in [0, 1]^n; clamped), with categorical
  // parameters drawn from `rng`.
  api::Assignment Decode(const Eigen::VectorXd& x, std::mt19937_64& rng) const;
  // The point of the cube an assignment sits at; nullopt when a coordinate
  // parameter is missing or its value is outside the space.
  std::optional<Eigen::VectorXd> Encode(
      const api::Assignment& assignment) const;

 private:
  struct Coordinate {
    const api::ParameterSpec* p = nullptr;
    bool log = false;
    double step = 0;            // > 0: rounded to a grid (int, step, discrete)
    double low = 0, high = 1;   // in the parameter's units (log for log)
    std::vector<size_t> order;  // discrete: list indexes by numeric value
  };

  std::string ValueAt(const Coordinate& c, double u) const;
  std::optional<double> UnitOf(const Coordinate& c,
                               const std::string& text) const;

  const std::vector<api::ParameterSpec>* parameters_;
  std::vector<Coordinate> coords_;
  std::vector<int> coord_of_;  // per parameter: index in coords_, or -1
  double narrowest_range_ = 1;
};

}  // namespace hpt::suggestion
