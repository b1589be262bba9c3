#pragma once
// Reading TensorFlow event files (Katib's TensorFlowEvent metrics
// collector): the TFRecord framing and just the fields of
// tensorflow.Event that carry scalar summaries. No protobuf library: a
// bounds-checked reader of the wire format, safe on arbitrary bytes.
//
// A TFRecord is
//   uint64 length (little-endian), uint32 masked CRC32C of those 8 bytes,
//   `length` bytes of data, uint32 masked CRC32C of the data,
// with mask(crc) = ((crc >> 15) | (crc << 17)) + 0xa282ead8. Each record's
// data is one serialized tensorflow.Event.
//
// The fields read (tensorflow/core/util/event.proto, summary.proto,
// tensor.proto):
//   Event:        wall_time = 1 (double), step = 2 (int64), summary = 5
//   Summary:      value = 1 (repeated Value)
//   Value:        tag = 1, simple_value = 2 (float), tensor = 8
//   TensorProto:  dtype = 1 (DT_FLOAT 1, DT_DOUBLE 2), tensor_shape = 2,
//                 tensor_content = 4, float_val = 5, double_val = 6
// A tensor is a scalar when its shape has no dimension of a size other than
// 1 (TF2's tf.summary.scalar writes rank-0 DT_FLOAT tensors); other
// tensors (histograms, images, text) and values are skipped. Unknown fields
// are skipped by their wire type, as protobuf does.

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "api/status.h"

namespace hpt::runner {

// CRC32C (Castagnoli) of `data`, and TFRecord's mask of a CRC.
uint32_t Crc32c(std::string_view data);
uint32_t MaskCrc(uint32_t crc);

// The framing of one record, bytes[0..) being its start.
struct RecordScan {
  enum class Kind {
    kRecord,      // data is the record's payload; size its framed length
    kIncomplete,  // not all of it is there yet: wait for more bytes
    kCorrupt,     // a CRC does not match: problem says which
  };
  Kind kind = Kind::kIncomplete;
  std::string_view data;
  // kRecord: the bytes the record takes (16 + its length). kIncomplete with
  // a whole header: the bytes it will take (0 while the header is short).
  uint64_t size = 0;
  std::string problem;
};
RecordScan ScanTfRecord(std::string_view bytes);

// A scalar summary value.
struct TfScalar {
  std::string tag;
  double value = 0;
};

// What one Event holds for a metrics collector.
struct TfEvent {
  double wall_time = 0;
  int64_t step = 0;
  std::vector<TfScalar> scalars;  // in the order of the summary's values
};

// Parses a record's data. InvalidArgument naming what is malformed (a
// length or varint that runs past its message, a group wire type); never
// reads outside `data`.
StatusOr<TfEvent> ParseTfEvent(std::string_view data);

}  // namespace hpt::runner
