#pragma once
// A random forest of regression trees (Breiman 2001), grown as
// scikit-learn's RandomForestRegressor grows it with the settings Optuna's
// FanovaImportanceEvaluator passes (64 trees, max_depth 64,
// min_samples_split 2, min_samples_leaf 1, bootstrap, every feature tried
// at each split): the model fanova.h decomposes.
//
// Each tree is fitted to a bootstrap sample of the rows; a node splits on
// the (feature, threshold) that most reduces the squared error, the
// threshold halfway between two neighbouring distinct values, until a node
// is pure, too small or too deep. Features are tried in a random order per
// node, so ties go to a random one of them (as scikit-learn does).
//
// Deterministic: tree t's randomness comes from (seed, t) only, so the
// same data and seed always give the same forest. Pure and thread-safe.

#include <Eigen/Core>
#include <cstdint>
#include <string>
#include <vector>

namespace hpt::analytics {

struct ForestOptions {
  int trees = 64;
  int max_depth = 64;
  int min_samples_split = 2;
  int min_samples_leaf = 1;
  int max_features = 0;  // features tried per split; 0: all of them
  bool bootstrap = true;
  uint64_t seed = 0;

  bool IsValid(std::string* error) const;
};

struct TreeNode {
  int feature = -1;      // -1: a leaf
  double threshold = 0;  // x[feature] <= threshold goes left
  int left = -1;         // child indices in RegressionTree::nodes
  int right = -1;
  double value = 0;  // mean target of the node's training rows
};

struct RegressionTree {
  std::vector<TreeNode> nodes;  // nodes[0] is the root

  double Predict(const Eigen::Ref<const Eigen::VectorXd>& x) const;
};

// x: one row per sample (n x d), y: its n targets, all finite. Requires
// n >= 1, d >= 1 and options.IsValid().
std::vector<RegressionTree> FitForest(const Eigen::MatrixXd& x,
                                      const Eigen::VectorXd& y,
                                      const ForestOptions& options);

}  // namespace hpt::analytics
