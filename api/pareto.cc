#include "api/pareto.h"

#include <algorithm>
#include <cmath>
#include <limits>

#include "api/constraints.h"

namespace hpt::api {

std::vector<double> ToMinimization(const std::vector<double>& values,
                                   const std::vector<ObjectiveMetric>& objectives) {
  std::vector<double> out = values;
  for (size_t i = 0; i < out.size() && i < objectives.size(); ++i) {
    if (objectives[i].type == ObjectiveType::kMaximize) out[i] = -out[i];
  }
  return out;
}

bool Dominates(const std::vector<double>& a, const std::vector<double>& b) {
  bool strictly = false;
  for (size_t i = 0; i < a.size(); ++i) {
    if (a[i] > b[i]) return false;
    if (a[i] < b[i]) strictly = true;
  }
  return strictly;
}

std::vector<size_t> NonDominated(const std::vector<std::vector<double>>& points) {
  std::vector<size_t> out;
  for (size_t i = 0; i < points.size(); ++i) {
    bool dominated = false;
    for (size_t j = 0; j < points.size() && !dominated; ++j) {
      dominated = j != i && Dominates(points[j], points[i]);
    }
    if (!dominated) out.push_back(i);
  }
  return out;
}

std::vector<int> ParetoRanks(const std::vector<std::vector<double>>& points) {
  // Deb's fast non-dominated sort: O(m n^2).
  const size_t n = points.size();
  std::vector<std::vector<size_t>> dominates(n);
  std::vector<int> dominated_by(n, 0), rank(n, 0);
  std::vector<size_t> front;
  for (size_t i = 0; i < n; ++i) {
    for (size_t j = 0; j < n; ++j) {
      if (i == j) continue;
      if (Dominates(points[i], points[j])) {
        dominates[i].push_back(j);
      } else if (Dominates(points[j], points[i])) {
        ++dominated_by[i];
      }
    }
    if (dominated_by[i] == 0) front.push_back(i);
  }
  for (int r = 0; !front.empty(); ++r) {
    std::vector<size_t> next;
    for (size_t i : front) {
      rank[i] = r;
      for (size_t j : dominates[i]) {
        if (--dominated_by[j] == 0) next.push_back(j);
      }
    }
    front = std::move(next);
  }
  return rank;
}

namespace {

// Hypervolume by slicing along the last objective (HSO); `points` all
// dominate `ref` strictly.
double SliceVolume(std::vector<std::vector<double>> points, const std::vector<double>& ref,
                   size_t dims) {
  if (points.empty()) return 0;
  if (dims == 1) {
    double best = ref[0];
    for (const auto& p : points) best = std::min(best, p[0]);
    return ref[0] - best;
  }
  const size_t last = dims - 1;
  std::sort(points.begin(), points.end(),
            [last](const auto& a, const auto& b) { return a[last] < b[last]; });
  if (dims == 2) {
    double volume = 0, best_x = ref[0];
    for (size_t i = 0; i < points.size(); ++i) {
      best_x = std::min(best_x, points[i][0]);
      const double top = i + 1 < points.size() ? points[i + 1][1] : ref[1];
      volume += (ref[0] - best_x) * (top - points[i][1]);
    }
    return volume;
  }
  double volume = 0;
  std::vector<std::vector<double>> below;
  for (size_t i = 0; i < points.size(); ++i) {
    below.push_back(points[i]);
    const double top = i + 1 < points.size() ? points[i + 1][last] : ref[last];
    if (top <= points[i][last]) continue;  // same slice as the next point
    std::vector<std::vector<double>> front;
    for (size_t k : NonDominated(below)) front.push_back(below[k]);
    below = front;
    volume += SliceVolume(below, ref, dims - 1) * (top - points[i][last]);
  }
  return volume;
}

}  // namespace

double Hypervolume(std::vector<std::vector<double>> points,
                   const std::vector<double>& reference) {
  std::erase_if(points, [&](const std::vector<double>& p) {
    for (size_t i = 0; i < reference.size(); ++i) {
      if (!(p[i] < reference[i])) return true;  // also drops NaN
    }
    return false;
  });
  std::vector<std::vector<double>> front;
  for (size_t k : NonDominated(points)) front.push_back(points[k]);
  return SliceVolume(std::move(front), reference, reference.size());
}

namespace {

struct Scored {
  size_t index;
  std::vector<double> values;
};

std::vector<Scored> Finished(const std::vector<Trial>& trials, const Objective& objective) {
  std::vector<Scored> out;
  for (size_t i = 0; i < trials.size(); ++i) {
    if (trials[i].phase != TrialPhase::kSucceeded || !IsFeasible(trials[i])) continue;
    auto v = ObjectiveValues(trials[i], objective);
    if (!v) continue;
    bool finite = std::all_of(v->begin(), v->end(), [](double x) { return std::isfinite(x); });
    if (finite) out.push_back({i, std::move(*v)});
  }
  return out;
}

}  // namespace

std::vector<FrontMember> ParetoFront(const std::vector<Trial>& trials,
                                     const Objective& objective) {
  const std::vector<ObjectiveMetric> objectives = Objectives(objective);
  std::vector<Scored> scored = Finished(trials, objective);
  std::vector<std::vector<double>> points;
  for (const Scored& s : scored) points.push_back(ToMinimization(s.values, objectives));
  std::vector<FrontMember> out;
  for (size_t k : NonDominated(points)) out.push_back({scored[k].index, scored[k].values});
  return out;
}

std::optional<std::vector<double>> DefaultReference(const std::vector<Trial>& trials,
                                                    const Objective& objective) {
  const std::vector<ObjectiveMetric> objectives = Objectives(objective);
  std::vector<Scored> scored = Finished(trials, objective);
  if (scored.empty()) return std::nullopt;
  std::vector<double> reference;
  for (size_t d = 0; d < objectives.size(); ++d) {
    double lo = std::numeric_limits<double>::infinity(), hi = -lo;
    for (const Scored& s : scored) {
      lo = std::min(lo, s.values[d]);
      hi = std::max(hi, s.values[d]);
    }
    const double margin = hi > lo ? 0.1 * (hi - lo) : 1.0;
    reference.push_back(objectives[d].type == ObjectiveType::kMinimize ? hi + margin
                                                                       : lo - margin);
  }
  return reference;
}

std::vector<double> HypervolumeCurve(const std::vector<Trial>& trials,
                                     const Objective& objective,
                                     const std::vector<double>& reference) {
  const std::vector<ObjectiveMetric> objectives = Objectives(objective);
  const std::vector<double> ref = ToMinimization(reference, objectives);
  std::vector<Scored> scored = Finished(trials, objective);
  std::vector<double> curve(trials.size(), 0.0);
  std::vector<std::vector<double>> front;
  double volume = 0;
  size_t next = 0;
  for (size_t i = 0; i < trials.size(); ++i) {
    for (; next < scored.size() && scored[next].index == i; ++next) {
      std::vector<double> p = ToMinimization(scored[next].values, objectives);
      bool dominated = std::any_of(front.begin(), front.end(), [&](const auto& q) {
        return Dominates(q, p) || q == p;
      });
      if (dominated) continue;  // the front, and so the volume, is unchanged
      std::erase_if(front, [&](const auto& q) { return Dominates(p, q); });
      front.push_back(std::move(p));
      volume = Hypervolume(front, ref);
    }
    curve[i] = volume;
  }
  return curve;
}

}  // namespace hpt::api
