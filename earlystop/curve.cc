#include "earlystop/curve.h"

#include <algorithm>
#include <cmath>
#include <map>

namespace hpt::earlystop {

TrialCurve MakeCurve(const api::Trial& trial,
                     const std::vector<api::Observation>& observations,
                     const std::string& metric) {
  std::map<int64_t, double> by_step;
  for (const api::Observation& o : observations) {
    auto it = o.metrics.find(metric);
    if (it == o.metrics.end() || !std::isfinite(it->second)) continue;
    by_step[o.step] = it->second;
  }
  TrialCurve curve{trial.name, trial.phase, {}};
  for (const auto& [step, value] : by_step)
    curve.points.push_back({step, value});
  return curve;
}

void SetPoint(TrialCurve& curve, CurvePoint point) {
  auto& points = curve.points;
  if (points.empty() || points.back().step < point.step) {
    points.push_back(point);
    return;
  }
  auto at = std::lower_bound(points.begin(), points.end(), point.step,
                             [](const CurvePoint& p, int64_t s) { return p.step < s; });
  if (at != points.end() && at->step == point.step) {
    at->value = point.value;
  } else {
    points.insert(at, point);  // rare: a step reported out of order
  }
}

std::optional<int64_t> LastStep(const TrialCurve& curve) {
  for (size_t i = curve.points.size(); i-- > 0;) {
    if (std::isfinite(curve.points[i].value)) return curve.points[i].step;
  }
  return std::nullopt;
}

std::optional<double> BestUpTo(const TrialCurve& curve, int64_t step,
                               api::ObjectiveType type) {
  std::optional<double> best;
  for (const CurvePoint& p : curve.points) {
    if (p.step > step || !std::isfinite(p.value)) continue;
    if (!best || api::IsBetter(p.value, *best, type)) best = p.value;
  }
  return best;
}

std::optional<double> ValueAt(const TrialCurve& curve, int64_t step) {
  auto end = std::upper_bound(
      curve.points.begin(), curve.points.end(), step,
      [](int64_t s, const CurvePoint& p) { return s < p.step; });
  for (auto it = end; it != curve.points.begin();) {
    --it;
    if (std::isfinite(it->value)) return it->value;
  }
  return std::nullopt;
}

const CurvePoint* FirstAtOrAfter(const TrialCurve& curve, double step) {
  // A scan, not a binary search: it stays right for a curve handed over
  // out of order, and curves are short.
  const CurvePoint* first = nullptr;
  for (const CurvePoint& p : curve.points) {
    if (static_cast<double>(p.step) < step || !std::isfinite(p.value)) continue;
    if (!first || p.step < first->step) first = &p;
  }
  return first;
}

}  // namespace hpt::earlystop
