// TensorFlow event files (Katib's TensorFlowEvent collector): the TFRecord
// framing and the tensorflow.Event reader, runner::ScanTfRecord and
// ParseTfEvent, on bytes a trial writes. The first byte picks the mode:
// 0, the rest is a file, scanned record by record; 1, the rest is one
// record's data, framed with correct CRCs first (so the mutator reaches
// the Event reader through the framing); 2, the rest is an Event.
//
// Invariants: a record lies within the bytes given and is at least its
// 16 bytes of framing; a record whose CRCs were made here is read whole;
// an error is InvalidArgument with a message; a scalar's tag is within
// the data.

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

#include "fuzz/fuzz_check.h"
#include "trial-runner/tfevents_reader.h"

namespace {

using hpt::runner::RecordScan;

std::string Le(uint64_t v, int bytes) {
  std::string out;
  for (int i = 0; i < bytes; ++i) out.push_back(static_cast<char>((v >> (8 * i)) & 0xff));
  return out;
}

void ParseEvent(std::string_view data) {
  auto event = hpt::runner::ParseTfEvent(data);
  if (!event.ok()) {
    FUZZ_CHECK(event.status().code() == hpt::StatusCode::kInvalidArgument,
               event.status().ToString());
    FUZZ_CHECK(!event.status().message().empty(), "an error without a message");
    return;
  }
  for (const auto& s : event->scalars) {
    FUZZ_CHECK(s.tag.size() <= data.size(), "a tag longer than the event");
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size == 0) return 0;
  const uint8_t mode = data[0] % 3;
  std::string_view rest(reinterpret_cast<const char*>(data) + 1, size - 1);
  if (mode == 2) {
    ParseEvent(rest);
    return 0;
  }
  std::string framed;
  if (mode == 1) {
    const std::string length = Le(rest.size(), 8);
    framed = length + Le(hpt::runner::MaskCrc(hpt::runner::Crc32c(length)), 4) +
             std::string(rest) + Le(hpt::runner::MaskCrc(hpt::runner::Crc32c(rest)), 4);
    rest = framed;
  }
  std::string_view view = rest;
  int records = 0;
  while (true) {
    RecordScan scan = hpt::runner::ScanTfRecord(view);
    if (scan.kind != RecordScan::Kind::kRecord) {
      FUZZ_CHECK(mode == 0 || records == 1, "a framed record was not read");
      if (scan.kind == RecordScan::Kind::kCorrupt) {
        FUZZ_CHECK(!scan.problem.empty(), "corrupt without a reason");
      }
      break;
    }
    FUZZ_CHECK(scan.size >= 16 && scan.size <= view.size(), "a record outside the bytes");
    FUZZ_CHECK(scan.data.size() + 16 == scan.size, "a record's data is not its length");
    ParseEvent(scan.data);
    view.remove_prefix(scan.size);
    ++records;
  }
  return 0;
}
