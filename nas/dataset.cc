// LoadDataset: which format a directory holds, decided by its file names;
// the readers themselves are in idx_reader.cc, cifar_reader.cc and
// npy_reader.cc.

#include "nas/dataset.h"

#include <algorithm>
#include <filesystem>
#include <new>
#include <string>
#include <system_error>
#include <vector>

#include "nas/dataset_internal.h"

namespace hpt::nas {

namespace {

namespace fs = std::filesystem;

bool IsFile(const std::string& path) {
  std::error_code ec;
  return fs::is_regular_file(path, ec);
}

// The plain name when present (faster to read), else the .gz, else "".
std::string IdxFile(const std::string& dir, const std::string& name) {
  const std::string plain = dir + "/" + name;
  if (IsFile(plain)) return plain;
  if (IsFile(plain + ".gz")) return plain + ".gz";
  return "";
}

// One format's files in a directory: `found` when its marker file is
// there; then `missing` names the rest of its files that are not.
enum class Format { kIdx, kCifar10, kNpy };

struct Candidate {
  Format format = Format::kIdx;
  const char* name = "";
  bool found = false;
  std::vector<std::string> files;  // "" where missing
  std::vector<std::string> missing;
};

Candidate FindIdx(const std::string& dir) {
  Candidate c;
  c.format = Format::kIdx;
  c.name = "IDX";
  for (const char* name :
       {"train-images-idx3-ubyte", "train-labels-idx1-ubyte",
        "t10k-images-idx3-ubyte", "t10k-labels-idx1-ubyte"}) {
    c.files.push_back(IdxFile(dir, name));
    if (c.files.back().empty())
      c.missing.push_back(std::string(name) + "[.gz]");
  }
  c.found = !c.files[0].empty();
  return c;
}

Candidate FindCifar(const std::string& dir) {
  Candidate c;
  c.format = Format::kCifar10;
  c.name = "CIFAR-10";
  std::string base = dir;
  if (!IsFile(base + "/data_batch_1.bin") &&
      IsFile(base + "/cifar-10-batches-bin/data_batch_1.bin")) {
    base += "/cifar-10-batches-bin";
  }
  for (const char* name :
       {"data_batch_1.bin", "data_batch_2.bin", "data_batch_3.bin",
        "data_batch_4.bin", "data_batch_5.bin", "test_batch.bin"}) {
    const std::string path = base + "/" + name;
    c.files.push_back(IsFile(path) ? path : "");
    if (c.files.back().empty()) c.missing.push_back(path);
  }
  c.found = !c.files[0].empty();
  return c;
}

Candidate FindNpy(const std::string& dir) {
  Candidate c;
  c.format = Format::kNpy;
  c.name = "NPY";
  for (const char* name :
       {"x_train.npy", "y_train.npy", "x_test.npy", "y_test.npy"}) {
    const std::string path = dir + "/" + name;
    c.files.push_back(IsFile(path) ? path : "");
    if (c.files.back().empty()) c.missing.push_back(name);
  }
  c.found = !c.files[0].empty();
  return c;
}

std::string Join(const std::vector<std::string>& parts) {
  std::string out;
  for (const std::string& p : parts) out += (out.empty() ? "" : ", ") + p;
  return out;
}

StatusOr<DataSplit> LoadFiles(const Candidate& c) {
  DataSplit split;
  const std::vector<std::string>& f = c.files;
  if (c.format == Format::kIdx) {
    HPT_ASSIGN_OR_RETURN(split.train, LoadIdx(f[0], f[1]));
    HPT_ASSIGN_OR_RETURN(split.test, LoadIdx(f[2], f[3]));
  } else if (c.format == Format::kCifar10) {
    HPT_ASSIGN_OR_RETURN(split.train,
                         LoadCifar10({f[0], f[1], f[2], f[3], f[4]}));
    HPT_ASSIGN_OR_RETURN(split.test, LoadCifar10({f[5]}));
  } else {
    HPT_ASSIGN_OR_RETURN(split.train, LoadNpy(f[0], f[1]));
    HPT_ASSIGN_OR_RETURN(split.test, LoadNpy(f[2], f[3]));
  }
  return split;
}

// The images become float32 (four times their bytes): a data set that fits
// on disk may still not fit in memory.
StatusOr<DataSplit> LoadFrom(const Candidate& c) {
  try {
    return LoadFiles(c);
  } catch (const std::bad_alloc&) {
    return Status(StatusCode::kResourceExhausted,
                  Join(c.files) + ": the " + c.name + " data set does not fit in memory");
  }
}

}  // namespace

StatusOr<DataSplit> LoadDataset(const std::string& spec) {
  std::string dir = spec;
  if (spec == "fashion-mnist") {
    dir = kFashionMnistDir;
    if (!fs::is_directory(dir)) {
      return NotFound("fashion-mnist: " + dir +
                      " does not exist; install Debian's "
                      "dataset-fashion-mnist package");
    }
  }
  std::error_code ec;
  if (!fs::exists(dir, ec)) return NotFound(dir + ": no such directory");
  if (!fs::is_directory(dir, ec)) {
    return InvalidArgument(dir +
                           ": not a directory (give the directory that "
                           "holds the data set's files)");
  }
  std::vector<Candidate> found;
  for (const Candidate& c : {FindIdx(dir), FindCifar(dir), FindNpy(dir)}) {
    if (c.found) found.push_back(c);
  }
  if (found.empty()) {
    return InvalidArgument(
        dir +
        ": no data set found; looked for IDX (train-images-idx3-ubyte, "
        "train-labels-idx1-ubyte, t10k-images-idx3-ubyte, "
        "t10k-labels-idx1-ubyte, each optionally .gz), CIFAR-10 "
        "(data_batch_1.bin .. data_batch_5.bin and test_batch.bin, here "
        "or in cifar-10-batches-bin/) and NPY (x_train.npy, "
        "y_train.npy, x_test.npy, y_test.npy)");
  }
  // Guessing which of two data sets was meant would train on the wrong one
  // without a word.
  if (found.size() > 1) {
    std::vector<std::string> names;
    for (const Candidate& c : found) names.push_back(c.name);
    return InvalidArgument(dir + ": holds more than one data set (" +
                           Join(names) + "); keep one per directory");
  }
  const Candidate& c = found.front();
  if (!c.missing.empty()) {
    return InvalidArgument(dir + ": incomplete " + c.name + " data set, " +
                           "missing " + Join(c.missing));
  }
  HPT_ASSIGN_OR_RETURN(DataSplit split, LoadFrom(c));
  const Dataset& a = split.train;
  const Dataset& b = split.test;
  if (a.channels != b.channels || a.height != b.height || a.width != b.width) {
    auto dims = [](const Dataset& d) {
      return std::to_string(d.channels) + "x" + std::to_string(d.height) + "x" +
             std::to_string(d.width);
    };
    return InvalidArgument(dir + ": training images are " + dims(a) +
                           " but test images are " + dims(b));
  }
  // One classifier serves both splits, so both count the same classes.
  const int64_t classes = std::max(a.num_classes, b.num_classes);
  split.train.num_classes = classes;
  split.test.num_classes = classes;
  return split;
}

Dataset Head(const Dataset& data, int64_t n) {
  if (n <= 0 || n >= data.size()) return data;
  Dataset out;
  out.source = data.source;
  out.channels = data.channels;
  out.height = data.height;
  out.width = data.width;
  out.num_classes = data.num_classes;
  out.images.assign(data.images.begin(),
                    data.images.begin() + n * data.image_size());
  out.labels.assign(data.labels.begin(), data.labels.begin() + n);
  return out;
}

}  // namespace hpt::nas
