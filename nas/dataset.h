#pragma once
// Image classification data sets for the DARTS search, read from local
// files only (nothing is downloaded):
// - IDX (MNIST, Fashion-MNIST): train-images-idx3-ubyte, train-labels-
//   idx1-ubyte, t10k-images-idx3-ubyte, t10k-labels-idx1-ubyte, each
//   optionally gzipped (".gz").
// - CIFAR-10 binary batches: data_batch_1.bin .. data_batch_5.bin and
//   test_batch.bin (in the directory or its cifar-10-batches-bin/).
// - NPY: x_train.npy, y_train.npy, x_test.npy, y_test.npy; images uint8
//   (scaled to [0, 1]) or float32/float64 (taken as they are), shaped
//   N x H x W (one channel), N x H x W x C or N x C x H x W (C <= 4 ...
//   whichever axis is 1, 3 or 4 and smaller than the others); labels any
//   integer type, shaped N.
// A missing file, a corrupt header, a short file or a wrong shape is an
// InvalidArgument that names the file and the problem; nothing here
// crashes on bad input. Plain C++, no libtorch.

#include <cstdint>
#include <string>
#include <vector>

#include "api/status.h"

namespace hpt::nas {

struct Dataset {
  std::string source;  // the file(s) it came from, for messages
  int64_t channels = 0;
  int64_t height = 0;
  int64_t width = 0;
  int64_t num_classes = 0;       // max label + 1
  std::vector<float> images;     // size() * channels * height * width, NCHW
  std::vector<int64_t> labels;   // one per image, 0 .. num_classes - 1

  int64_t size() const { return static_cast<int64_t>(labels.size()); }
  int64_t image_size() const { return channels * height * width; }
};

struct DataSplit {
  Dataset train;
  Dataset test;
};

// Where "fashion-mnist" lives (Debian's dataset-fashion-mnist package).
inline constexpr char kFashionMnistDir[] = "/usr/share/datasets/fashion-mnist";

// `spec` is "fashion-mnist" or a directory in one of the formats above
// (detected from the file names present). InvalidArgument naming the
// directory when no format's files are there, listing what was looked for;
// NotFound when the directory does not exist. Both splits get the same
// num_classes (the larger), since one classifier serves both.
StatusOr<DataSplit> LoadDataset(const std::string& spec);

// The single formats. Labels must match the images in count; every label
// must be non-negative.
StatusOr<Dataset> LoadIdx(const std::string& images_file,
                          const std::string& labels_file);
StatusOr<Dataset> LoadCifar10(const std::vector<std::string>& batch_files);
StatusOr<Dataset> LoadNpy(const std::string& images_file,
                          const std::string& labels_file);

// The first `n` images of `data` (all when n <= 0 or n >= size()).
Dataset Head(const Dataset& data, int64_t n);

}  // namespace hpt::nas
