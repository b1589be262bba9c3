#include "suggestion/nsga2_selection.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <numeric>

#include "api/pareto.h"

namespace hpt::suggestion {

std::vector<double> CrowdingDistances(
    const std::vector<std::vector<double>>& front) {
  const size_t n = front.size();
  std::vector<double> distance(n, 0.0);
  if (n == 0) return distance;
  const double inf = std::numeric_limits<double>::infinity();
  std::vector<size_t> order(n);
  for (size_t m = 0; m < front[0].size(); ++m) {
    std::iota(order.begin(), order.end(), size_t{0});
    std::stable_sort(order.begin(), order.end(), [&](size_t a, size_t b) {
      return front[a][m] < front[b][m];
    });
    const double width = front[order.back()][m] - front[order.front()][m];
    if (!(width > 0)) continue;
    distance[order.front()] = inf;
    distance[order.back()] = inf;
    for (size_t j = 1; j + 1 < n; ++j) {
      distance[order[j]] +=
          (front[order[j + 1]][m] - front[order[j - 1]][m]) / width;
    }
  }
  return distance;
}

namespace {

// The points of each front, fronts in rank order.
std::vector<std::vector<size_t>> Fronts(const std::vector<int>& rank) {
  std::vector<std::vector<size_t>> fronts;
  for (size_t i = 0; i < rank.size(); ++i) {
    const auto r = static_cast<size_t>(rank[i]);
    if (fronts.size() <= r) fronts.resize(r + 1);
    fronts[r].push_back(i);
  }
  return fronts;
}

std::vector<double> FrontCrowding(
    const std::vector<std::vector<double>>& points,
    const std::vector<size_t>& front) {
  std::vector<std::vector<double>> values;
  values.reserve(front.size());
  for (size_t i : front) values.push_back(points[i]);
  return CrowdingDistances(values);
}

}  // namespace

RankedPopulation RankPopulation(
    const std::vector<std::vector<double>>& points) {
  RankedPopulation out;
  out.rank = api::ParetoRanks(points);
  out.crowding.assign(points.size(), 0.0);
  for (const std::vector<size_t>& front : Fronts(out.rank)) {
    std::vector<double> d = FrontCrowding(points, front);
    for (size_t k = 0; k < front.size(); ++k) out.crowding[front[k]] = d[k];
  }
  return out;
}

std::vector<size_t> SelectElite(const std::vector<std::vector<double>>& points,
                                size_t size) {
  std::vector<size_t> elite;
  for (std::vector<size_t>& front : Fronts(api::ParetoRanks(points))) {
    if (elite.size() >= size) break;
    if (elite.size() + front.size() > size) {
      const std::vector<double> d = FrontCrowding(points, front);
      std::vector<size_t> order(front.size());
      std::iota(order.begin(), order.end(), size_t{0});
      std::stable_sort(order.begin(), order.end(),
                       [&](size_t a, size_t b) { return d[a] > d[b]; });
      order.resize(size - elite.size());
      for (size_t k : order) elite.push_back(front[k]);
      break;
    }
    elite.insert(elite.end(), front.begin(), front.end());
  }
  std::sort(elite.begin(), elite.end());
  return elite;
}

size_t Tournament(const RankedPopulation& ranked,
                  const std::vector<size_t>& candidates, std::mt19937_64& rng) {
  std::uniform_int_distribution<size_t> pick(0, candidates.size() - 1);
  const size_t a = candidates[pick(rng)];
  const size_t b = candidates[pick(rng)];
  if (ranked.rank[b] < ranked.rank[a]) return b;
  if (ranked.rank[b] == ranked.rank[a] &&
      ranked.crowding[b] > ranked.crowding[a]) {
    return b;
  }
  return a;
}

std::vector<std::vector<double>> ConstrainedPoints(
    std::vector<std::vector<double>> points, const std::vector<double>& violations) {
  double low = 0, high = 0, worst = 0;
  for (size_t i = 0; i < points.size(); ++i) {
    for (double v : points[i]) {
      low = std::min(low, v);
      high = std::max(high, v);
    }
    if (violations[i] > 0) worst = std::max(worst, violations[i]);
  }
  const double top = high + 1;
  // Without values: above top + worst however low their values.
  const double shift = top + worst + 1 - low;
  for (size_t i = 0; i < points.size(); ++i) {
    if (std::isnan(violations[i])) {
      for (double& v : points[i]) v += shift;
    } else if (violations[i] > 0) {
      std::fill(points[i].begin(), points[i].end(), top + violations[i]);
    }
  }
  return points;
}

}  // namespace hpt::suggestion
