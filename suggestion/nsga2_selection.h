#pragma once
// NSGA-II's selection (Deb et al. 2002) over objective vectors in
// minimisation form (api::ToMinimization): non-dominated sorting, the
// crowding distance within a front, the elitist cut of a population to its
// best `size`, and the binary tournament that picks parents. Pure
// functions, used by the nsga2 algorithm (nsga2.h).

#include <cstddef>
#include <random>
#include <vector>

namespace hpt::suggestion {

// The crowding distance of each point of one front, as Optuna 3.1's
// _crowding_distance_sort computes it: per objective, the points sorted by
// it; where the objective's range over the front is not empty, the two
// ends get infinity and every other point adds (next - previous) / range.
// An objective with an empty range adds nothing (and no infinity).
std::vector<double> CrowdingDistances(
    const std::vector<std::vector<double>>& front);

// Each point's Pareto rank (0: not dominated; api::ParetoRanks) and its
// crowding distance within its own front.
struct RankedPopulation {
  std::vector<int> rank;
  std::vector<double> crowding;
};
RankedPopulation RankPopulation(const std::vector<std::vector<double>>& points);

// The indices (into `points`) of the min(size, points.size()) that survive
// NSGA-II's elitist selection: whole fronts in rank order while they fit,
// then the next front's points by crowding distance, largest first (ties:
// the earlier point). Sorted by index.
std::vector<size_t> SelectElite(const std::vector<std::vector<double>>& points,
                                size_t size);

// Deb's constrained domination (Optuna's NSGAIISampler(constraints_func=
// ...)) folded into the points, so that the functions here apply as they
// are: violations[i] is 0 for a feasible point, the sum of its positive
// constraint values for an infeasible one, NaN for one without values.
// Feasible points keep their values; an infeasible point becomes
// (top + violation, ...), so it is dominated by every feasible point and
// by every less infeasible one; a point without values is shifted above
// all of those, so among themselves they dominate as before (Optuna: they
// are dominated by every trial with values). `top` is above every value.
std::vector<std::vector<double>> ConstrainedPoints(
    std::vector<std::vector<double>> points, const std::vector<double>& violations);

// Binary tournament: two of `candidates` (indices into `ranked`, drawn
// uniformly, with replacement, as Optuna draws them); the winner has the
// lower rank, then the larger crowding distance; on a tie the first drawn.
// Requires a non-empty `candidates`.
size_t Tournament(const RankedPopulation& ranked,
                  const std::vector<size_t>& candidates, std::mt19937_64& rng);

}  // namespace hpt::suggestion
