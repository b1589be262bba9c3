#pragma once
// Helpers for algorithm settings (algorithm.algorithmSettings): checking
// their names, parsing their values, and seeding randomness from
// `random_state` so that a run can be repeated.

#include <cstdint>
#include <optional>
#include <random>
#include <string>
#include <string_view>
#include <vector>

#include "api/status.h"
#include "api/types.h"

namespace hpt::suggestion {

// OK when every setting's name is in `supported`; otherwise InvalidArgument
// for the first one that is not: "algorithm.algorithmSettings[2].name:
// unknown setting 'foo' for random (supported: random_state)". `algorithm`
// is the algorithm's registered name, used only in the message.
Status CheckSettingNames(const api::AlgorithmSpec& spec,
                         std::string_view algorithm,
                         const std::vector<std::string>& supported);

// The value of the setting called `name` as a 64-bit integer (surrounding
// spaces allowed), nullopt when the setting is absent. InvalidArgument
// naming algorithm.algorithmSettings[i].value when it is not an integer.
// When a name appears more than once the last one wins.
StatusOr<std::optional<int64_t>> IntSetting(const api::AlgorithmSpec& spec,
                                            std::string_view name);

// The value of the setting called `name` as a finite double (surrounding
// spaces allowed), nullopt when absent. InvalidArgument naming
// algorithm.algorithmSettings[i].value when it is not a finite number.
// When a name appears more than once the last one wins.
StatusOr<std::optional<double>> DoubleSetting(const api::AlgorithmSpec& spec,
                                              std::string_view name);

// The value of the setting called `name`, lower-cased and trimmed, when it
// is one of `choices` (lower-case); nullopt when absent. InvalidArgument
// naming algorithm.algorithmSettings[i].value and listing the choices
// otherwise. When a name appears more than once the last one wins.
StatusOr<std::optional<std::string>> ChoiceSetting(
    const api::AlgorithmSpec& spec, std::string_view name,
    const std::vector<std::string>& choices);

// A generator for one call. With a seed, its output depends only on
// (seed, stream), and differs between streams (e.g. pass the history size
// so that successive calls draw fresh values). Without one, seeded from
// std::random_device.
std::mt19937_64 MakeRng(std::optional<int64_t> seed, uint64_t stream);

}  // namespace hpt::suggestion
