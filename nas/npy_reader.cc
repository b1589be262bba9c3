// NumPy's .npy: "\x93NUMPY", a version, a little-endian header length and a
// Python dict literal {'descr': '<f4', 'fortran_order': False, 'shape':
// (N, H, W)} padded with spaces, then the raw array in C order.
// https://numpy.org/doc/stable/reference/generated/numpy.lib.format.html

#include <algorithm>
#include <bit>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "nas/dataset.h"
#include "nas/dataset_internal.h"

namespace hpt::nas {

namespace {

using internal::InputFile;

// NumPy itself refuses headers over 10000 bytes by default; this only keeps
// a hostile length from driving an allocation.
constexpr uint32_t kMaxHeader = 1 << 20;

struct NpyHeader {
  std::string descr;
  char kind = 0;      // 'u', 'i' or 'f'
  int itemsize = 0;   // bytes
  bool swap = false;  // stored in the other byte order than this machine's
  std::vector<int64_t> shape;
};

std::string ShapeText(const std::vector<int64_t>& shape) {
  std::string s = "(";
  for (size_t i = 0; i < shape.size(); ++i) {
    if (i > 0) s += ", ";
    s += std::to_string(shape[i]);
  }
  return s + (shape.size() == 1 ? ",)" : ")");
}

// Just enough of Python literal syntax for the header dict. Each method
// returns false on a syntax error and leaves `error_` saying what.
class HeaderParser {
 public:
  explicit HeaderParser(std::string_view text) : text_(text) {}

  bool Parse(NpyHeader* h, bool* fortran) {
    bool saw_descr = false, saw_fortran = false, saw_shape = false;
    if (!Consume('{')) return Fail("expected '{'");
    while (!Consume('}')) {
      std::string key;
      if (!String(&key) || !Consume(':')) return Fail("expected 'key':");
      if (key == "descr") {
        if (Peek() == '[') return Fail("structured dtypes are not supported");
        if (!String(&h->descr)) return Fail("descr must be a string");
        saw_descr = true;
      } else if (key == "fortran_order") {
        if (!Bool(fortran)) return Fail("fortran_order must be True/False");
        saw_fortran = true;
      } else if (key == "shape") {
        if (!Tuple(&h->shape)) return Fail(error_);
        saw_shape = true;
      } else {
        return Fail("unexpected key '" + key + "'");
      }
      if (!Consume(',') && Peek() != '}') return Fail("expected ',' or '}'");
    }
    if (!saw_descr || !saw_fortran || !saw_shape) {
      return Fail("needs the keys 'descr', 'fortran_order' and 'shape'");
    }
    SkipSpace();
    if (pos_ != text_.size()) return Fail("text after the closing '}'");
    return true;
  }

  const std::string& error() const { return error_; }

 private:
  bool Fail(const std::string& why) {
    if (error_.empty()) error_ = why;
    return false;
  }
  void SkipSpace() {
    while (pos_ < text_.size() &&
           (text_[pos_] == ' ' || text_[pos_] == '\n' || text_[pos_] == '\t'))
      ++pos_;
  }
  char Peek() {
    SkipSpace();
    return pos_ < text_.size() ? text_[pos_] : '\0';
  }
  bool Consume(char c) {
    if (Peek() != c) return false;
    ++pos_;
    return true;
  }
  bool String(std::string* out) {
    const char quote = Peek();
    if (quote != '\'' && quote != '"') return false;
    const size_t end = text_.find(quote, pos_ + 1);
    if (end == std::string_view::npos) return false;
    *out = std::string(text_.substr(pos_ + 1, end - pos_ - 1));
    pos_ = end + 1;
    return true;
  }
  bool Bool(bool* out) {
    SkipSpace();
    for (const auto& [word, value] :
         {std::pair{"True", true}, std::pair{"False", false}}) {
      const size_t len = std::strlen(word);
      if (text_.substr(pos_, len) == word) {
        pos_ += len;
        *out = value;
        return true;
      }
    }
    return false;
  }
  bool Tuple(std::vector<int64_t>* out) {
    if (!Consume('(')) return Fail("shape must be a tuple");
    while (!Consume(')')) {
      SkipSpace();
      int64_t v = 0;
      size_t digits = 0;
      for (; pos_ < text_.size() && text_[pos_] >= '0' && text_[pos_] <= '9';
           ++pos_, ++digits) {
        if (v > (int64_t{1} << 50)) return Fail("shape entry too large");
        v = v * 10 + (text_[pos_] - '0');
      }
      if (digits == 0) return Fail("shape entries must be integers >= 0");
      if (pos_ < text_.size() && text_[pos_] == 'L') ++pos_;  // Python 2
      out->push_back(v);
      if (!Consume(',') && Peek() != ')') return Fail("bad shape tuple");
    }
    return true;
  }

