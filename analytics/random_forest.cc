#include "analytics/random_forest.h"

#include <algorithm>
#include <numeric>
#include <random>

#include "api/status.h"

namespace hpt::analytics {
namespace {

// SplitMix64's finaliser: tree t's seed from (seed, t), so trees do not
// depend on each other's draws.
uint64_t Mix(uint64_t x) {
  x += 0x9e3779b97f4a7c15ULL;
  x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ULL;
  x = (x ^ (x >> 27)) * 0x94d049bb133111ebULL;
  return x ^ (x >> 31);
}

// Grows one tree. Every feature's sample order is sorted once; a node owns
// the same range [begin, end) of each order, and a split partitions each
// range stably, so no node sorts again (O(d n) per level of the tree).
class TreeBuilder {
 public:
  TreeBuilder(const Eigen::MatrixXd& x, const Eigen::VectorXd& y,
              const ForestOptions& options, std::mt19937_64& rng)
      : options_(options), rng_(rng) {
    const auto n = static_cast<int>(x.rows());
    const auto d = static_cast<int>(x.cols());
    std::vector<int> rows(static_cast<size_t>(n));
    if (options.bootstrap) {
      for (int& r : rows)
        r = static_cast<int>(rng_() % static_cast<uint64_t>(n));
    } else {
      std::iota(rows.begin(), rows.end(), 0);
    }
    xs_.resize(n, d);
    ys_.resize(n);
    for (int s = 0; s < n; ++s) {
      xs_.row(s) = x.row(rows[static_cast<size_t>(s)]);
      ys_[s] = y[rows[static_cast<size_t>(s)]];
    }
    order_.assign(static_cast<size_t>(d),
                  std::vector<int>(static_cast<size_t>(n)));
    for (int j = 0; j < d; ++j) {
      auto& o = order_[static_cast<size_t>(j)];
      std::iota(o.begin(), o.end(), 0);
      std::stable_sort(o.begin(), o.end(),
                       [&](int a, int b) { return xs_(a, j) < xs_(b, j); });
    }
    features_.resize(static_cast<size_t>(d));
    std::iota(features_.begin(), features_.end(), 0);
    go_left_.resize(static_cast<size_t>(n));
    buffer_.resize(static_cast<size_t>(n));
  }

  RegressionTree Build() {
    Grow(0, static_cast<int>(ys_.size()), 0);
    return std::move(tree_);
  }

 private:
  struct Split {
    int feature = -1;
    double threshold = 0;
    double score = 0;  // sum_l^2 / n_l + sum_r^2 / n_r: higher is better
  };

  int Grow(int begin, int end, int depth) {
    const int index = static_cast<int>(tree_.nodes.size());
    tree_.nodes.emplace_back();
    const std::vector<int>& any = order_[0];
    double sum = 0, lo = ys_[any[static_cast<size_t>(begin)]], hi = lo;
    for (int i = begin; i < end; ++i) {
      const double v = ys_[any[static_cast<size_t>(i)]];
      sum += v;
      lo = std::min(lo, v);
      hi = std::max(hi, v);
    }
    const int count = end - begin;
    tree_.nodes[static_cast<size_t>(index)].value = sum / count;
    if (depth >= options_.max_depth || count < options_.min_samples_split ||
        count < 2 * options_.min_samples_leaf || lo == hi) {
      return index;
    }
    const Split split = BestSplit(begin, end, sum);
    if (split.feature < 0) return index;
    int left_count = 0;
    for (int i = begin; i < end; ++i) {
      const int s = any[static_cast<size_t>(i)];
      const bool left = xs_(s, split.feature) <= split.threshold;
      go_left_[static_cast<size_t>(s)] = left;
      left_count += left;
    }
    for (auto& o : order_) Partition(&o, begin, end);
    const int left = Grow(begin, begin + left_count, depth + 1);
    const int right = Grow(begin + left_count, end, depth + 1);
    TreeNode& node = tree_.nodes[static_cast<size_t>(index)];
    node.feature = split.feature;
    node.threshold = split.threshold;
    node.left = left;
    node.right = right;
    return index;
  }

