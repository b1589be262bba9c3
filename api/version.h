#pragma once
// hpt's version, as `hpt --version`, /healthz and the OpenAPI document say.
// The one source is the top-level VERSION file: CMake writes it into
// version.cc (api/version.cc.in), and scripts/build_wheel.sh stamps it into
// the Python package, so the binary and the wheel cannot disagree.

namespace hpt {

extern const char kVersion[];

}  // namespace hpt
