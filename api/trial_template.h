#pragma once
// Katib-style placeholders in a trial template: `${trialParameters.X}` takes
// the value of the experiment parameter that trial parameter X references;
// `${trialSpec.Name}` is the trial's name.

#include <optional>
#include <string>
#include <vector>

#include "api/status.h"
#include "api/types.h"

namespace hpt::api {

// Names X of every `${trialParameters.X}` in `text`, in order of appearance.
std::vector<std::string> ReferencedTrialParameters(const std::string& text);

// `text` with every placeholder replaced. InvalidArgument when a placeholder
// names an undefined trial parameter or one whose parameter has no value.
StatusOr<std::string> Substitute(const std::string& text,
                                 const TrialTemplate& tmpl,
                                 const Assignment& assignment,
                                 const std::string& trial_name);

// A command argument or env value of a trial with conditional parameters
// (api/conditions.h): nullopt when `text` references a parameter that is
// inactive in `assignment` (the argument is dropped from argv, the variable
// is not set: `--momentum=${trialParameters.momentum}` leaves no
// `--momentum=` behind), else Substitute's result. The controller builds
// every trial's argv and env with it (controller/trial_launch.cc).
StatusOr<std::optional<std::string>> SubstituteActive(
    const std::string& text, const std::vector<ParameterSpec>& parameters,
    const TrialTemplate& tmpl, const Assignment& assignment, const std::string& trial_name);

}  // namespace hpt::api
