#include "suggestion/single_objective.h"

#include <string>

namespace hpt::suggestion {

Status RequireSingleObjective(const api::ExperimentSpec& spec,
                              std::string_view algorithm) {
  if (!api::IsMultiObjective(spec.objective)) return Status::Ok();
  return InvalidArgument(
      "objective.objectives: " + std::string(algorithm) +
      " optimises one objective, got " +
      std::to_string(api::Objectives(spec.objective).size()) +
      "; the algorithms that support several are " + kMultiObjectiveAlgorithms);
}

}  // namespace hpt::suggestion
