#pragma once
// Hyperband ("hyperband"): Li et al.'s bandit-based search with Katib's
// semantics and setting names. One parameter, `resource_name`, receives the
// budget (epochs, say); the others are drawn at random (as RandomSearch
// draws them, seeded by `random_state`).
//
// With s_max = floor(log_eta(r_l)), brackets run one after another for
// s = s_max, ..., 0. Bracket s starts n = ceil((s_max + 1) / (s + 1) * eta^s)
// random configurations at budget r_l * eta^-s. When every trial of a rung
// has finished, the best floor(size / eta) (at least one) of its Succeeded
// trials, ranked by the objective metric's latest value, run again at eta
// times the budget; the last rung of a bracket runs at r_l. Failed trials
// and trials without an objective value are never promoted; a rung with no
// Succeeded trial ends its bracket early. With eta = 3, r_l = 81 the rungs
// are 81x1 27x3 9x9 3x27 1x81, then 34x3 11x9 3x27 1x81, 15x9 5x27 1x81,
// 8x27 2x81, 5x81: 206 trials (HyperbandPlan).
//
// Budgets are r_l * eta^(i - s), sent as an integer (rounded, at least 1)
// for an int resource parameter and as a double otherwise; the resource
// parameter's feasibleSpace only has to be valid, it is not consulted.
//
// Unlike Katib, parallelTrialCount need not be eta^s_max: a rung's trials
// are handed out `count` at a time as workers free up. Suggest returns fewer
// than `count` (possibly none) while a rung waits for its trials to finish,
// and sets exhausted only once the last bracket's last rung has finished.
// In a finite space a bracket may get fewer than n configurations (random
// does not repeat one already in history); a bracket that gets none is
// skipped.
//
// State (JSON, owned by this class) holds the current bracket and rung, the
// rung's configurations (without the resource) and `from`, the history size
// when the rung began. Trials are matched to the rung by their full
// assignment among history[from..], so the state never names trials. A rung
// configuration with no matching trial is handed out again: the server must
// therefore create every returned assignment, with its values verbatim,
// before the next call. This makes a restart safe either way: a state saved
// without its trials re-issues them, and trials saved with a stale state
// are found rather than repeated.
//
// Conditional parameters (api/conditions.h) are drawn as random draws
// them (inactive ones absent); the resource parameter must be neither
// conditional nor a parent.
//
// Settings:
//   resource_name  required: an int or double parameter
//   r_l            required: the largest budget, a number >= 1 (an integer
//                  for an int resource)
//   eta            a number > 1, default 3
//   random_state   an integer seeding the random configurations

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "suggestion/algorithm.h"

namespace hpt::suggestion {

class Hyperband : public Algorithm {
 public:
  static constexpr char kName[] = "hyperband";
  static constexpr char kEta[] = "eta";
  static constexpr char kRl[] = "r_l";
  static constexpr char kResourceName[] = "resource_name";
  static constexpr char kRandomState[] = "random_state";
  static constexpr double kDefaultEta = 3;
  // Validate rejects settings whose first rung is larger.
  static constexpr int64_t kMaxRungTrials = 100'000;

  Status Validate(const api::ExperimentSpec& spec) const override;
  StatusOr<Suggestion> Suggest(const api::ExperimentSpec& spec,
                               const std::vector<api::Trial>& history,
                               std::string_view state, int count) override;
};

// One rung of a bracket as planned: how many trials, at which budget.
struct HyperbandRung {
  int64_t trials = 0;
  double budget = 0;
};

// Every bracket, s_max first, each with its rungs, for eta > 1 and
// r_l >= 1. Rungs shrink when a rung has fewer Succeeded trials to promote
// than planned, so this is an upper bound on what runs.
std::vector<std::vector<HyperbandRung>> HyperbandPlan(double eta, double r_l);

}  // namespace hpt::suggestion
