// CIFAR-10's binary version: each record is one label byte and 3072 pixel
// bytes, the red, green and blue 32x32 planes in turn (already CHW).

#include <string>
#include <vector>

#include "nas/dataset.h"
#include "nas/dataset_internal.h"

namespace hpt::nas {

namespace {

constexpr int64_t kSide = 32;
constexpr int64_t kChannels = 3;
constexpr int64_t kPixels = kChannels * kSide * kSide;
constexpr int64_t kRecord = 1 + kPixels;
constexpr int64_t kClasses = 10;

}  // namespace

StatusOr<Dataset> LoadCifar10(const std::vector<std::string>& batch_files) {
  if (batch_files.empty()) {
    return InvalidArgument("CIFAR-10: no batch files given");
  }
  Dataset out;
  out.channels = kChannels;
  out.height = kSide;
  out.width = kSide;
  // All files are opened and their sizes checked before the one allocation,
  // so a wrong file costs nothing.
  std::vector<internal::InputFile> files;
  int64_t total = 0;
  for (const std::string& path : batch_files) {
    HPT_ASSIGN_OR_RETURN(internal::InputFile in,
                         internal::InputFile::Open(path));
    if (!in.size().has_value()) {
      return InvalidArgument(path +
                             ": CIFAR-10 batches are read unpacked; "
                             "extract the archive first");
    }
    const uint64_t size = *in.size();
    if (size == 0 || size % kRecord != 0) {
      std::string msg = path + ": size " + std::to_string(size) +
                        " is not a positive multiple of the " +
                        std::to_string(kRecord) +
                        "-byte CIFAR-10 record (1 label byte + 3072 pixels)";
      if (size > 0 && size % (kRecord + 1) == 0) {
        msg += "; CIFAR-100's 2-label records are not supported";
      }
      return InvalidArgument(msg);
    }
    total += static_cast<int64_t>(size / kRecord);
    if (!out.source.empty()) out.source += ", ";
    out.source += path;
    files.push_back(std::move(in));
  }
  out.images.resize(static_cast<size_t>(total * kPixels));
  out.labels.resize(static_cast<size_t>(total));
  std::vector<unsigned char> record(kRecord);
  int64_t n = 0;
  for (internal::InputFile& in : files) {
    const int64_t records = static_cast<int64_t>(*in.size() / kRecord);
    for (int64_t r = 0; r < records; ++r, ++n) {
      // The size was checked, but the file may change under us.
      HPT_RETURN_IF_ERROR(in.ReadExact(record.data(), record.size(),
                                       "record " + std::to_string(r)));
      if (record[0] >= kClasses) {
        return InvalidArgument(in.path() + ": record " + std::to_string(r) +
                               " has label " + std::to_string(record[0]) +
                               "; CIFAR-10 labels are 0..9");
      }
      out.labels[n] = record[0];
      float* dst = out.images.data() + n * kPixels;
      for (int64_t i = 0; i < kPixels; ++i) {
        dst[i] = internal::ByteToUnit(record[1 + i]);
      }
    }
  }
  HPT_ASSIGN_OR_RETURN(out.num_classes,
                       internal::CheckLabels(out.labels, out.source));
  return out;
}

}  // namespace hpt::nas
