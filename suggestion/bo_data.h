#pragma once
// What bayesianoptimization takes from the trial history and keeps in its
// opaque state. See bayesian_optimization.h for how each phase counts.

#include <Eigen/Core>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "api/types.h"
#include "suggestion/unit_cube.h"

namespace hpt::suggestion {

struct BoData {
  // Points to fit (dim x n): observations and failures, ordered by
  // completion time then position in history, so that a later history
  // usually extends an earlier one's points (FactorCache).
  Eigen::MatrixXd x;
  // Values to minimise (negated for maximize); NaN for failures.
  Eigen::VectorXd value;
  int observed = 0;         // entries of value that are not NaN
  // Per column of x: false for a trial with a constraint value above 0
  // (api/constraints.h), which cannot be the incumbent.
  std::vector<bool> feasible;
  Eigen::MatrixXd pending;  // dim x p: Running and Pending trials
};

// Trials whose assignment does not encode (a hand-made trial with a value
// outside the space) are left out. `losses`: empty (the objective's
// values), or one entry per history trial, the value to minimise of a
// Succeeded or EarlyStopped trial in place of its objective's (the
// multi-objective scalar, parego.h); nullopt counts as a failure.
BoData CollectData(const UnitCube& cube, const api::ExperimentSpec& spec,
                   const std::vector<api::Trial>& history,
                   const std::vector<std::optional<double>>& losses = {});

struct BoState {
  uint64_t seed = 0;
  int fit_points = 0;                    // points at the last full fit
  std::optional<Eigen::VectorXd> theta;  // its hyperparameters
  // The points of a background fit submitted and not yet adopted
  // (bo_refit.h); 0 when there is none.
  int refit_at = 0;
  // The local model's size at the last call (local_model.h); 0 when the
  // exact GP made it.
  int local_points = 0;
};

// "seed=<u64>[;local=<m>];fit=<n>[;refit=<n_r>];theta=<hex float>,..."
// (the rest only after a fit, local only from the local model, refit only
// while a background fit is pending; states without it still parse). Hex floats keep the
// hyperparameters bitwise, which FactorCache needs.
std::string FormatState(const BoState& state);
std::optional<BoState> ParseState(std::string_view text);

}  // namespace hpt::suggestion
