#include "suggestion/grid_search.h"

#include <optional>
#include <unordered_set>

#include "api/settings.h"
#include "api/text.h"
#include "suggestion/search_space.h"

namespace hpt::suggestion {
namespace {

StatusOr<int64_t> ParseState(std::string_view state) {
  if (state.empty()) return int64_t{0};
  std::optional<int64_t> next = api::ParseInt(state);
  if (!next || *next < 0) {
    return Internal("grid: unreadable state '" + std::string(state) + "'");
  }
  return *next;
}

}  // namespace

Status GridSearch::Validate(const api::ExperimentSpec& spec) const {
  HPT_RETURN_IF_ERROR(api::SettingsReader(spec.algorithm.settings,
                                          api::kAlgorithmSettingsPath, kName,
                                          {})
                          .ToStatus());
  HPT_RETURN_IF_ERROR(CheckSearchSpace(spec.parameters));
  if (spec.parameters.empty()) {
    return InvalidArgument("parameters: grid needs at least one parameter");
  }
  for (size_t i = 0; i < spec.parameters.size(); ++i) {
    if (!GridSize(spec.parameters[i])) {
      return InvalidArgument("parameters[" + std::to_string(i) +
                             "].feasibleSpace.step: grid needs a step for "
                             "double parameters");
    }
  }
  int64_t size = *SpaceSize(spec.parameters);
  if (size > kMaxPoints) {
    std::string count = size == kUnboundedSize
                            ? "more than " + FormatInt(kUnboundedSize)
                            : FormatInt(size);
    return InvalidArgument("parameters: the grid has " + count +
                           " points, more than grid's limit of " +
                           FormatInt(kMaxPoints) +
                           "; use larger steps or fewer values");
  }
  return Status::Ok();
}

StatusOr<Suggestion> GridSearch::Suggest(const api::ExperimentSpec& spec,
                                         const std::vector<api::Trial>& history,
                                         std::string_view state, int count) {
  HPT_RETURN_IF_ERROR(Validate(spec));
  HPT_ASSIGN_OR_RETURN(int64_t next, ParseState(state));
  const std::vector<api::ParameterSpec>& parameters = spec.parameters;
  const SpacePoints points(parameters);
  int64_t size = *points.size();

  std::unordered_set<std::string> seen;
  for (const api::Trial& trial : history) {
    seen.insert(AssignmentKey(parameters, trial.assignment));
  }
  Suggestion suggestion;
  while (static_cast<int64_t>(suggestion.assignments.size()) < count &&
         next < size) {
    api::Assignment point = points.At(next++);
    if (seen.insert(AssignmentKey(parameters, point)).second) {
      suggestion.assignments.push_back(std::move(point));
    }
  }
  // Skip used points now so that `exhausted` is exact.
  while (next < size &&
         seen.count(AssignmentKey(parameters, points.At(next)))) {
    ++next;
  }
  suggestion.exhausted = next >= size;
  suggestion.state = FormatInt(next);
  return suggestion;
}

}  // namespace hpt::suggestion
