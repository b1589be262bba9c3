#pragma once
// The candidate points bayesianoptimization scores with its acquisition
// before refining the best (acquisition.h's MaximizeAcquisition).

#include <Eigen/Core>
#include <cstdint>
#include <string>
#include <unordered_set>
#include <vector>

#include "api/types.h"
#include "suggestion/local_model.h"
#include "suggestion/unit_cube.h"

namespace hpt::suggestion {

// Finite spaces up to this size are scored point by point.
inline constexpr int64_t kMaxEnumerated = 4096;

// Candidate points (projected): every point of a finite space of at most
// kMaxEnumerated whose AssignmentKey is not in `used`; otherwise `count`
// points: Sobol points (seeded by `seed`; in `region`, the local model's
// trust region, when given) and, for 2/5 of them, perturbations of the
// columns `best` of x (clamped into `region` when given).
Eigen::MatrixXd Candidates(const UnitCube& cube,
                           const api::ExperimentSpec& spec,
                           const std::unordered_set<std::string>& used,
                           const Eigen::MatrixXd& x,
                           const std::vector<int>& best, int count,
                           uint64_t seed, const LocalSubset* region);

}  // namespace hpt::suggestion
