#pragma once
// bayesianoptimization's model for long histories. Up to
// LocalModelOptions::exact_up_to fitted points the GP conditions on all of
// them (exact; its Cholesky factor grows by one row per call, FactorCache);
// building that factor is O(n^3), a candidate's variance O(n^2) and the
// factor 8 n^2 bytes, which at 10,000 points made one call take two
// minutes. Past the threshold the GP is an exact GP on a bounded subset of
// the data around the incumbent, TuRBO-style (Eriksson et al. 2019,
// "Scalable global optimization via local Bayesian optimization"):
//
//   - the incumbent's `points` * 3/4 nearest neighbours among the fitted
//     points (itself included), in the metric of the current length
//     scales: the trust region's data;
//   - then the best remaining points by value up to `points` in all, so
//     that the other good basins and the incumbent's nearest rivals stay
//     in the model.
//
// The acquisition is then only asked where the model has its data: Sobol
// candidates are drawn in the trust region, the bounding box of the
// nearest neighbours, and the rest are perturbations of the best points
// (all of which are in the subset). The box shrinks by itself as trials
// crowd around the incumbent and grows when they are spread.
//
// Cost per call: choosing the subset is O(n dim) plus a partial sort, the
// GP O(m^3) to build and O(m^2) per candidate with m = `points`, so a call
// grows linearly with n (the history's own decoding dominates at 10,000).
// The threshold was measured (bench/README.md, "GP at scale"): the exact
// call's steady median passes the local call's between 1,000 and 1,250
// points (20 / 34 ms against 26 / 27 ms), and its periodic refits, which
// refactorise from scratch, cost 0.5 s there and grow as n^3.
//
// Pure functions; thread-safe.

#include <Eigen/Core>
#include <vector>

namespace hpt::suggestion {

struct LocalModelOptions {
  // The exact GP up to this many fitted points (observations and
  // failures); the local model beyond.
  int exact_up_to = 1200;
  // The local model's size (m above).
  int points = 400;
};

struct LocalSubset {
  std::vector<int> indices;  // into x's columns, ascending
  // The trust region in the unit cube (per coordinate, within [0, 1]).
  Eigen::VectorXd lower, upper;
};

// The index of the best observed point: the lowest y among `observed`
// that are feasible, else among all `observed`; -1 when there is none.
int BestObserved(const Eigen::VectorXd& y, const std::vector<int>& observed,
                 const std::vector<bool>& feasible);

// What the GP conditions on: all the points (the exact GP), or the local
// model's subset of them with their values, feasibility and observed
// entries re-indexed, and its trust region.
struct ModelData {
  Eigen::MatrixXd x;
  Eigen::VectorXd y;
  std::vector<bool> feasible;
  std::vector<int> observed;  // columns with a value (not failures)
  LocalSubset region;         // the local model's only
};

// The local model's data: SelectLocalSubset around BestObserved, for
// points x with values y (failures included at their stand-in value).
ModelData LocalModelData(const Eigen::MatrixXd& x, const Eigen::VectorXd& y,
                         const std::vector<bool>& feasible,
                         const std::vector<int>& observed,
                         const Eigen::VectorXd& lengthscales, int points);

// The subset of x's columns (dim x n, n > points) for a local model around
// column `centre`, with values y (lower is better) and the GP's length
// scales (one per row of x) for the distance. Ties in distance or value go
// to the lower index, so the result is a function of its arguments.
LocalSubset SelectLocalSubset(const Eigen::MatrixXd& x,
                              const Eigen::VectorXd& y, int centre,
                              const Eigen::VectorXd& lengthscales, int points);

}  // namespace hpt::suggestion
