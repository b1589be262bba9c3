#pragma once
// fANOVA (Hutter, Hoos & Leyton-Brown 2014, "An Efficient Approach for
// Assessing Hyperparameter Importance"), as Optuna's
// FanovaImportanceEvaluator computes it: fit a random forest
// (random_forest.h) to (parameters -> objective), then, per tree, split
// the variance of the tree's prediction over the whole search space into
// the parts each parameter explains alone.
//
// A tree cuts the space into boxes, one per leaf, on each of which it
// predicts a constant; so its mean, its variance and every parameter's
// marginal prediction (the mean over all other parameters, a step
// function of that parameter) are exact finite sums over the leaves. A
// parameter's importance in a tree is the variance of its marginal over
// the tree's total variance; the forest's is the mean over its trees
// (trees that predict a constant are left out), with the standard
// deviation across trees as its uncertainty. Fractions lie in [0, 1];
// their sum is at most 1, the rest being interactions.
//
// The space, as the columns of the forest's rows, is a product of groups,
// one per parameter, each integrated uniformly:
//   a number      one column in [0, 1] (the caller scales values there,
//                 log-scaled where the parameter is);
//   a category    a one-hot block of `width` columns, uniform over its
//                 `width` one-hot points (not over the cube [0, 1]^width).
// A parameter gets exactly 0 in a tree that never splits on it, and in
// the forest only when no tree does.

#include <Eigen/Core>
#include <vector>

#include "analytics/random_forest.h"

namespace hpt::analytics {

struct FanovaGroup {
  int first_column = 0;
  int width = 1;         // columns; 1 unless one_hot
  bool one_hot = false;  // a categorical parameter's one-hot block
};

struct FanovaResult {
  // Per group, in the given order: the fraction of a tree's variance the
  // group's main effect explains, mean and (population) standard
  // deviation over the trees used.
  std::vector<double> mean;
  std::vector<double> stddev;
  int trees = 0;  // trees that did not predict a constant
};

// The decomposition of a fitted forest. Requires the groups to cover
// distinct columns of the rows the forest was fitted to, numbers within
// [0, 1] and one-hot blocks 0/1.
FanovaResult DecomposeForest(const std::vector<RegressionTree>& forest,
                             const std::vector<FanovaGroup>& groups);

// FitForest(x, y, options) then DecomposeForest.
FanovaResult Fanova(const Eigen::MatrixXd& x, const Eigen::VectorXd& y,
                    const std::vector<FanovaGroup>& groups,
                    const ForestOptions& options);

}  // namespace hpt::analytics
