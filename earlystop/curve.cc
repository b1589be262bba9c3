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

std::optional<int64_t> LastStep(const TrialCurve& curve) {
  std::optional<int64_t> last;
  for (const CurvePoint& p : curve.points) {
    if (std::isfinite(p.value) && (!last || p.step > *last)) last = p.step;
  }
  return last;
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

std::optional<double> MeanUpTo(const TrialCurve& curve, int64_t step) {
  double sum = 0;
  int n = 0;
  for (const CurvePoint& p : curve.points) {
    if (p.step > step || !std::isfinite(p.value)) continue;
    sum += p.value;
    ++n;
  }
  if (n == 0) return std::nullopt;
  return sum / n;
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
