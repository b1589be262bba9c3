#include "suggestion/parego.h"

#include <algorithm>
#include <cmath>
#include <limits>

#include "api/pareto.h"

namespace hpt::suggestion {

std::vector<double> DrawSimplexWeights(int m, std::mt19937_64& rng) {
  std::exponential_distribution<double> exponential(1.0);
  std::vector<double> w(static_cast<size_t>(std::max(m, 1)));
  double sum = 0;
  for (double& x : w) sum += (x = exponential(rng));
  if (!(sum > 0)) {  // every draw 0: practically unreachable
    std::fill(w.begin(), w.end(), 1.0 / static_cast<double>(w.size()));
    return w;
  }
  for (double& x : w) x /= sum;
  return w;
}

std::vector<std::optional<double>> ParegoLosses(
    const std::vector<api::Trial>& history, const api::Objective& objective,
    const std::vector<double>& weights) {
  const std::vector<api::ObjectiveMetric> objectives =
      api::Objectives(objective);
  const size_t m = objectives.size();
  std::vector<std::optional<std::vector<double>>> values(history.size());
  std::vector<double> lo(m, std::numeric_limits<double>::infinity());
  std::vector<double> hi(m, -std::numeric_limits<double>::infinity());
  for (size_t i = 0; i < history.size(); ++i) {
    const api::Trial& t = history[i];
    if (t.phase != api::TrialPhase::kSucceeded &&
        t.phase != api::TrialPhase::kEarlyStopped) {
      continue;
    }
    std::optional<std::vector<double>> v = api::ObjectiveValues(t, objective);
    if (!v || v->size() != m ||
        !std::all_of(v->begin(), v->end(),
                     [](double x) { return std::isfinite(x); })) {
      continue;
    }
    values[i] = api::ToMinimization(*v, objectives);
    for (size_t k = 0; k < m; ++k) {
      lo[k] = std::min(lo[k], (*values[i])[k]);
      hi[k] = std::max(hi[k], (*values[i])[k]);
    }
  }
  std::vector<std::optional<double>> out(history.size());
  for (size_t i = 0; i < history.size(); ++i) {
    if (!values[i]) continue;
    double worst = -std::numeric_limits<double>::infinity(), sum = 0;
    for (size_t k = 0; k < m; ++k) {
      const double range = hi[k] - lo[k];
      const double f = range > 0 ? ((*values[i])[k] - lo[k]) / range : 0.0;
      const double wf = (k < weights.size() ? weights[k] : 0.0) * f;
      worst = std::max(worst, wf);
      sum += wf;
    }
    out[i] = worst + kParegoRho * sum;
  }
  return out;
}

}  // namespace hpt::suggestion