  Split BestSplit(int begin, int end, double sum) {
    const auto d = static_cast<int>(features_.size());
    for (int i = d - 1; i > 0; --i) {
      std::swap(features_[static_cast<size_t>(i)],
                features_[rng_() % static_cast<uint64_t>(i + 1)]);
    }
    const int wanted =
        options_.max_features > 0 ? std::min(options_.max_features, d) : d;
    const int count = end - begin;
    Split best;
    int visited = 0;
    for (int f : features_) {
      if (visited == wanted) break;
      const std::vector<int>& o = order_[static_cast<size_t>(f)];
      if (xs_(o[static_cast<size_t>(begin)], f) ==
          xs_(o[static_cast<size_t>(end - 1)], f)) {
        continue;  // constant here: not counted, as scikit-learn does
      }
      ++visited;
      double left_sum = 0;
      for (int i = begin; i < end - 1; ++i) {
        const int s = o[static_cast<size_t>(i)];
        const int next = o[static_cast<size_t>(i + 1)];
        left_sum += ys_[s];
        const int nl = i - begin + 1;
        const int nr = count - nl;
        const double a = xs_(s, f), b = xs_(next, f);
        if (a == b || nl < options_.min_samples_leaf ||
            nr < options_.min_samples_leaf) {
          continue;
        }
        const double right_sum = sum - left_sum;
        const double score =
            left_sum * left_sum / nl + right_sum * right_sum / nr;
        if (best.feature < 0 || score > best.score) {
          double t = a + (b - a) / 2;
          if (t >= b) t = a;  // a and b one ulp apart
          best = {f, t, score};
        }
      }
    }
    return best;
  }

  // Stable: the left samples first, each side in its sorted order.
  void Partition(std::vector<int>* o, int begin, int end) {
    auto first = o->begin() + begin;
    auto last = o->begin() + end;
    auto out_left = first;
    auto out_right = buffer_.begin();
    for (auto it = first; it != last; ++it) {
      if (go_left_[static_cast<size_t>(*it)]) {
        *out_left++ = *it;
      } else {
        *out_right++ = *it;
      }
    }
    std::copy(buffer_.begin(), out_right, out_left);
  }

  const ForestOptions& options_;
  std::mt19937_64& rng_;
  Eigen::MatrixXd xs_;  // the sample's rows (bootstrap draws, repeats kept)
  Eigen::VectorXd ys_;
  std::vector<std::vector<int>> order_;  // per feature: samples sorted by it
  std::vector<int> features_;
  std::vector<char> go_left_;
  std::vector<int> buffer_;
  RegressionTree tree_;
};

}  // namespace

bool ForestOptions::IsValid(std::string* error) const {
  auto fail = [&](const char* what) {
    if (error) *error = what;
    return false;
  };
  if (trees < 1) return fail("trees must be at least 1");
  if (max_depth < 0) return fail("max_depth must not be negative");
  if (min_samples_split < 2)
    return fail("min_samples_split must be at least 2");
  if (min_samples_leaf < 1) return fail("min_samples_leaf must be at least 1");
  if (max_features < 0) return fail("max_features must not be negative");
  return true;
}

double RegressionTree::Predict(
    const Eigen::Ref<const Eigen::VectorXd>& x) const {
  int i = 0;
  while (nodes[static_cast<size_t>(i)].feature >= 0) {
    const TreeNode& n = nodes[static_cast<size_t>(i)];
    i = x[n.feature] <= n.threshold ? n.left : n.right;
  }
  return nodes[static_cast<size_t>(i)].value;
}

std::vector<RegressionTree> FitForest(const Eigen::MatrixXd& x,
                                      const Eigen::VectorXd& y,
                                      const ForestOptions& options) {
  HPT_CHECK(x.rows() >= 1 && x.cols() >= 1 && x.rows() == y.size() &&
            options.IsValid(nullptr));
  std::vector<RegressionTree> forest;
  forest.reserve(static_cast<size_t>(options.trees));
  for (int t = 0; t < options.trees; ++t) {
    std::mt19937_64 rng(Mix(options.seed ^ Mix(static_cast<uint64_t>(t))));
    forest.push_back(TreeBuilder(x, y, options, rng).Build());
  }
  return forest;
}

}  // namespace hpt::analytics
