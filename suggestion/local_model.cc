#include "suggestion/local_model.h"

#include <algorithm>
#include <numeric>

#include "api/status.h"

namespace hpt::suggestion {

LocalSubset SelectLocalSubset(const Eigen::MatrixXd& x,
                              const Eigen::VectorXd& y, int centre,
                              const Eigen::VectorXd& lengthscales, int points) {
  const int n = static_cast<int>(x.cols());
  const int dim = static_cast<int>(x.rows());
  HPT_CHECK(y.size() == n && lengthscales.size() == dim && centre >= 0 &&
            centre < n && points > 0);
  LocalSubset subset;
  if (n <= points) {
    subset.indices.resize(static_cast<size_t>(n));
    std::iota(subset.indices.begin(), subset.indices.end(), 0);
    subset.lower = x.rowwise().minCoeff();
    subset.upper = x.rowwise().maxCoeff();
    return subset;
  }
  const Eigen::VectorXd inverse = lengthscales.cwiseInverse();
  const Eigen::VectorXd c = x.col(centre);
  std::vector<std::pair<double, int>> distance(static_cast<size_t>(n));
  for (int i = 0; i < n; ++i) {
    distance[static_cast<size_t>(i)] = {
        (x.col(i) - c).cwiseProduct(inverse).squaredNorm(), i};
  }
  const int near = std::max(1, points * 3 / 4);
  // (distance, index) pairs order ties by index; the centre is at 0.
  std::nth_element(distance.begin(), distance.begin() + near, distance.end());
  std::vector<bool> chosen(static_cast<size_t>(n), false);
  subset.lower = c;
  subset.upper = c;
  for (int k = 0; k < near; ++k) {
    const int i = distance[static_cast<size_t>(k)].second;
    chosen[static_cast<size_t>(i)] = true;
    subset.indices.push_back(i);
    subset.lower = subset.lower.cwiseMin(x.col(i));
    subset.upper = subset.upper.cwiseMax(x.col(i));
  }
  std::vector<std::pair<double, int>> rest;
  rest.reserve(static_cast<size_t>(n - near));
  for (int i = 0; i < n; ++i) {
    if (!chosen[static_cast<size_t>(i)]) rest.push_back({y[i], i});
  }
  const int best = std::min<int>(points - near, static_cast<int>(rest.size()));
  std::partial_sort(rest.begin(), rest.begin() + best, rest.end());
  for (int k = 0; k < best; ++k) {
    subset.indices.push_back(rest[static_cast<size_t>(k)].second);
  }
  std::sort(subset.indices.begin(), subset.indices.end());
  return subset;
}

int BestObserved(const Eigen::VectorXd& y, const std::vector<int>& observed,
                 const std::vector<bool>& feasible) {
  int best = -1;
  for (int pass = 0; pass < 2 && best < 0; ++pass) {
    for (int i : observed) {
      if ((pass == 1 || feasible[static_cast<size_t>(i)]) &&
          (best < 0 || y[i] < y[best])) {
        best = i;
      }
    }
  }
  return best;
}

ModelData LocalModelData(const Eigen::MatrixXd& x, const Eigen::VectorXd& y,
                         const std::vector<bool>& feasible,
                         const std::vector<int>& observed,
                         const Eigen::VectorXd& lengthscales, int points) {
  ModelData model;
  const int centre = BestObserved(y, observed, feasible);
  model.region =
      SelectLocalSubset(x, y, std::max(centre, 0), lengthscales, points);
  std::vector<bool> has_value(static_cast<size_t>(x.cols()), false);
  for (int i : observed) has_value[static_cast<size_t>(i)] = true;
  const int m = static_cast<int>(model.region.indices.size());
  model.x.resize(x.rows(), m);
  model.y.resize(m);
  for (int k = 0; k < m; ++k) {
    const int i = model.region.indices[static_cast<size_t>(k)];
    model.x.col(k) = x.col(i);
    model.y[k] = y[i];
    model.feasible.push_back(feasible[static_cast<size_t>(i)]);
    if (has_value[static_cast<size_t>(i)]) model.observed.push_back(k);
  }
  return model;
}

}  // namespace hpt::suggestion
