#include "trial-runner/tfevents_reader.h"

#include <array>
#include <cstring>
#include <optional>

namespace hpt::runner {
namespace {

std::array<uint32_t, 256> MakeCrcTable() {
  std::array<uint32_t, 256> table{};
  for (uint32_t i = 0; i < 256; ++i) {
    uint32_t crc = i;
    for (int k = 0; k < 8; ++k) crc = (crc >> 1) ^ (0x82f63b78u & (0u - (crc & 1u)));
    table[i] = crc;
  }
  return table;
}

uint64_t LoadLe64(const char* p) {
  uint64_t v = 0;
  for (int i = 7; i >= 0; --i) v = (v << 8) | static_cast<unsigned char>(p[i]);
  return v;
}

uint32_t LoadLe32(const char* p) {
  uint32_t v = 0;
  for (int i = 3; i >= 0; --i) v = (v << 8) | static_cast<unsigned char>(p[i]);
  return v;
}

// The protobuf wire format, read forward through one message; every read
// checks the bounds and fails (false) rather than run past them.
class Wire {
 public:
  explicit Wire(std::string_view data) : data_(data) {}

  bool done() const { return pos_ >= data_.size(); }

  bool Varint(uint64_t* out) {
    uint64_t v = 0;
    for (int shift = 0; shift < 64; shift += 7) {
      if (pos_ >= data_.size()) return false;
      auto byte = static_cast<unsigned char>(data_[pos_++]);
      v |= static_cast<uint64_t>(byte & 0x7f) << shift;
      if (!(byte & 0x80)) {
        *out = v;
        return true;
      }
    }
    return false;  // more than 10 bytes
  }
  bool Fixed64(uint64_t* out) {
    if (data_.size() - pos_ < 8) return false;
    *out = LoadLe64(data_.data() + pos_);
    pos_ += 8;
    return true;
  }
  bool Fixed32(uint32_t* out) {
    if (data_.size() - pos_ < 4) return false;
    *out = LoadLe32(data_.data() + pos_);
    pos_ += 4;
    return true;
  }
  bool Bytes(std::string_view* out) {
    uint64_t n = 0;
    if (!Varint(&n) || n > data_.size() - pos_) return false;
    *out = data_.substr(pos_, static_cast<size_t>(n));
    pos_ += static_cast<size_t>(n);
    return true;
  }
  // The next field's number and wire type.
  bool Key(uint32_t* field, int* wire_type) {
    uint64_t key = 0;
    if (!Varint(&key) || (key >> 3) == 0 || (key >> 3) > 0x1fffffff) return false;
    *field = static_cast<uint32_t>(key >> 3);
    *wire_type = static_cast<int>(key & 7);
    return true;
  }
  // Skips a field's value; groups (3, 4) and unknown wire types fail.
  bool Skip(int wire_type) {
    uint64_t u64 = 0;
    uint32_t u32 = 0;
    std::string_view bytes;
    switch (wire_type) {
      case 0: return Varint(&u64);
      case 1: return Fixed64(&u64);
      case 2: return Bytes(&bytes);
      case 5: return Fixed32(&u32);
      default: return false;
    }
  }

