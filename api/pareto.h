#pragma once
// Multi-objective results: Pareto dominance, an experiment's Pareto front
// and the hypervolume a set of points dominates. Points are in the
// objectives' own units and directions unless a function says it takes
// minimisation form (every maximised value negated).

#include <cstddef>
#include <optional>
#include <vector>

#include "api/types.h"

namespace hpt::api {

// Every objective's value turned into one to minimise (maximised ones
// negated), in Objectives() order.
std::vector<double> ToMinimization(const std::vector<double>& values,
                                   const std::vector<ObjectiveMetric>& objectives);

// True when `a` is no worse than `b` in every objective and strictly better
// in one; both in minimisation form.
bool Dominates(const std::vector<double>& a, const std::vector<double>& b);

// Indices of the points no other point dominates, in input order; equal
// points are all kept. Minimisation form.
std::vector<size_t> NonDominated(const std::vector<std::vector<double>>& points);

// Non-dominated sorting (NSGA-II): rank[i] is 0 for the first front, 1 for
// the front once it is removed, ... Minimisation form.
std::vector<int> ParetoRanks(const std::vector<std::vector<double>>& points);

// The volume of the region between `reference` and the points that
// dominate it (exact; any number of objectives, meant for up to a few).
// Points that do not dominate the reference add nothing. Minimisation
// form, reference included.
double Hypervolume(std::vector<std::vector<double>> points,
                   const std::vector<double>& reference);

struct FrontMember {
  size_t index = 0;            // into the trials given
  std::vector<double> values;  // in the objectives' own directions
};

// The Succeeded trials that report every objective, are not infeasible
// (api/constraints.h) and that no other such trial dominates, in trial
// order.
std::vector<FrontMember> ParetoFront(const std::vector<Trial>& trials,
                                     const Objective& objective);

// A reference point for hypervolume in the objectives' own directions:
// each objective's worst value among the feasible Succeeded trials, moved
// a tenth of its observed range further out (by 1 where the range is empty);
// nullopt when no trial reported every objective.
std::optional<std::vector<double>> DefaultReference(const std::vector<Trial>& trials,
                                                    const Objective& objective);

// The hypervolume dominated by the feasible Succeeded trials among the first k, for
// k = 1..trials.size() (trial order), against `reference` given in the
// objectives' own directions.
std::vector<double> HypervolumeCurve(const std::vector<Trial>& trials,
                                     const Objective& objective,
                                     const std::vector<double>& reference);

}  // namespace hpt::api
