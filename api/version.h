#pragma once
// hpt's version, as `hpt --version`, /healthz and the OpenAPI document say.

namespace hpt {

inline constexpr char kVersion[] = "0.1.0";

}  // namespace hpt
