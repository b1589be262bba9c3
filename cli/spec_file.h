#pragma once
// Reading an experiment file (YAML or JSON) the way `hpt run` and
// `hpt validate` do: trialTemplate.workingDir is made absolute relative to
// the file's folder, so the server can run the trials from anywhere.

#include <string>

#include <nlohmann/json.hpp>

#include "api/status.h"

namespace hpt::cli {

StatusOr<nlohmann::json> LoadSpecFile(const std::string& path);

}  // namespace hpt::cli
