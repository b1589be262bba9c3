#pragma once
// CmaSession: everything the cmaes algorithm carries from one call to the
// next (its opaque state, cmaes.h): the current CMA-ES run, the restart
// bookkeeping of IPOP and BIPOP, and the points asked in the current
// generation. Parse and ToJson round-trip it exactly.

#include <Eigen/Dense>
#include <cstdint>
#include <random>
#include <string>
#include <string_view>
#include <vector>

#include "api/status.h"
#include "suggestion/cmaes_core.h"

namespace hpt::suggestion {

enum class RestartStrategy { kNone, kIpop, kBipop };

// FNV-1a of an assignment's AssignmentKey: stable across builds, and all a
// state needs to recognise the trial a point became.
uint64_t KeyHash(const std::string& assignment_key);

// One point asked in the current generation.
struct CmaPending {
  uint64_t key = 0;   // KeyHash of the trial it became
  Eigen::VectorXd x;  // where it was drawn (or, injected, where it lies)
  bool injected = false;
  // Where its trial is expected in the history (creation order: the
  // history's size when it was asked plus its place in the batch).
  int64_t trial = -1;
};

struct CmaSession {
  // The first run's population: the tutorial's 4 + floor(3 ln n) less two,
  // at least 4 (2-D: 4 rather than 6; 6-D: 7 rather than 9). hpt trials
  // are expensive and budgets of tens of trials common; more, smaller
  // generations let the step size and C adapt sooner (cmaes.h, bench).
  static int FirstPopsize(int n);
  // A first run: the cube's centre, step sigma0, FirstPopsize(n),
  // C = diag(scales)^2 (CmaSpace::scales).
  static CmaSession Start(std::vector<std::string> coordinates, double sigma0,
                          const Eigen::VectorXd& scales);
  // The session `text` holds; Internal when it does not parse or its
  // coordinates differ from `coordinates`.
  static StatusOr<CmaSession> Parse(
      std::string_view text, const std::vector<std::string>& coordinates);
  std::string ToJson() const;

  // After `run` stopped: the next run under `strategy` (kNone keeps it),
  // with C = diag(scales)^2 again.
  void Restart(RestartStrategy strategy, const Eigen::VectorXd& scales,
               std::mt19937_64& rng);
  // BIPOP: the population of the latest large run (default << restarts).
  int64_t large_popsize() const;

  std::vector<std::string> coordinates;
  CmaEs run;
  double sigma0 = 0;        // the first run's step size
  int default_popsize = 0;  // the first run's population
  int restarts = 0;         // IPOP: every restart; BIPOP: the large ones
  // BIPOP: evaluations spent by the runs of each regime, and the regime of
  // the current run.
  int64_t small_evaluations = 0;
  int64_t large_evaluations = 0;
  bool large_regime = false;
  std::vector<CmaPending> generation;
  // The current generation's sampling plan (OrthogonalStep) and how many
  // of its steps were used.
  uint64_t plan_seed = 0;
  int64_t plan_draws = 0;
};

}  // namespace hpt::suggestion
