#pragma once
// Seeded randomness for the algorithms: a run with a `random_state`
// (api::SettingsReader::Seed) can be repeated exactly.

#include <cstdint>
#include <optional>
#include <random>
#include <string>

#include "api/status.h"
#include "api/types.h"

namespace hpt::suggestion {

// SplitMix64's finaliser: nearby inputs (1, 2, 3) give unrelated outputs.
// For deriving one seed from another.
uint64_t Mix(uint64_t x);

// A generator for one call. With a seed, its output depends only on
// (seed, stream), and differs between streams (e.g. pass the history size
// so that successive calls draw fresh values). Without one, seeded from
// std::random_device.
std::mt19937_64 MakeRng(std::optional<int64_t> seed, uint64_t stream);

// The seed of an algorithm whose only setting is random_state (random,
// sobol): nullopt when it is not given; InvalidArgument naming any other
// setting or a value that is not an integer. `algorithm` is its registered
// name, for messages.
StatusOr<std::optional<int64_t>> ReadOnlySeed(const api::ExperimentSpec& spec,
                                              std::string algorithm);

}  // namespace hpt::suggestion
