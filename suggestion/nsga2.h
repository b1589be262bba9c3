#pragma once
// Nsga2 ("nsga2"): the elitist non-dominated sorting genetic algorithm
// (Deb et al. 2002) as Optuna 3.1's NSGAIISampler runs it, for one or
// several objectives (api::Objectives), over stateless calls.
//
// Settings (Optuna's names and defaults):
//   population_size  integer >= 2, default 50: the trials each generation
//                    needs with values before the next one begins, and the
//                    size of the parent population.
//   crossover_prob   in [0, 1], default 0.9: the chance that a child is a
//                    uniform crossover of two parents rather than a copy of
//                    one parent drawn at random.
//   swapping_prob    in [0, 1], default 0.5: in a crossover, the chance that
//                    a parameter comes from the second parent rather than
//                    the first (Optuna's UniformCrossover).
//   mutation_prob    in [0, 1], default 1 / (number of parameters): the
//                    chance that a parameter of the child is redrawn from
//                    its prior (prior.h: log-uniform, normal, ... where the
//                    parameter says so).
//   random_state     seeds every draw. The same random_state, history and
//                    state give the same suggestions.
//
// Generations. Generation 0 is random: every parameter drawn from its
// prior (through UnitCube, unit_cube.h). A trial counts towards its
// generation once it has Succeeded with a finite value of every
// objective; when population_size of the current generation's trials
// count (more under parallel workers, as in Optuna), the generation
// closes: its counted trials and the parent population together are cut to
// population_size by non-dominated sorting and crowding distance
// (nsga2_selection.h), which become the next parents. Failed, Killed,
// MetricsUnavailable and EarlyStopped trials never count (EarlyStopped:
// its values are those of a partial run; Optuna's NSGAIISampler leaves
// pruned trials out too), so a generation keeps asking until enough
// trials have values: parallel workers and failures never stall it.
// Trials still running when their generation closes are not lost (in
// Optuna they are): they count towards the next generation. Trials that
// nsga2 did not suggest (trials:enqueue'd ones, a history from before the
// state) join the generation current when they first appear.
//
// Constraints (api/constraints.h): when a trial of the population has
// constraint values, sorting and tournaments use Deb's constrained
// domination, as Optuna's NSGAIISampler(constraints_func=...): feasible
// trials dominate infeasible ones, infeasible ones dominate by smaller
// total violation, trials without values come last (ConstrainedPoints).
//
// A child: with crossover_prob, two parents, each the winner of a binary
// tournament on (rank, crowding distance) within the parent population
// (the second drawn from the others), and uniform crossover of their
// values; otherwise a copy of one parent. Then each parameter mutates with
// mutation_prob. Values are copied as text, so a child's values are
// always in the space; a parameter a parent lacks (conditional, inactive
// there) is drawn from its prior, and the parameters the child's values
// make inactive (api/conditions.h) are left out.
//
// No suggestion repeats an assignment in history or in the batch (Optuna
// evaluates such repeats): a child that repeats one is bred again, and
// after kMaxRedraws the trial is a random unused point instead. Once a
// finite space is used up, fewer are returned, with exhausted set.
//
// State (nsga2_state.h): JSON with the generation, its parents and the
// trials asked for it, each by its place in the history and the hash of
// its assignment. An empty state starts generation 0; a state that does
// not parse, or that belongs to other parameters, is an Internal error.

#include <string>
#include <string_view>
#include <vector>

#include "suggestion/algorithm.h"

namespace hpt::suggestion {

class Nsga2 : public Algorithm {
 public:
  static constexpr char kName[] = "nsga2";
  static constexpr char kPopulationSize[] = "population_size";
  static constexpr char kCrossoverProb[] = "crossover_prob";
  static constexpr char kSwappingProb[] = "swapping_prob";
  static constexpr char kMutationProb[] = "mutation_prob";
  static constexpr int64_t kDefaultPopulationSize = 50;
  static constexpr int64_t kMaxPopulationSize = 100000;
  static constexpr double kDefaultCrossoverProb = 0.9;
  static constexpr double kDefaultSwappingProb = 0.5;
  // Children bred for one trial before a random unused point replaces it.
  static constexpr int kMaxRedraws = 10;

  Status Validate(const api::ExperimentSpec& spec) const override;
  StatusOr<Suggestion> Suggest(const api::ExperimentSpec& spec,
                               const std::vector<api::Trial>& history,
                               std::string_view state, int count) override;
};

}  // namespace hpt::suggestion
