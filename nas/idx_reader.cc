// IDX, the format of MNIST and Fashion-MNIST: a big-endian header (magic,
// then one uint32 per dimension) followed by the unsigned bytes.

#include <cstdio>
#include <string>
#include <vector>

#include "nas/dataset.h"
#include "nas/dataset_internal.h"

namespace hpt::nas {

namespace {

using internal::InputFile;

constexpr uint32_t kImagesMagic = 0x00000803;  // ubyte, 3 dimensions
constexpr uint32_t kLabelsMagic = 0x00000801;  // ubyte, 1 dimension

uint32_t BigEndian32(const unsigned char* p) {
  return (uint32_t{p[0]} << 24) | (uint32_t{p[1]} << 16) |
         (uint32_t{p[2]} << 8) | uint32_t{p[3]};
}

std::string Hex(uint32_t v) {
  char buf[16];
  std::snprintf(buf, sizeof(buf), "0x%08x", v);
  return buf;
}

// Says what a wrong magic most likely means: the other IDX file of the
// pair, or a file that is not IDX at all.
Status BadMagic(const std::string& path, uint32_t magic, uint32_t want,
                const char* kind) {
  std::string msg = path + ": bad IDX magic " + Hex(magic) + ", expected " +
                    Hex(want) + " (" + kind + ")";
  if (magic == kImagesMagic) msg += "; this is an IDX image file";
  if (magic == kLabelsMagic) msg += "; this is an IDX label file";
  if ((magic >> 16) == 0x1f8b) msg += "; this looks gzipped, name it .gz";
  return InvalidArgument(msg);
}

// Reads `count` payload bytes after a header, requiring the file to end
// exactly there: dimensions that disagree with the length are an error, and
// for a plain file that is known before anything is allocated.
StatusOr<std::vector<unsigned char>> ReadPayload(InputFile& in,
                                                 uint64_t header_bytes,
                                                 uint64_t count,
                                                 const std::string& claim) {
  const uint64_t want = header_bytes + count;
  if (in.size().has_value() && *in.size() != want) {
    return InvalidArgument(in.path() + ": header says " + claim + " (" +
                           std::to_string(want) +
                           " bytes with the header) "
                           "but the file holds " +
                           std::to_string(*in.size()) + " bytes");
  }
  HPT_ASSIGN_OR_RETURN(
      std::vector<unsigned char> data,
      in.ReadBytes(count, "data shorter than the header's " + claim));
  HPT_RETURN_IF_ERROR(
      in.ExpectEnd("data continues past the header's " + claim));
  return data;
}

}  // namespace

StatusOr<Dataset> LoadIdx(const std::string& images_file,
                          const std::string& labels_file) {
  Dataset out;
  out.source = images_file + ", " + labels_file;
  out.channels = 1;
  int64_t count = 0;
  {
    HPT_ASSIGN_OR_RETURN(InputFile in, InputFile::Open(images_file));
    unsigned char header[16];
    // The magic alone first, so a label file given as images (shorter
    // header) is reported as that rather than as truncated.
    HPT_RETURN_IF_ERROR(in.ReadExact(header, 4, "IDX magic"));
    const uint32_t magic = BigEndian32(header);
    if (magic != kImagesMagic) {
      return BadMagic(images_file, magic, kImagesMagic, "images");
    }
    HPT_RETURN_IF_ERROR(in.ReadExact(header + 4, 12, "IDX header"));
    count = BigEndian32(header + 4);
    out.height = BigEndian32(header + 8);
    out.width = BigEndian32(header + 12);
    const std::string claim = std::to_string(count) + " images of " +
                              std::to_string(out.height) + "x" +
                              std::to_string(out.width);
    if (count == 0 || out.height == 0 || out.width == 0) {
      return InvalidArgument(images_file + ": header says " + claim +
                             "; every dimension must be positive");
    }
    std::optional<int64_t> pixels = internal::CheckedMul(out.height, out.width);
    if (pixels.has_value()) pixels = internal::CheckedMul(*pixels, count);
    if (!pixels.has_value()) {
      return InvalidArgument(images_file + ": header says " + claim +
                             ", too large");
    }
    HPT_ASSIGN_OR_RETURN(
        std::vector<unsigned char> data,
        ReadPayload(in, sizeof(header), static_cast<uint64_t>(*pixels), claim));
    out.images.resize(data.size());
    for (size_t i = 0; i < data.size(); ++i) {
      out.images[i] = internal::ByteToUnit(data[i]);
    }
  }
  HPT_ASSIGN_OR_RETURN(InputFile in, InputFile::Open(labels_file));
  unsigned char header[8];
  HPT_RETURN_IF_ERROR(in.ReadExact(header, sizeof(header), "IDX header"));
  const uint32_t magic = BigEndian32(header);
  if (magic != kLabelsMagic) {
    return BadMagic(labels_file, magic, kLabelsMagic, "labels");
  }
  const int64_t label_count = BigEndian32(header + 4);
  if (label_count != count) {
    return InvalidArgument(labels_file + ": " + std::to_string(label_count) +
                           " labels for the " + std::to_string(count) +
                           " images of " + images_file);
  }
  HPT_ASSIGN_OR_RETURN(
      std::vector<unsigned char> data,
      ReadPayload(in, sizeof(header), static_cast<uint64_t>(label_count),
                  std::to_string(label_count) + " labels"));
  out.labels.assign(data.begin(), data.end());
  HPT_ASSIGN_OR_RETURN(out.num_classes,
                       internal::CheckLabels(out.labels, labels_file));
  return out;
}

}  // namespace hpt::nas
