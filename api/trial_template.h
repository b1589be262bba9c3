#pragma once
// Katib-style placeholders in a trial template: `${trialParameters.X}` takes
// the value of the experiment parameter that trial parameter X references;
// `${trialSpec.Name}` is the trial's name.

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

}  // namespace hpt::api
