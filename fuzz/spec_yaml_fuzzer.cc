// YAML spec files and `Content-Type: application/yaml` bodies: YAML text
// through api::YamlToJson (as cli/spec_file.cc and the server read it), then
// fuzz/spec_checks.h.

#include <cstddef>
#include <cstdint>
#include <nlohmann/json.hpp>
#include <string>
#include <string_view>

#include "api/spec_codec.h"
#include "fuzz/spec_checks.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::string_view text(reinterpret_cast<const char*>(data), size);
  auto doc = hpt::api::YamlToJson(text);
  // Text is refused as not UTF-8 exactly when nlohmann's strict dump
  // refuses it too, and what is read holds UTF-8 only (yaml-cpp's own
  // escapes can make other bytes).
  bool utf8 = true;
  try {
    (void)nlohmann::json(std::string(text)).dump();
  } catch (const nlohmann::json::type_error&) {
    utf8 = false;
  }
  const bool refused_utf8 = !doc.ok() && doc.status().message().rfind(
                                             "YAML is not valid UTF-8", 0) == 0;
  FUZZ_CHECK(refused_utf8 == !utf8, doc.status().ToString());
  if (!doc.ok()) {
    hpt::fuzz::CheckError(doc.status(), "YamlToJson");
    return 0;
  }
  try {
    (void)doc->dump();
  } catch (const nlohmann::json::type_error& e) {
    FUZZ_CHECK(false, e.what());
  }
  // Any document the reader accepts can be written out (hpt get -o yaml).
  (void)hpt::api::JsonToYaml(*doc);
  hpt::fuzz::CheckSpecDocument(std::move(*doc));
  return 0;
}
