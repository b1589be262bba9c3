// JSON request bodies for POST /api/v1/experiments: parsed as
// server/api_handlers.cc ParseBody does, then fuzz/spec_checks.h.

#include <cstddef>
#include <cstdint>
#include <nlohmann/json.hpp>

#include "fuzz/spec_checks.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  nlohmann::json doc;
  try {
    doc = nlohmann::json::parse(data, data + size);
  } catch (const nlohmann::json::exception&) {
    return 0;  // answered 400 by ParseBody
  }
  hpt::fuzz::CheckSpecDocument(std::move(doc));
  return 0;
}