  std::string_view text_;
  size_t pos_ = 0;
  std::string error_;
};

Status ParseDescr(const std::string& path, NpyHeader* h) {
  const std::string& d = h->descr;
  const Status bad = InvalidArgument(path + ": unsupported dtype '" + d +
                                     "' (want u1/u2/u4/u8, i1..i8, f4, f8)");
  if (d.size() < 3 || std::string_view("<>|=").find(d[0]) == std::string::npos)
    return bad;
  h->kind = d[1];
  const std::string size = d.substr(2);
  if (size != "1" && size != "2" && size != "4" && size != "8") return bad;
  h->itemsize = size[0] - '0';
  if ((h->kind != 'u' && h->kind != 'i' && h->kind != 'f') ||
      (h->kind == 'f' && h->itemsize < 4)) {
    return bad;
  }
  const bool little = std::endian::native == std::endian::little;
  h->swap =
      h->itemsize > 1 && ((d[0] == '<' && !little) || (d[0] == '>' && little));
  return Status::Ok();
}

// Reads the header of the file just opened as `in`; afterwards `in` is at
// the data, whose length has been checked against the shape.
StatusOr<NpyHeader> ReadHeader(InputFile* in) {
  const std::string& path = in->path();
  if (!in->size().has_value()) {
    return InvalidArgument(path + ": NPY files are read uncompressed");
  }
  unsigned char pre[8];
  HPT_RETURN_IF_ERROR(in->ReadExact(pre, sizeof(pre), "NPY preamble"));
  if (std::memcmp(pre, "\x93NUMPY", 6) != 0) {
    return InvalidArgument(path + ": not an NPY file (bad magic)");
  }
  const int major = pre[6];
  if (major < 1 || major > 3) {
    return InvalidArgument(path + ": unsupported NPY version " +
                           std::to_string(major) + "." +
                           std::to_string(pre[7]));
  }
  unsigned char len_bytes[4] = {0, 0, 0, 0};
  const size_t len_size = major == 1 ? 2 : 4;
  HPT_RETURN_IF_ERROR(in->ReadExact(len_bytes, len_size, "NPY header length"));
  const uint32_t header_len = len_bytes[0] | (len_bytes[1] << 8) |
                              (len_bytes[2] << 16) |
                              (uint32_t{len_bytes[3]} << 24);
  if (header_len > kMaxHeader) {
    return InvalidArgument(path + ": NPY header length " +
                           std::to_string(header_len) + " is implausible");
  }
  std::string text(header_len, '\0');
  HPT_RETURN_IF_ERROR(in->ReadExact(text.data(), text.size(), "NPY header"));
  NpyHeader h;
  bool fortran = false;
  HeaderParser parser(text);
  if (!parser.Parse(&h, &fortran)) {
    return InvalidArgument(path + ": bad NPY header: " + parser.error());
  }
  if (fortran) {
    return InvalidArgument(path +
                           ": fortran_order=True is not supported; "
                           "save a C-ordered array (np.ascontiguousarray)");
  }
  HPT_RETURN_IF_ERROR(ParseDescr(path, &h));
  std::optional<int64_t> bytes = h.itemsize;
  for (const int64_t dim : h.shape) {
    if (bytes.has_value()) bytes = internal::CheckedMul(*bytes, dim);
  }
  const uint64_t offset = 8 + len_size + header_len;
  if (!bytes.has_value() || *in->size() < offset ||
      *in->size() - offset != static_cast<uint64_t>(*bytes)) {
    return InvalidArgument(
        path + ": shape " + ShapeText(h.shape) + " of '" + h.descr +
        "' does not match the " + std::to_string(*in->size()) + "-byte file (" +
        std::to_string(*in->size() - std::min(*in->size(), offset)) +
        " data bytes)");
  }
  return h;
}

// Reads one stored element as T, fixing the byte order.
template <typename T>
T Element(const unsigned char* p, bool swap) {
  unsigned char b[sizeof(T)];
  std::memcpy(b, p, sizeof(T));
  if (swap) std::reverse(b, b + sizeof(T));
  T v;
  std::memcpy(&v, b, sizeof(T));
  return v;
}

// The element as a label; false when it cannot be one (a uint64 over
// INT64_MAX).
bool ElementAsInt(const NpyHeader& h, const unsigned char* p, int64_t* out) {
  switch (h.kind == 'u' ? h.itemsize : -h.itemsize) {
    case 1:
      *out = Element<uint8_t>(p, h.swap);
      return true;
    case 2:
      *out = Element<uint16_t>(p, h.swap);
      return true;
    case 4:
      *out = Element<uint32_t>(p, h.swap);
      return true;
    case 8: {
      const uint64_t v = Element<uint64_t>(p, h.swap);
      *out = static_cast<int64_t>(v);
      return v <= static_cast<uint64_t>(INT64_MAX);
    }
    case -1:
      *out = Element<int8_t>(p, h.swap);
      return true;
    case -2:
      *out = Element<int16_t>(p, h.swap);
      return true;
    case -4:
      *out = Element<int32_t>(p, h.swap);
      return true;
    case -8:
      *out = Element<int64_t>(p, h.swap);
      return true;
  }
  return false;
}

// Picks the layout of an image array: NHW, NHWC or NCHW (see dataset.h).
Status ImageLayout(const std::string& path, const NpyHeader& h, Dataset* out,
                   bool* channels_last) {
  const std::vector<int64_t>& s = h.shape;
  *channels_last = false;
  auto is_channels = [](int64_t c, int64_t a, int64_t b) {
    return (c == 1 || c == 3 || c == 4) && c < a && c < b;
  };
  if (s.size() == 3) {
    out->channels = 1, out->height = s[1], out->width = s[2];
  } else if (s.size() == 4 && is_channels(s[3], s[1], s[2])) {
    out->channels = s[3], out->height = s[1], out->width = s[2];
    *channels_last = true;
  } else if (s.size() == 4 && is_channels(s[1], s[2], s[3])) {
    out->channels = s[1], out->height = s[2], out->width = s[3];
  } else if (s.size() == 4) {
    return InvalidArgument(path + ": cannot tell the channel axis of shape " +
                           ShapeText(s) +
                           "; want (N,H,W,C) or (N,C,H,W) with C 1, 3 or 4 "
                           "and smaller than H and W");
  } else {
    return InvalidArgument(path +
                           ": images must be 3-D (N,H,W) or 4-D, got shape " +
                           ShapeText(s));
  }
  if (s[0] == 0 || out->height == 0 || out->width == 0) {
    return InvalidArgument(path + ": no image data in shape " + ShapeText(s));
  }
  return Status::Ok();
}

}  // namespace

StatusOr<Dataset> LoadNpy(const std::string& images_file,
                          const std::string& labels_file) {
  Dataset out;
  out.source = images_file + ", " + labels_file;
  HPT_ASSIGN_OR_RETURN(InputFile in, InputFile::Open(images_file));
  HPT_ASSIGN_OR_RETURN(const NpyHeader h, ReadHeader(&in));
  if (!(h.descr.substr(1) == "u1" || h.kind == 'f')) {
    return InvalidArgument(images_file +
                           ": images must be uint8, float32 or "
                           "float64, got '" +
                           h.descr + "'");
  }
  bool channels_last = false;
  HPT_RETURN_IF_ERROR(ImageLayout(images_file, h, &out, &channels_last));
  const int64_t count = h.shape[0];
  const int64_t plane = out.height * out.width;
  const int64_t pixels = plane * out.channels;
  // The file's length matched the shape, so this is bounded by the disk.
  out.images.resize(static_cast<size_t>(count * pixels));
  std::vector<unsigned char> raw(static_cast<size_t>(pixels * h.itemsize));
  for (int64_t n = 0; n < count; ++n) {
    HPT_RETURN_IF_ERROR(
        in.ReadExact(raw.data(), raw.size(), "image " + std::to_string(n)));
    float* dst = out.images.data() + n * pixels;
    for (int64_t e = 0; e < pixels; ++e) {
      const unsigned char* p = raw.data() + e * h.itemsize;
      float v;
      if (h.kind == 'u') {
        v = internal::ByteToUnit(*p);
      } else if (h.itemsize == 4) {
        v = Element<float>(p, h.swap);
      } else {
        v = static_cast<float>(Element<double>(p, h.swap));
      }
      // NaN or infinity would silently poison every gradient downstream.
      if (!std::isfinite(v)) {
        return InvalidArgument(images_file + ": image " + std::to_string(n) +
                               " holds a value that is not finite in float");
      }
      // Stored (h, w, c) goes to (c, h, w).
      const int64_t at =
          channels_last ? (e % out.channels) * plane + e / out.channels : e;
      dst[at] = v;
    }
  }

  HPT_ASSIGN_OR_RETURN(InputFile lin, InputFile::Open(labels_file));
  HPT_ASSIGN_OR_RETURN(const NpyHeader lh, ReadHeader(&lin));
  if (lh.kind == 'f') {
    return InvalidArgument(labels_file + ": labels must be integers, got '" +
                           lh.descr + "'");
  }
  // Keras' load_data() gives labels shaped (N, 1); accept that too.
  const bool column = lh.shape.size() == 2 && lh.shape[1] == 1;
  if (lh.shape.size() != 1 && !column) {
    return InvalidArgument(labels_file +
                           ": labels must be 1-D (N,), got "
                           "shape " +
                           ShapeText(lh.shape));
  }
  if (lh.shape[0] != count) {
    return InvalidArgument(labels_file + ": " + std::to_string(lh.shape[0]) +
                           " labels for the " + std::to_string(count) +
                           " images of " + images_file);
  }
  HPT_ASSIGN_OR_RETURN(
      std::vector<unsigned char> bytes,
      lin.ReadBytes(static_cast<uint64_t>(count * lh.itemsize), "labels"));
  out.labels.resize(static_cast<size_t>(count));
  for (int64_t i = 0; i < count; ++i) {
    if (!ElementAsInt(lh, bytes.data() + i * lh.itemsize, &out.labels[i])) {
      return InvalidArgument(labels_file + ": label " + std::to_string(i) +
                             " is too large");
    }
  }
  HPT_ASSIGN_OR_RETURN(out.num_classes,
                       internal::CheckLabels(out.labels, labels_file));
  return out;
}

}  // namespace hpt::nas
