#include "suggestion/sobol_search.h"

#include <cinttypes>
#include <cstdio>
#include <optional>

#include "suggestion/random_fill.h"
#include "suggestion/rng.h"
#include "suggestion/search_space.h"
#include "suggestion/sobol_sequence.h"
#include "suggestion/unit_cube.h"

namespace hpt::suggestion {
namespace {

// Consecutive used points tolerated before falling back to random fill.
constexpr int kMaxSkips = 64;

struct SobolState {
  uint64_t seed = 0;
  uint64_t next = 0;
};

std::optional<SobolState> ParseState(std::string_view text) {
  SobolState s;
  char tail = 0;
  std::string copy(text);
  if (std::sscanf(copy.c_str(), "seed=%" SCNu64 ";next=%" SCNu64 "%c", &s.seed,
                  &s.next, &tail) != 2) {
    return std::nullopt;
  }
  return s;
}

std::string FormatState(const SobolState& s) {
  return "seed=" + std::to_string(s.seed) + ";next=" + std::to_string(s.next);
}

}  // namespace

Status SobolSearch::Validate(const api::ExperimentSpec& spec) const {
  HPT_RETURN_IF_ERROR(ReadOnlySeed(spec, kName).status());
  HPT_RETURN_IF_ERROR(CheckSearchSpace(spec.parameters));
  // A client-run experiment may start empty: its trials define the
  // parameters (define-by-run).
  if (spec.parameters.empty() && spec.trial_template) {
    return InvalidArgument("parameters: sobol needs at least one parameter");
  }
  if (UnitCube(spec.parameters).dim() > SobolSequence::kMaxDimension) {
    return InvalidArgument(
        "parameters: sobol supports up to " +
        std::to_string(SobolSequence::kMaxDimension) +
        " coordinates (one per parameter, one per category)");
  }
  return Status::Ok();
}

StatusOr<Suggestion> SobolSearch::Suggest(
    const api::ExperimentSpec& spec, const std::vector<api::Trial>& history,
    std::string_view state, int count) {
  HPT_RETURN_IF_ERROR(Validate(spec));
  HPT_ASSIGN_OR_RETURN(std::optional<int64_t> random_state,
                       ReadOnlySeed(spec, kName));
  SobolState s;
  if (!state.empty()) {
    std::optional<SobolState> parsed = ParseState(state);
    if (!parsed) {
      return Internal("sobol: unreadable state '" + std::string(state) + "'");
    }
    s = *parsed;
  } else {
    s.seed = MakeRng(random_state, 0)();
  }

  UnitCube cube(spec.parameters);
  SobolSequence sequence(cube.dim(), s.seed);
  std::unordered_set<std::string> used = UsedKeys(spec, history);
  Suggestion suggestion;
  Eigen::VectorXd x(cube.dim());
  bool running_out = false;
  while (static_cast<int>(suggestion.assignments.size()) < count) {
    bool found = false;
    for (int skip = 0; skip < kMaxSkips && !found; ++skip) {
      sequence.Point(s.next++, x.data());
      api::Assignment a = cube.Decode(x);
      if (used.insert(AssignmentKey(spec.parameters, a)).second) {
        suggestion.assignments.push_back(std::move(a));
        found = true;
      }
    }
    if (!found) {
      running_out = true;
      break;
    }
  }
  if (running_out || SpaceSize(spec.parameters)) {
    int missing = count - static_cast<int>(suggestion.assignments.size());
    HPT_ASSIGN_OR_RETURN(Suggestion fill,
                         RandomFill(spec, history, suggestion.assignments,
                                    s.seed ^ s.next, std::max(missing, 0)));
    for (api::Assignment& a : fill.assignments) {
      suggestion.assignments.push_back(std::move(a));
    }
    suggestion.exhausted = fill.exhausted;
  }
  suggestion.state = FormatState(s);
  return suggestion;
}

}  // namespace hpt::suggestion