 private:
  std::string_view data_;
  size_t pos_ = 0;
};

double AsDouble(uint64_t bits) {
  double d;
  std::memcpy(&d, &bits, sizeof d);
  return d;
}

float AsFloat(uint32_t bits) {
  float f;
  std::memcpy(&f, &bits, sizeof f);
  return f;
}

constexpr int kDtFloat = 1;
constexpr int kDtDouble = 2;

Status Malformed(const std::string& what) {
  return InvalidArgument("malformed tensorflow.Event: " + what);
}

// TensorShapeProto: true when every dim (field 2, Dim.size = 1) is 1 and the
// rank is known.
StatusOr<bool> ScalarShape(std::string_view data) {
  Wire w(data);
  bool scalar = true;
  while (!w.done()) {
    uint32_t field;
    int type;
    if (!w.Key(&field, &type)) return Malformed("tensor_shape");
    if (field == 2 && type == 2) {
      std::string_view dim;
      if (!w.Bytes(&dim)) return Malformed("tensor_shape.dim");
      Wire d(dim);
      while (!d.done()) {
        uint32_t f;
        int t;
        uint64_t size = 0;
        if (!d.Key(&f, &t)) return Malformed("tensor_shape.dim");
        if (f == 1 && t == 0) {
          if (!d.Varint(&size)) return Malformed("tensor_shape.dim.size");
          if (size != 1) scalar = false;
        } else if (!d.Skip(t)) {
          return Malformed("tensor_shape.dim");
        }
      }
    } else if (field == 3 && type == 0) {
      uint64_t unknown_rank = 0;
      if (!w.Varint(&unknown_rank)) return Malformed("tensor_shape.unknown_rank");
      if (unknown_rank) scalar = false;
    } else if (!w.Skip(type)) {
      return Malformed("tensor_shape");
    }
  }
  return scalar;
}

// The first element of a repeated float (wire 5) or double (wire 1) field,
// packed (wire 2) or not.
bool FirstNumber(Wire& w, int type, bool is_double, std::optional<double>* first) {
  if (type == 2) {
    std::string_view packed;
    if (!w.Bytes(&packed)) return false;
    Wire p(packed);
    while (!p.done()) {
      uint64_t u64 = 0;
      uint32_t u32 = 0;
      if (is_double ? !p.Fixed64(&u64) : !p.Fixed32(&u32)) return false;
      if (!*first) *first = is_double ? AsDouble(u64) : AsFloat(u32);
    }
    return true;
  }
  if (is_double && type == 1) {
    uint64_t u64 = 0;
    if (!w.Fixed64(&u64)) return false;
    if (!*first) *first = AsDouble(u64);
    return true;
  }
  if (!is_double && type == 5) {
    uint32_t u32 = 0;
    if (!w.Fixed32(&u32)) return false;
    if (!*first) *first = AsFloat(u32);
    return true;
  }
  return w.Skip(type);
}

// A scalar DT_FLOAT or DT_DOUBLE TensorProto's value; nullopt for any other
// tensor.
StatusOr<std::optional<double>> TensorScalar(std::string_view data) {
  Wire w(data);
  uint64_t dtype = 0;
  bool scalar = true;
  std::string_view content;
  std::optional<double> float_val, double_val;
  while (!w.done()) {
    uint32_t field;
    int type;
    if (!w.Key(&field, &type)) return Malformed("tensor");
    bool ok = true;
    if (field == 1 && type == 0) {
      ok = w.Varint(&dtype);
    } else if (field == 2 && type == 2) {
      std::string_view shape;
      ok = w.Bytes(&shape);
      if (ok) {
        HPT_ASSIGN_OR_RETURN(bool s, ScalarShape(shape));
        scalar = scalar && s;
      }
    } else if (field == 4 && type == 2) {
      ok = w.Bytes(&content);
    } else if (field == 5) {
      ok = FirstNumber(w, type, false, &float_val);
    } else if (field == 6) {
      ok = FirstNumber(w, type, true, &double_val);
    } else {
      ok = w.Skip(type);
    }
    if (!ok) return Malformed("tensor field " + std::to_string(field));
  }
  if (!scalar) return std::optional<double>();
  if (dtype == kDtFloat) {
    if (content.size() == 4) return std::optional<double>(AsFloat(LoadLe32(content.data())));
    return content.empty() ? float_val : std::optional<double>();
  }
  if (dtype == kDtDouble) {
    if (content.size() == 8) return std::optional<double>(AsDouble(LoadLe64(content.data())));
    return content.empty() ? double_val : std::optional<double>();
  }
  return std::optional<double>();
}

// Summary.Value: its tag and scalar, if it has one.
Status ParseValue(std::string_view data, std::vector<TfScalar>& out) {
  Wire w(data);
  TfScalar scalar;
  std::optional<double> value;
  while (!w.done()) {
    uint32_t field;
    int type;
    if (!w.Key(&field, &type)) return Malformed("summary value");
    bool ok = true;
    if (field == 1 && type == 2) {
      std::string_view tag;
      ok = w.Bytes(&tag);
      scalar.tag.assign(tag);
    } else if (field == 2 && type == 5) {
      uint32_t bits = 0;
      ok = w.Fixed32(&bits);
      value = AsFloat(bits);
    } else if (field == 8 && type == 2) {
      std::string_view tensor;
      ok = w.Bytes(&tensor);
      if (ok) {
        // One of the value oneof's: the last one given is the value.
        HPT_ASSIGN_OR_RETURN(value, TensorScalar(tensor));
      }
    } else if (field >= 3 && field <= 6) {
      ok = w.Skip(type);
      value.reset();  // an image, histogram or audio: no scalar
    } else {
      ok = w.Skip(type);
    }
    if (!ok) return Malformed("summary value field " + std::to_string(field));
  }
  if (value) {
    scalar.value = *value;
    out.push_back(std::move(scalar));
  }
  return Status::Ok();
}

}  // namespace

uint32_t Crc32c(std::string_view data) {
  static const std::array<uint32_t, 256> table = MakeCrcTable();
  uint32_t crc = 0xffffffffu;
  for (char c : data) crc = table[(crc ^ static_cast<unsigned char>(c)) & 0xff] ^ (crc >> 8);
  return crc ^ 0xffffffffu;
}

uint32_t MaskCrc(uint32_t crc) { return ((crc >> 15) | (crc << 17)) + 0xa282ead8u; }

RecordScan ScanTfRecord(std::string_view bytes) {
  RecordScan scan;
  if (bytes.size() < 12) return scan;
  const uint64_t length = LoadLe64(bytes.data());
  if (MaskCrc(Crc32c(bytes.substr(0, 8))) != LoadLe32(bytes.data() + 8)) {
    scan.kind = RecordScan::Kind::kCorrupt;
    scan.problem = "the length's CRC does not match";
    return scan;
  }
  if (length > (uint64_t{1} << 62)) {
    scan.kind = RecordScan::Kind::kCorrupt;
    scan.problem = "a record of " + std::to_string(length) + " bytes";
    return scan;
  }
  scan.size = 16 + length;
  if (bytes.size() < scan.size) return scan;
  scan.data = bytes.substr(12, static_cast<size_t>(length));
  if (MaskCrc(Crc32c(scan.data)) != LoadLe32(bytes.data() + 12 + length)) {
    scan.kind = RecordScan::Kind::kCorrupt;
    scan.problem = "the data's CRC does not match";
    scan.data = {};
    return scan;
  }
  scan.kind = RecordScan::Kind::kRecord;
  return scan;
}

StatusOr<TfEvent> ParseTfEvent(std::string_view data) {
  Wire w(data);
  TfEvent event;
  while (!w.done()) {
    uint32_t field;
    int type;
    if (!w.Key(&field, &type)) return Malformed("a field's key");
    bool ok = true;
    if (field == 1 && type == 1) {
      uint64_t bits = 0;
      ok = w.Fixed64(&bits);
      event.wall_time = AsDouble(bits);
    } else if (field == 2 && type == 0) {
      uint64_t step = 0;
      ok = w.Varint(&step);
      event.step = static_cast<int64_t>(step);
    } else if (field == 5 && type == 2) {
      std::string_view summary;
      ok = w.Bytes(&summary);
      Wire s(summary);
      while (ok && !s.done()) {
        uint32_t f;
        int t;
        std::string_view value;
        if (!s.Key(&f, &t)) return Malformed("summary");
        if (f == 1 && t == 2) {
          if (!s.Bytes(&value)) return Malformed("summary value");
          HPT_RETURN_IF_ERROR(ParseValue(value, event.scalars));
        } else if (!s.Skip(t)) {
          return Malformed("summary");
        }
      }
    } else {
      ok = w.Skip(type);
    }
    if (!ok) return Malformed("field " + std::to_string(field));
  }
  return event;
}

}  // namespace hpt::runner
