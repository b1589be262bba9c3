#include "suggestion/nsga2.h"

#include <Eigen/Core>
#include <algorithm>
#include <cmath>
#include <optional>
#include <random>
#include <unordered_set>

#include "api/conditions.h"
#include "api/constraints.h"
#include "api/pareto.h"
#include "api/settings.h"
#include "suggestion/cmaes_state.h"
#include "suggestion/nsga2_selection.h"
#include "suggestion/nsga2_state.h"
#include "suggestion/random_fill.h"
#include "suggestion/rng.h"
#include "suggestion/search_space.h"
#include "suggestion/unit_cube.h"

namespace hpt::suggestion {
namespace {

struct Settings {
  std::optional<int64_t> random_state;
  int64_t population_size = Nsga2::kDefaultPopulationSize;
  double crossover_prob = Nsga2::kDefaultCrossoverProb;
  double swapping_prob = Nsga2::kDefaultSwappingProb;
  double mutation_prob = 1;
};

StatusOr<Settings> ReadSettings(const api::ExperimentSpec& spec) {
  api::SettingsReader r(
      spec.algorithm.settings, api::kAlgorithmSettingsPath, Nsga2::kName,
      {Nsga2::kPopulationSize, Nsga2::kCrossoverProb, Nsga2::kSwappingProb,
       Nsga2::kMutationProb, api::kRandomState});
  Settings s;
  s.random_state = r.Seed();
  s.population_size =
      r.Int(Nsga2::kPopulationSize, Nsga2::kDefaultPopulationSize,
            {.min = 2, .max = Nsga2::kMaxPopulationSize});
  const api::NumberBounds probability{.min = 0, .max = 1};
  s.crossover_prob = r.Number(Nsga2::kCrossoverProb,
                              Nsga2::kDefaultCrossoverProb, probability);
  s.swapping_prob =
      r.Number(Nsga2::kSwappingProb, Nsga2::kDefaultSwappingProb, probability);
  s.mutation_prob = r.Number(
      Nsga2::kMutationProb,
      1.0 / std::max<double>(1.0, static_cast<double>(spec.parameters.size())),
      probability);
  HPT_RETURN_IF_ERROR(r.ToStatus());
  return s;
}

// A trial's objective values in minimisation form, when it counts towards
// its generation: Succeeded with a finite value of every objective.
std::optional<std::vector<double>> Counted(const api::Trial* t,
                                           const api::Objective& objective) {
  if (t == nullptr || t->phase != api::TrialPhase::kSucceeded) {
    return std::nullopt;
  }
  std::optional<std::vector<double>> v = api::ObjectiveValues(*t, objective);
  if (!v) return std::nullopt;
  for (double x : *v) {
    if (!std::isfinite(x)) return std::nullopt;
  }
  return api::ToMinimization(*v, api::Objectives(objective));
}

// An individual of the parent population.
struct Parent {
  Nsga2Member member;
  const api::Trial* trial;
  std::vector<double> values;
};

// The points NSGA-II ranks: the values in minimisation form, with
// constrained domination folded in when any of them has constraint values.
std::vector<std::vector<double>> RankedPoints(const std::vector<Parent>& pool) {
  std::vector<std::vector<double>> points;
  std::vector<double> violations;
  bool constrained = false;
  for (const Parent& p : pool) {
    points.push_back(p.values);
    const bool has = p.trial && api::HasConstraints(*p.trial);
    constrained = constrained || has;
    violations.push_back(has ? api::Violation(api::ConstraintValues(*p.trial)) : NAN);
  }
  return constrained ? ConstrainedPoints(std::move(points), violations) : points;
}

std::vector<Parent> Parents(const api::ExperimentSpec& spec,
                            const std::vector<api::Trial>& history,
                            const std::vector<Nsga2Member>& members) {
  const std::vector<const api::Trial*> trials =
      FindMembers(spec.parameters, history, members);
  std::vector<Parent> out;
  for (size_t k = 0; k < members.size(); ++k) {
    if (auto v = Counted(trials[k], spec.objective)) {
      out.push_back({members[k], trials[k], std::move(*v)});
    }
  }
  return out;
}

// Adopts the trials made since the last call that nsga2 did not ask for
// (enqueued ones) into the current generation, and drops the members
// that can no longer count (failed, early-stopped, never created). Then
// closes the generation once population_size of its trials count: the
// elite of its counted trials and the parents become the parents; its
// trials still running move on to the next generation.
void AdvanceGeneration(const api::ExperimentSpec& spec,
                       const std::vector<api::Trial>& history,
                       size_t population_size, Nsga2State& state) {
  std::unordered_set<int64_t> asked;
  for (const Nsga2Member& m : state.members) asked.insert(m.trial);
  for (auto i = static_cast<size_t>(std::max<int64_t>(state.seen, 0));
       i < history.size(); ++i) {
    if (asked.count(static_cast<int64_t>(i))) continue;
    state.members.push_back(
        {static_cast<int64_t>(i),
         KeyHash(AssignmentKey(spec.parameters, history[i].assignment))});
  }
  state.seen = static_cast<int64_t>(history.size());

  const std::vector<const api::Trial*> trials =
      FindMembers(spec.parameters, history, state.members);
  std::vector<Parent> pool = Parents(spec, history, state.parents);
  size_t counted = 0;
  std::vector<Nsga2Member> waiting, running;
  for (size_t k = 0; k < state.members.size(); ++k) {
    if (auto v = Counted(trials[k], spec.objective)) {
      pool.push_back({state.members[k], trials[k], std::move(*v)});
      waiting.push_back(state.members[k]);
      ++counted;
    } else if (trials[k] && !api::IsFinished(trials[k]->phase)) {
      waiting.push_back(state.members[k]);
      running.push_back(state.members[k]);
    }
  }
  if (counted < population_size) {
    state.members = std::move(waiting);
    return;
  }
  const std::vector<std::vector<double>> points = RankedPoints(pool);
  state.parents.clear();
  for (size_t i : SelectElite(points, population_size)) {
    state.parents.push_back(pool[i].member);
  }
  state.members = std::move(running);
  ++state.generation;
}

// Every parameter drawn from its prior.
api::Assignment RandomAssignment(const UnitCube& cube, std::mt19937_64& rng) {
  std::uniform_real_distribution<double> uniform(0, 1);
  Eigen::VectorXd x(cube.dim());
  for (Eigen::Index d = 0; d < x.size(); ++d) x[d] = uniform(rng);
  return cube.Decode(x);
}

// The parameters without their parents: a UnitCube of them decodes a
// value for every parameter, whichever would be active.
std::vector<api::ParameterSpec> WithoutParents(
    std::vector<api::ParameterSpec> parameters) {
  for (api::ParameterSpec& p : parameters) p.parent.reset();
  return parameters;
}

// One child of `parents` (at least two), by crossover or copy, mutated.
// `every` is the UnitCube of WithoutParents: a parameter that mutates, or
// that the parent it comes from lacks (inactive there), takes its value
// from a draw of it. The parameters the child's values make inactive are
// left out.
api::Assignment Breed(const api::ExperimentSpec& spec, const UnitCube& every,
                      const Settings& settings,
                      const std::vector<Parent>& parents,
                      const RankedPopulation& ranked, std::mt19937_64& rng) {
  std::uniform_real_distribution<double> uniform(0, 1);
  std::vector<size_t> everyone(parents.size());
  for (size_t i = 0; i < everyone.size(); ++i) everyone[i] = i;
  const api::Assignment* first = nullptr;
  const api::Assignment* second = nullptr;
  if (uniform(rng) < settings.crossover_prob) {
    const size_t a = Tournament(ranked, everyone, rng);
    std::vector<size_t> others;
    for (size_t i : everyone) {
      if (i != a) others.push_back(i);
    }
    const size_t b = Tournament(ranked, others, rng);
    first = &parents[a].trial->assignment;
    second = &parents[b].trial->assignment;
  } else {
    std::uniform_int_distribution<size_t> pick(0, parents.size() - 1);
    first = &parents[pick(rng)].trial->assignment;
  }
  // Drawn whether used or not, so that the draws after it do not depend
  // on which parameters mutate.
  const api::Assignment fresh = RandomAssignment(every, rng);
  api::Assignment child;
  for (const api::ParameterSpec& p : spec.parameters) {
    const api::Assignment* from =
        second && uniform(rng) < settings.swapping_prob ? second : first;
    const std::string* value = api::FindValue(*from, p.name);
    if (uniform(rng) < settings.mutation_prob || value == nullptr) {
      value = api::FindValue(fresh, p.name);
    }
    HPT_CHECK(value != nullptr);  // `every` decodes every parameter
    child.push_back({p.name, *value});
  }
  return api::PruneInactive(spec.parameters, child);
}

std::vector<std::string> Names(const std::vector<api::ParameterSpec>& ps) {
  std::vector<std::string> names;
  for (const api::ParameterSpec& p : ps) names.push_back(p.name);
  return names;
}

}  // namespace

Status Nsga2::Validate(const api::ExperimentSpec& spec) const {
  HPT_RETURN_IF_ERROR(ReadSettings(spec).status());
  return CheckSearchSpace(spec.parameters);
}

StatusOr<Suggestion> Nsga2::Suggest(const api::ExperimentSpec& spec,
                                    const std::vector<api::Trial>& history,
                                    std::string_view state_text, int count) {
  HPT_RETURN_IF_ERROR(Validate(spec));
  HPT_ASSIGN_OR_RETURN(Settings settings, ReadSettings(spec));
  const std::vector<std::string> names = Names(spec.parameters);
  Nsga2State state;
  state.parameters = names;
  if (!state_text.empty()) {
    HPT_ASSIGN_OR_RETURN(state, Nsga2State::Parse(state_text, names));
  }
  std::mt19937_64 rng = MakeRng(settings.random_state, history.size());
  AdvanceGeneration(spec, history,
                    static_cast<size_t>(settings.population_size), state);

  const std::vector<Parent> parents = Parents(spec, history, state.parents);
  const RankedPopulation ranked = RankPopulation(RankedPoints(parents));
  const UnitCube cube(spec.parameters);
  const UnitCube every(WithoutParents(spec.parameters));

  std::unordered_set<std::string> seen = UsedKeys(spec, history);
  Suggestion suggestion;
  for (int i = 0; i < count; ++i) {
    std::optional<api::Assignment> chosen;
    for (int attempt = 0; attempt <= kMaxRedraws && !chosen; ++attempt) {
      api::Assignment a = parents.size() >= 2 ? Breed(spec, every, settings,
                                                      parents, ranked, rng)
                                              : RandomAssignment(cube, rng);
      if (seen.insert(AssignmentKey(spec.parameters, a)).second) {
        chosen = std::move(a);
      }
    }
    if (!chosen) {  // the children keep repeating: any unused point
      HPT_ASSIGN_OR_RETURN(
          Suggestion fill,
          RandomFill(spec, history, suggestion.assignments, rng(), 1));
      suggestion.exhausted = fill.exhausted;
      if (fill.assignments.empty()) break;
      chosen = std::move(fill.assignments[0]);
      seen.insert(AssignmentKey(spec.parameters, *chosen));
    }
    const int64_t trial =
        static_cast<int64_t>(history.size() + suggestion.assignments.size());
    state.members.push_back(
        {trial, KeyHash(AssignmentKey(spec.parameters, *chosen))});
    suggestion.assignments.push_back(std::move(*chosen));
    if (suggestion.exhausted) break;
  }
  if (!suggestion.exhausted && SpaceSize(spec.parameters)) {
    // Whether this batch took the last unused points.
    HPT_ASSIGN_OR_RETURN(
        Suggestion left,
        RandomFill(spec, history, suggestion.assignments, rng(), 0));
    suggestion.exhausted = left.exhausted;
  }
  state.seen =
      static_cast<int64_t>(history.size() + suggestion.assignments.size());
  suggestion.state = state.ToJson();
  return suggestion;
}

}  // namespace hpt::suggestion
