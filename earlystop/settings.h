#pragma once
// Helpers for early-stopping settings (earlyStopping.algorithmSettings):
// checking their names and parsing their values, with errors that name the
// setting as the user wrote it.

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "api/status.h"
#include "api/types.h"

namespace hpt::earlystop {

// "earlyStopping.algorithmSettings[i]".
std::string SettingPath(size_t i);

// OK when every setting's name is in `supported`; otherwise InvalidArgument
// for the first one that is not: "earlyStopping.algorithmSettings[2].name:
// unknown setting 'foo' for medianstop (supported: min_trials_required,
// start_step)".
Status CheckSettingNames(const api::EarlyStoppingSpec& spec,
                         std::string_view policy,
                         const std::vector<std::string>& supported);

// Index of the setting called `name` (the last one when repeated), or
// nullopt when absent.
std::optional<size_t> FindSetting(const api::EarlyStoppingSpec& spec,
                                  std::string_view name);

// The value of the setting called `name` (surrounding spaces allowed), or
// nullopt when absent. InvalidArgument naming
// earlyStopping.algorithmSettings[i].value when it is not an integer /
// a finite number. When a name is repeated the last one wins.
StatusOr<std::optional<int64_t>> IntSetting(const api::EarlyStoppingSpec& spec,
                                            std::string_view name);
StatusOr<std::optional<double>> NumberSetting(
    const api::EarlyStoppingSpec& spec, std::string_view name);

}  // namespace hpt::earlystop
