#pragma once
// Reading an experiment file (YAML or JSON) the way `hpt run` and
// `hpt validate` do: trialTemplate.workingDir is made absolute relative to
// the file's folder, so the server can run the trials from anywhere. A Katib
// v1beta1 Experiment is converted (api/katib_compat.h); what was mapped is
// described in `katib_notes`.

#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "api/status.h"

namespace hpt::cli {

StatusOr<nlohmann::json> LoadSpecFile(const std::string& path,
                                      std::vector<std::string>* katib_notes = nullptr);

}  // namespace hpt::cli
