#pragma once
// Writers of small data files in each format the readers take (IDX, gzip,
// NPY, CIFAR-10), and the error expectation the reader tests share.

#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <zlib.h>

#include <cstdint>
#include <cstring>
#include <string>
#include <vector>

#include "api/status.h"
#include "tests/testing/temp_dir.h"

namespace hpt::nas::testing {

using ::hpt::testing::WriteFile;
using ::testing::HasSubstr;

// ---- Writers for small files of each format.

inline std::string BigEndian(uint32_t v) {
  return {static_cast<char>(v >> 24), static_cast<char>(v >> 16),
          static_cast<char>(v >> 8), static_cast<char>(v)};
}

// `n` images of h x w whose pixel i of image k is (k * 16 + i) % 256.
inline std::string IdxImages(uint32_t n, uint32_t h, uint32_t w) {
  std::string s = BigEndian(0x803) + BigEndian(n) + BigEndian(h) + BigEndian(w);
  for (uint32_t k = 0; k < n; ++k) {
    for (uint32_t i = 0; i < h * w; ++i)
      s += static_cast<char>((k * 16 + i) % 256);
  }
  return s;
}

inline std::string IdxLabels(const std::vector<uint8_t>& labels) {
  std::string s = BigEndian(0x801) + BigEndian(labels.size());
  for (uint8_t l : labels) s += static_cast<char>(l);
  return s;
}

inline void WriteGz(const std::string& path, const std::string& content) {
  gzFile f = gzopen(path.c_str(), "wb");
  ASSERT_NE(f, nullptr);
  ASSERT_EQ(gzwrite(f, content.data(), content.size()),
            static_cast<int>(content.size()));
  ASSERT_EQ(gzclose(f), Z_OK);
}

// A version-1 NPY file; `data` is the raw array in C order.
inline std::string Npy(const std::string& descr, const std::string& shape,
                const std::string& data, bool fortran = false,
                int version = 1) {
  std::string dict = "{'descr': '" + descr +
                     "', 'fortran_order': " + (fortran ? "True" : "False") +
                     ", 'shape': " + shape + ", }";
  const size_t pre = version == 1 ? 10 : 12;
  while ((pre + dict.size() + 1) % 64 != 0) dict += ' ';
  dict += '\n';
  std::string s = "\x93NUMPY";
  s += static_cast<char>(version);
  s += '\0';
  const uint32_t len = dict.size();
  s += static_cast<char>(len & 0xff);
  s += static_cast<char>(len >> 8);
  if (version > 1) s += std::string(2, '\0');
  return s + dict + data;
}

template <typename T>
inline std::string Raw(const std::vector<T>& v) {
  return std::string(reinterpret_cast<const char*>(v.data()),
                     v.size() * sizeof(T));
}

// One CIFAR record: label, then pixel i of the 3x32x32 CHW block is
// (seed + i) % 256.
inline std::string CifarRecord(uint8_t label, int seed) {
  std::string s(1, static_cast<char>(label));
  for (int i = 0; i < 3072; ++i) s += static_cast<char>((seed + i) % 256);
  return s;
}

inline void WriteIdxDir(const std::string& dir, bool gz) {
  auto put = [&](const std::string& name, const std::string& content) {
    if (gz) {
      WriteGz(dir + "/" + name + ".gz", content);
    } else {
      WriteFile(dir + "/" + name, content);
    }
  };
  put("train-images-idx3-ubyte", IdxImages(3, 4, 4));
  put("train-labels-idx1-ubyte", IdxLabels({0, 2, 1}));
  put("t10k-images-idx3-ubyte", IdxImages(2, 4, 4));
  put("t10k-labels-idx1-ubyte", IdxLabels({4, 1}));
}

// Expects an InvalidArgument whose message holds every one of `parts`.
template <typename T>
inline void ExpectError(const StatusOr<T>& got,
                 const std::vector<std::string>& parts) {
  ASSERT_FALSE(got.ok());
  EXPECT_EQ(got.status().code(), StatusCode::kInvalidArgument)
      << got.status().ToString();
  for (const std::string& p : parts) {
    EXPECT_THAT(got.status().message(), HasSubstr(p));
  }
}


}  // namespace hpt::nas::testing
