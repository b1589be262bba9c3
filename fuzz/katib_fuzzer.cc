// Katib v1beta1 Experiment documents (YAML or JSON text) through
// api::FromKatibExperiment, as cli/spec_file.cc and the server call it
// (after IsKatibExperiment), then the converted spec through
// fuzz/spec_checks.h.

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "api/katib_compat.h"
#include "api/spec_codec.h"
#include "fuzz/spec_checks.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::string_view text(reinterpret_cast<const char*>(data), size);
  auto doc = hpt::api::YamlToJson(text);
  if (!doc.ok()) return 0;  // spec_yaml covers the reader
  if (!hpt::api::IsKatibExperiment(*doc)) return 0;
  std::vector<std::string> notes;
  auto converted = hpt::api::FromKatibExperiment(*doc, &notes);
  if (!converted.ok()) {
    hpt::fuzz::CheckError(converted.status(), "FromKatibExperiment");
    return 0;
  }
  hpt::fuzz::CheckSpecDocument(std::move(*converted));
  return 0;
}
