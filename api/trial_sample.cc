#include "api/trial_sample.h"

#include <algorithm>
#include <optional>

#include "api/constraints.h"

namespace hpt::api {
namespace {

bool Ranked(const Trial& t) {
  return t.phase == TrialPhase::kSucceeded || t.phase == TrialPhase::kEarlyStopped;
}

bool FailedPhase(TrialPhase p) {
  return p == TrialPhase::kFailed || p == TrialPhase::kKilled ||
         p == TrialPhase::kMetricsUnavailable;
}

// Up to `n` of `from` (ascending), evenly spaced, first and last included.
std::vector<size_t> Spaced(const std::vector<size_t>& from, size_t n) {
  if (from.size() <= n) return from;
  std::vector<size_t> out;
  if (n == 0) return out;
  if (n == 1) return {from.front()};
  for (size_t k = 0; k < n; ++k) out.push_back(from[k * (from.size() - 1) / (n - 1)]);
  out.erase(std::unique(out.begin(), out.end()), out.end());
  return out;
}

}  // namespace

TrialSample SampleTrials(const std::vector<Trial>& trials, const std::vector<size_t>& selected,
                         const Objective& objective, size_t max_points) {
  TrialSample out;
  std::vector<size_t> order = selected;
  std::sort(order.begin(), order.end());
  if (order.size() <= max_points) {
    out.kept = std::move(order);
    return out;
  }
  out.sampled = true;
  const bool maximize = objective.type == ObjectiveType::kMaximize;
  std::vector<char> keep(trials.size(), 0);
  std::vector<std::pair<double, size_t>> scored;
  std::optional<double> best;
  for (size_t i : order) {
    const Trial& t = trials[i];
    if (!Ranked(t)) continue;
    std::optional<double> v = ObjectiveValue(t, objective);
    if (!v) continue;
    scored.push_back({maximize ? -*v : *v, i});
    if (!IsFeasible(t)) continue;
    if (!best || (maximize ? *v > *best : *v < *best)) {
      best = v;
      keep[i] = 1;  // rule 1: a new best so far
    }
  }
  const size_t top = std::min(scored.size(), max_points / 10);
  std::partial_sort(scored.begin(), scored.begin() + top, scored.end());
  for (size_t k = 0; k < top; ++k) keep[scored[k].second] = 1;  // rule 2
  size_t count = 0;
  for (size_t i : order) count += keep[i];
  out.best = count;

  std::vector<size_t> failed;
  for (size_t i : order) {
    if (!keep[i] && FailedPhase(trials[i].phase)) failed.push_back(i);
  }
  for (size_t i : Spaced(failed, max_points / 2)) {  // rule 3
    keep[i] = 1;
    ++out.failed;
  }
  count += out.failed;

  std::vector<size_t> rest;
  for (size_t i : order) {
    if (!keep[i]) rest.push_back(i);
  }
  const size_t room = max_points > count ? max_points - count : 0;
  for (size_t i : Spaced(rest, room)) keep[i] = 1;  // rule 4
  for (size_t i : order) {
    if (keep[i]) out.kept.push_back(i);
  }
  return out;
}

}  // namespace hpt::api
