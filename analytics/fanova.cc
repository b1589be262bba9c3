#include "analytics/fanova.h"

#include <algorithm>
#include <cmath>
#include <limits>

#include "api/status.h"

namespace hpt::analytics {
namespace {

// A tree's leaves as boxes of the space: per leaf, its prediction and,
// per group, the share of the group's measure the box covers (its
// "factor"); the box's measure is the product of its factors.
struct Leaves {
  std::vector<double> value;
  Eigen::MatrixXd factor;             // leaves x groups
  Eigen::MatrixXd lo, hi;             // leaves x groups: a number's interval
  std::vector<std::vector<char>> in;  // per leaf: one-hot categories inside
  std::vector<bool> split_on;         // per group: some node splits on it
};

class LeafCollector {
 public:
  LeafCollector(const RegressionTree& tree,
                const std::vector<FanovaGroup>& groups)
      : tree_(tree), groups_(groups) {
    int columns = 0;
    for (const auto& g : groups)
      columns = std::max(columns, g.first_column + g.width);
    column_group_.assign(static_cast<size_t>(columns), -1);
    for (size_t i = 0; i < groups.size(); ++i) {
      for (int c = 0; c < groups[i].width; ++c)
        column_group_[static_cast<size_t>(groups[i].first_column + c)] =
            static_cast<int>(i);
    }
    constexpr double kInf = std::numeric_limits<double>::infinity();
    lo_.assign(static_cast<size_t>(columns), -kInf);
    hi_.assign(static_cast<size_t>(columns), kInf);
    out_.split_on.assign(groups.size(), false);
  }

  Leaves Collect() {
    Visit(0);
    const auto n = static_cast<Eigen::Index>(out_.value.size());
    const auto g = static_cast<Eigen::Index>(groups_.size());
    out_.factor.resize(n, g);
    out_.lo.resize(n, g);
    out_.hi.resize(n, g);
    for (Eigen::Index i = 0; i < n; ++i) {
      out_.factor.row(i) =
          Eigen::Map<Eigen::VectorXd>(&factor_[static_cast<size_t>(i * g)], g);
      out_.lo.row(i) =
          Eigen::Map<Eigen::VectorXd>(&lo_box_[static_cast<size_t>(i * g)], g);
      out_.hi.row(i) =
          Eigen::Map<Eigen::VectorXd>(&hi_box_[static_cast<size_t>(i * g)], g);
    }
    return std::move(out_);
  }

 private:
  // Depth-first, narrowing the box on the way down: x <= t goes left, so
  // a box is (lo, hi] in every column.
  void Visit(int index) {
    const TreeNode& node = tree_.nodes[static_cast<size_t>(index)];
    if (node.feature < 0) {
      AddLeaf(node.value);
      return;
    }
    const auto f = static_cast<size_t>(node.feature);
    HPT_CHECK(f < column_group_.size() && column_group_[f] >= 0);
    out_.split_on[static_cast<size_t>(column_group_[f])] = true;
    const double old_lo = lo_[f], old_hi = hi_[f];
    hi_[f] = std::min(old_hi, node.threshold);
    Visit(node.left);
    hi_[f] = old_hi;
    lo_[f] = std::max(old_lo, node.threshold);
    Visit(node.right);
    lo_[f] = old_lo;
  }

  void AddLeaf(double value) {
    out_.value.push_back(value);
    std::vector<char> in;
    for (const FanovaGroup& g : groups_) {
      const auto c0 = static_cast<size_t>(g.first_column);
      if (!g.one_hot) {
        const double a = std::clamp(lo_[c0], 0.0, 1.0);
        const double b = std::clamp(hi_[c0], 0.0, 1.0);
        factor_.push_back(std::max(0.0, b - a));
        lo_box_.push_back(a);
        hi_box_.push_back(b);
        continue;
      }
      // Category k's point has 1 in column k and 0 elsewhere.
      int zero_outside = 0;
      for (int k = 0; k < g.width; ++k)
        zero_outside += !(lo_[c0 + k] < 0 && 0 <= hi_[c0 + k]);
      int inside = 0;
      for (int k = 0; k < g.width; ++k) {
        const bool one = lo_[c0 + k] < 1 && 1 <= hi_[c0 + k];
        const bool zero = lo_[c0 + k] < 0 && 0 <= hi_[c0 + k];
        const bool ok = one && zero_outside - !zero == 0;
        in.push_back(ok);
        inside += ok;
      }
      factor_.push_back(static_cast<double>(inside) / g.width);
      lo_box_.push_back(0);
      hi_box_.push_back(0);
    }
    out_.in.push_back(std::move(in));
  }

