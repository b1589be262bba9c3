#include "api/constraints.h"

#include <algorithm>

namespace hpt::api {

std::string ConstraintMetricName(size_t index) {
  return kConstraintPrefix + std::to_string(index);
}

std::optional<size_t> ConstraintIndex(const std::string& metric_name) {
  const std::string prefix = kConstraintPrefix;
  if (metric_name.size() <= prefix.size() || metric_name.compare(0, prefix.size(), prefix) != 0) {
    return std::nullopt;
  }
  const std::string digits = metric_name.substr(prefix.size());
  if (digits.size() > 2 || (digits.size() > 1 && digits[0] == '0') ||
      !std::all_of(digits.begin(), digits.end(), [](char c) { return c >= '0' && c <= '9'; })) {
    return std::nullopt;
  }
  const size_t index = std::stoul(digits);
  if (index >= kMaxConstraints) return std::nullopt;
  return index;
}

std::vector<double> ConstraintValues(const Trial& trial) {
  std::vector<double> out;
  for (const MetricSummary& m : trial.metrics) {
    std::optional<size_t> i = ConstraintIndex(m.name);
    if (!i) continue;
    if (out.size() <= *i) out.resize(*i + 1, 0.0);
    out[*i] = m.latest;
  }
  return out;
}

bool HasConstraints(const Trial& trial) {
  return std::any_of(trial.metrics.begin(), trial.metrics.end(),
                     [](const MetricSummary& m) { return ConstraintIndex(m.name).has_value(); });
}

double Violation(const std::vector<double>& constraints) {
  double sum = 0;
  for (double c : constraints) {
    if (c > 0) sum += c;
  }
  return sum;
}

bool IsFeasible(const Trial& trial) {
  for (const MetricSummary& m : trial.metrics) {
    if (m.latest > 0 && ConstraintIndex(m.name)) return false;
  }
  return true;
}

bool AnyConstraints(const std::vector<Trial>& trials) {
  return std::any_of(trials.begin(), trials.end(), HasConstraints);
}

}  // namespace hpt::api
