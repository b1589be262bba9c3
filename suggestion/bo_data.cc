#include "suggestion/bo_data.h"

#include <algorithm>
#include <cinttypes>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <limits>
#include <tuple>

#include "api/constraints.h"

namespace hpt::suggestion {
namespace {

using api::TrialPhase;

struct Row {
  int64_t completed;
  size_t index;
  Eigen::VectorXd x;
  double value;
  bool feasible = true;
};

}  // namespace

BoData CollectData(const UnitCube& cube, const api::ExperimentSpec& spec,
                   const std::vector<api::Trial>& history,
                   const std::vector<std::optional<double>>& losses) {
  const double sign =
      spec.objective.type == api::ObjectiveType::kMaximize ? -1 : 1;
  const double failed = std::numeric_limits<double>::quiet_NaN();
  std::vector<Row> rows;
  std::vector<Eigen::VectorXd> pending;
  for (size_t i = 0; i < history.size(); ++i) {
    const api::Trial& trial = history[i];
    std::optional<Eigen::VectorXd> x = cube.Encode(trial.assignment);
    if (!x) continue;
    switch (trial.phase) {
      case TrialPhase::kSucceeded:
      case TrialPhase::kEarlyStopped: {
        double value = failed;
        if (!losses.empty()) {
          if (losses[i] && std::isfinite(*losses[i])) value = *losses[i];
        } else if (std::optional<double> v =
                       api::ObjectiveValue(trial, spec.objective);
                   v && std::isfinite(*v)) {
          value = sign * *v;
        }
        rows.push_back({trial.completion_time_ms, i, std::move(*x), value,
                        api::IsFeasible(trial)});
        break;
      }
      case TrialPhase::kFailed:
      case TrialPhase::kMetricsUnavailable:
        rows.push_back({trial.completion_time_ms, i, std::move(*x), failed});
        break;
      case TrialPhase::kRunning:
      case TrialPhase::kPending:
        pending.push_back(std::move(*x));
        break;
      case TrialPhase::kKilled:
        break;
    }
  }
  std::stable_sort(rows.begin(), rows.end(), [](const Row& a, const Row& b) {
    return std::tie(a.completed, a.index) < std::tie(b.completed, b.index);
  });
  BoData data;
  data.x.resize(cube.dim(), static_cast<Eigen::Index>(rows.size()));
  data.value.resize(static_cast<Eigen::Index>(rows.size()));
  for (size_t i = 0; i < rows.size(); ++i) {
    auto c = static_cast<Eigen::Index>(i);
    data.x.col(c) = rows[i].x;
    data.value[c] = rows[i].value;
    data.feasible.push_back(rows[i].feasible);
    if (!std::isnan(rows[i].value)) ++data.observed;
  }
  data.pending.resize(cube.dim(), static_cast<Eigen::Index>(pending.size()));
  for (size_t i = 0; i < pending.size(); ++i) {
    data.pending.col(static_cast<Eigen::Index>(i)) = pending[i];
  }
  return data;
}

std::string FormatState(const BoState& state) {
  std::string text = "seed=" + std::to_string(state.seed);
  if (!state.theta) return text;
  if (state.local_points > 0) {
    text += ";local=" + std::to_string(state.local_points);
  }
  text += ";fit=" + std::to_string(state.fit_points);
  if (state.refit_at > 0) text += ";refit=" + std::to_string(state.refit_at);
  text += ";theta=";
  char buffer[40];
  for (Eigen::Index i = 0; i < state.theta->size(); ++i) {
    std::snprintf(buffer, sizeof(buffer), "%a", (*state.theta)[i]);
    text += (i ? "," : "") + std::string(buffer);
  }
  return text;
}

std::optional<BoState> ParseState(std::string_view text) {
  BoState state;
  std::string copy(text);
  const char* p = copy.c_str();
  int used = 0;
  if (std::sscanf(p, "seed=%" SCNu64 "%n", &state.seed, &used) != 1) {
    return std::nullopt;
  }
  p += used;
  if (*p == '\0') return state;
  used = 0;
  if (std::sscanf(p, ";local=%d%n", &state.local_points, &used) == 1) {
    if (state.local_points <= 0) return std::nullopt;
    p += used;
  }
  used = 0;
  if (std::sscanf(p, ";fit=%d%n", &state.fit_points, &used) != 1 ||
      state.fit_points < 0) {
    return std::nullopt;
  }
  p += used;
  used = 0;
  if (std::sscanf(p, ";refit=%d%n", &state.refit_at, &used) == 1) {
    if (state.refit_at <= state.fit_points) return std::nullopt;
    p += used;
  }
  if (std::strncmp(p, ";theta=", 7) != 0) return std::nullopt;
  p += 7;
  std::vector<double> theta;
  while (true) {
    char* end = nullptr;
    double v = std::strtod(p, &end);
    if (end == p || !std::isfinite(v)) return std::nullopt;
    theta.push_back(v);
    p = end;
    if (*p == '\0') break;
    if (*p != ',') return std::nullopt;
    ++p;
  }
  if (theta.size() < 3) return std::nullopt;
  state.theta = Eigen::Map<Eigen::VectorXd>(
      theta.data(), static_cast<Eigen::Index>(theta.size()));
  return state;
}

}  // namespace hpt::suggestion
