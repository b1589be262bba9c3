#include "suggestion/random_search.h"

#include <algorithm>
#include <cmath>
#include <optional>
#include <random>
#include <unordered_set>

#include "api/conditions.h"
#include "api/spec_codec.h"
#include "suggestion/prior.h"
#include "suggestion/rng.h"
#include "suggestion/search_space.h"

namespace hpt::suggestion {
namespace {

using api::ParameterSpec;
using KeySet = std::unordered_set<std::string>;

// Random draws that keep landing on used points mean the space is nearly
// used up; past this many we enumerate what is left instead.
constexpr int kMaxDraws = 100;
// Enumerating costs one key per point, so only spaces this small are.
constexpr int64_t kEnumerateLimit = int64_t{1} << 20;

}  // namespace

std::string SampleValue(const ParameterSpec& p, std::mt19937_64& rng) {
  std::optional<int64_t> n = GridSize(p);
  if (!n) return api::FormatDouble(DrawValue(p, rng));
  bool numeric = p.type == api::ParameterType::kDouble ||
                 p.type == api::ParameterType::kInt;
  if (numeric && p.feasible_space.distribution != api::Distribution::kUniform) {
    // The grid value nearest a draw (hyperopt's qloguniform, qnormal, ...).
    return GridValue(p, NearestGridIndex(p, DrawValue(p, rng)));
  }
  return GridValue(p, std::uniform_int_distribution<int64_t>(0, *n - 1)(rng));
}

namespace {

// Every parameter is drawn, active or not, so that a parent's value does
// not shift the draws of the parameters after it; then the inactive ones
// are dropped.
api::Assignment Sample(const std::vector<ParameterSpec>& parameters,
                       std::mt19937_64& rng) {
  api::Assignment assignment;
  for (const ParameterSpec& p : parameters) {
    assignment.push_back({p.name, SampleValue(p, rng)});
  }
  return api::PruneInactive(parameters, assignment);
}

std::optional<api::Assignment> DrawUnseen(
    const std::vector<ParameterSpec>& parameters, const KeySet& seen,
    std::mt19937_64& rng) {
  for (int i = 0; i < kMaxDraws; ++i) {
    api::Assignment point = Sample(parameters, rng);
    if (!seen.count(AssignmentKey(parameters, point))) return point;
  }
  return std::nullopt;
}

std::vector<int64_t> UnusedPoints(const std::vector<ParameterSpec>& parameters,
                                  int64_t size, const KeySet& seen) {
  std::vector<int64_t> unused;
  const SpacePoints points(parameters);
  for (int64_t i = 0; i < size; ++i) {
    if (!seen.count(AssignmentKey(parameters, points.At(i)))) {
      unused.push_back(i);
    }
  }
  return unused;
}

}  // namespace

Status RandomSearch::Validate(const api::ExperimentSpec& spec) const {
  HPT_RETURN_IF_ERROR(ReadOnlySeed(spec, kName).status());
  return CheckSearchSpace(spec.parameters);
}

StatusOr<Suggestion> RandomSearch::Suggest(
    const api::ExperimentSpec& spec, const std::vector<api::Trial>& history,
    std::string_view /*state*/, int count) {
  HPT_RETURN_IF_ERROR(Validate(spec));
  HPT_ASSIGN_OR_RETURN(std::optional<int64_t> seed, ReadOnlySeed(spec, kName));
  std::mt19937_64 rng = MakeRng(seed, history.size());
  const std::vector<ParameterSpec>& parameters = spec.parameters;
  Suggestion suggestion;

  std::optional<int64_t> size = SpaceSize(parameters);
  if (!size) {
    // A continuous space: repeats have probability zero, nothing to track.
    for (int i = 0; i < count; ++i) {
      suggestion.assignments.push_back(Sample(parameters, rng));
    }
    return suggestion;
  }

  KeySet seen;
  for (const api::Trial& trial : history) {
    seen.insert(AssignmentKey(parameters, trial.assignment));
  }
  bool enumerable = *size <= kEnumerateLimit;
  // Built once draws stop finding unused points; from then on the batch is
  // drawn from it without replacement.
  std::optional<std::vector<int64_t>> unused;
  for (int i = 0; i < count; ++i) {
    std::optional<api::Assignment> point;
    if (!unused) point = DrawUnseen(parameters, seen, rng);
    if (!point && enumerable) {
      if (!unused) unused = UnusedPoints(parameters, *size, seen);
      if (unused->empty()) break;
      std::uniform_int_distribution<size_t> pick(0, unused->size() - 1);
      size_t j = pick(rng);
      point = PointAt(parameters, (*unused)[j]);
      (*unused)[j] = unused->back();
      unused->pop_back();
    }
    // Too large to enumerate yet 100 draws all used: practically
    // unreachable, so a repeat is acceptable.
    if (!point) point = Sample(parameters, rng);
    seen.insert(AssignmentKey(parameters, *point));
    suggestion.assignments.push_back(std::move(*point));
  }

  if (unused) {
    suggestion.exhausted = unused->empty();
  } else if (enumerable && static_cast<int64_t>(seen.size()) >= *size) {
    suggestion.exhausted = UnusedPoints(parameters, *size, seen).empty();
  }
  return suggestion;
}

api::ExperimentSpec SeedOnlySpec(const api::ExperimentSpec& spec) {
  api::ExperimentSpec r = spec;
  r.algorithm.name = RandomSearch::kName;
  r.algorithm.settings.clear();
  for (const auto& s : spec.algorithm.settings) {
    if (s.name == RandomSearch::kRandomState) r.algorithm.settings.push_back(s);
  }
  return r;
}

}  // namespace hpt::suggestion