  const RegressionTree& tree_;
  const std::vector<FanovaGroup>& groups_;
  std::vector<int> column_group_;
  std::vector<double> lo_, hi_;                   // the current box, per column
  std::vector<double> factor_, lo_box_, hi_box_;  // leaves x groups, flat
  Leaves out_;
};

// Per group, the fraction of the tree's variance its main effect explains;
// empty when the tree predicts a constant over the space.
std::vector<double> TreeFractions(const RegressionTree& tree,
                                  const std::vector<FanovaGroup>& groups) {
  const Leaves leaves = LeafCollector(tree, groups).Collect();
  const auto n = static_cast<Eigen::Index>(leaves.value.size());
  const auto g = static_cast<Eigen::Index>(groups.size());
  const Eigen::Map<const Eigen::VectorXd> v(leaves.value.data(), n);
  const Eigen::VectorXd volume = leaves.factor.rowwise().prod();
  const double mean = volume.dot(v);
  const double variance = volume.dot((v.array() - mean).square().matrix());
  if (!(variance > 1e-12 * (mean * mean + variance))) return {};
  std::vector<double> fractions(static_cast<size_t>(g), 0.0);
  std::vector<double> breaks, diff;
  for (Eigen::Index j = 0; j < g; ++j) {
    if (!leaves.split_on[static_cast<size_t>(j)]) continue;  // exactly 0
    // Each leaf adds its value times its measure in the other groups to
    // the marginal, on the part of group j that its box covers.
    Eigen::VectorXd weight(n);
    for (Eigen::Index i = 0; i < n; ++i) {
      double w = v[i];
      for (Eigen::Index h = 0; h < g; ++h)
        if (h != j) w *= leaves.factor(i, h);
      weight[i] = w;
    }
    const FanovaGroup& group = groups[static_cast<size_t>(j)];
    double explained = 0;
    if (group.one_hot) {
      for (int k = 0; k < group.width; ++k) {
        double marginal = 0;
        for (Eigen::Index i = 0; i < n; ++i)
          if (leaves.in[static_cast<size_t>(i)][static_cast<size_t>(k)])
            marginal += weight[i];
        explained += (marginal - mean) * (marginal - mean) / group.width;
      }
    } else {
      // The marginal is a step function between the boxes' ends.
      breaks.clear();
      for (Eigen::Index i = 0; i < n; ++i) {
        if (leaves.factor(i, j) <= 0) continue;
        breaks.push_back(leaves.lo(i, j));
        breaks.push_back(leaves.hi(i, j));
      }
      std::sort(breaks.begin(), breaks.end());
      breaks.erase(std::unique(breaks.begin(), breaks.end()), breaks.end());
      diff.assign(breaks.size(), 0.0);
      auto at = [&](double x) {
        return std::lower_bound(breaks.begin(), breaks.end(), x) -
               breaks.begin();
      };
      for (Eigen::Index i = 0; i < n; ++i) {
        if (leaves.factor(i, j) <= 0) continue;
        diff[static_cast<size_t>(at(leaves.lo(i, j)))] += weight[i];
        diff[static_cast<size_t>(at(leaves.hi(i, j)))] -= weight[i];
      }
      double marginal = 0;
      for (size_t k = 0; k + 1 < breaks.size(); ++k) {
        marginal += diff[k];
        explained +=
            (breaks[k + 1] - breaks[k]) * (marginal - mean) * (marginal - mean);
      }
    }
    fractions[static_cast<size_t>(j)] =
        std::clamp(explained / variance, 0.0, 1.0);
  }
  return fractions;
}

}  // namespace

FanovaResult DecomposeForest(const std::vector<RegressionTree>& forest,
                             const std::vector<FanovaGroup>& groups) {
  const size_t g = groups.size();
  FanovaResult r;
  r.mean.assign(g, 0.0);
  r.stddev.assign(g, 0.0);
  std::vector<double> sum_sq(g, 0.0);
  for (const RegressionTree& tree : forest) {
    const std::vector<double> f = TreeFractions(tree, groups);
    if (f.empty()) continue;
    ++r.trees;
    for (size_t j = 0; j < g; ++j) {
      r.mean[j] += f[j];
      sum_sq[j] += f[j] * f[j];
    }
  }
  if (r.trees == 0) return r;
  for (size_t j = 0; j < g; ++j) {
    r.mean[j] /= r.trees;
    r.stddev[j] =
        std::sqrt(std::max(0.0, sum_sq[j] / r.trees - r.mean[j] * r.mean[j]));
  }
  return r;
}

FanovaResult Fanova(const Eigen::MatrixXd& x, const Eigen::VectorXd& y,
                    const std::vector<FanovaGroup>& groups,
                    const ForestOptions& options) {
  return DecomposeForest(FitForest(x, y, options), groups);
}

}  // namespace hpt::analytics
