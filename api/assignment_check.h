#pragma once
// Checks a parameter assignment a user wrote (trials:enqueue,
// trials:import, warm start) against an experiment's parameters.

#include <string>

#include "api/status.h"
#include "api/types.h"

namespace hpt::api {

// The assignment in the spec's parameter order, with each value in the
// form the algorithms write (ints "3", a discrete value as its list
// entry), or InvalidArgument naming `path` and the parameter: an unknown
// or repeated name, a missing active parameter, a value given for an
// inactive conditional parameter, or a value outside its feasible space.
StatusOr<Assignment> CheckAssignment(const ExperimentSpec& spec, const Assignment& given,
                                     const std::string& path);

}  // namespace hpt::api
