#pragma once
// Resource quantities as Kubernetes (and so Katib's trial specs) write them,
// for trialTemplate.resources: memory in bytes with binary or decimal
// suffixes ("10Gi", "512Mi", "4G", "1e9", "1048576"), CPUs in cores or
// millicores ("2", "0.5", "500m").

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace hpt::api {

// Bytes: a non-negative number with an optional suffix Ki Mi Gi Ti Pi Ei
// (powers of 1024) or k K M G T P E (powers of 1000), rounded up to a whole
// byte; nullopt for anything else (a negative, "10GB", "Gi", over 2^62).
std::optional<int64_t> ParseBytes(std::string_view text);

// Cores: a non-negative number, or a whole number of millicores ("250m");
// nullopt for anything else.
std::optional<double> ParseCpus(std::string_view text);

// "10Gi", "512Mi" or "1536Ki" when exact in the largest such unit, else the
// bytes ("1000000"); ParseBytes reads it back.
std::string FormatBytes(int64_t bytes);

}  // namespace hpt::api
