// The NPY reader: layouts, dtypes, versions and every kind of bad file.
#include "nas/dataset.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <zlib.h>

#include <cmath>
#include <cstdint>
#include <cstring>
#include <filesystem>
#include <string>
#include <vector>

#include "tests/nas/dataset_writers.h"
#include "tests/testing/temp_dir.h"

namespace hpt::nas {
namespace {

using namespace ::hpt::nas::testing;  // the file writers
using ::hpt::testing::ReadFile;
using ::hpt::testing::TempDir;
using ::hpt::testing::WriteFile;
using ::testing::ElementsAre;
using ::testing::HasSubstr;

// ---- NPY

TEST(NpyTest, ReadsUint8ThreeD) {
  TempDir dir;
  std::vector<uint8_t> px(2 * 4 * 4);
  for (size_t i = 0; i < px.size(); ++i) px[i] = i * 5;
  WriteFile(dir.File("x.npy"), Npy("|u1", "(2, 4, 4)", Raw(px)));
  WriteFile(dir.File("y.npy"), Npy("<i8", "(2,)", Raw<int64_t>({4, 1})));
  StatusOr<Dataset> d = LoadNpy(dir.File("x.npy"), dir.File("y.npy"));
  ASSERT_TRUE(d.ok()) << d.status().ToString();
  EXPECT_EQ(d->size(), 2);
  EXPECT_EQ(d->channels, 1);
  EXPECT_EQ(d->height, 4);
  EXPECT_EQ(d->width, 4);
  EXPECT_EQ(d->num_classes, 5);
  EXPECT_THAT(d->labels, ElementsAre(4, 1));
  EXPECT_FLOAT_EQ(d->images[17], 85 / 255.0f);
}

TEST(NpyTest, TransposesChannelsLastFloat32) {
  TempDir dir;
  // 1 image, 4x4x3 HWC; value = h*100 + w*10 + c.
  std::vector<float> px;
  for (int h = 0; h < 4; ++h)
    for (int w = 0; w < 4; ++w)
      for (int c = 0; c < 3; ++c) px.push_back(h * 100 + w * 10 + c);
  WriteFile(dir.File("x.npy"), Npy("<f4", "(1, 4, 4, 3)", Raw(px)));
  WriteFile(dir.File("y.npy"), Npy("|u1", "(1, 1)", std::string(1, '\2')));
  StatusOr<Dataset> d = LoadNpy(dir.File("x.npy"), dir.File("y.npy"));
  ASSERT_TRUE(d.ok()) << d.status().ToString();
  EXPECT_EQ(d->channels, 3);
  EXPECT_EQ(d->height, 4);
  EXPECT_EQ(d->width, 4);
  EXPECT_EQ(d->num_classes, 3);
  // NCHW: index c*16 + h*4 + w.
  EXPECT_FLOAT_EQ(d->images[2 * 16 + 1 * 4 + 3], 132);
  EXPECT_FLOAT_EQ(d->images[0 * 16 + 3 * 4 + 0], 300);
}

TEST(NpyTest, ReadsChannelsFirstFloat64BigEndianAndV2) {
  TempDir dir;
  std::string be;  // big-endian doubles 0.0, 0.25, 0.5, ...
  for (int i = 0; i < 2 * 3 * 4 * 4; ++i) {
    double v = (i % 5) * 0.25;
    char b[8];
    std::memcpy(b, &v, 8);
    for (int k = 7; k >= 0; --k) be += b[k];
  }
  WriteFile(dir.File("x.npy"),
            Npy(">f8", "(2, 3, 4, 4)", be, false, /*version=*/2));
  WriteFile(dir.File("y.npy"),
            Npy("<u2", "(2,)", Raw<uint16_t>({0, 7}), false, 3));
  StatusOr<Dataset> d = LoadNpy(dir.File("x.npy"), dir.File("y.npy"));
  ASSERT_TRUE(d.ok()) << d.status().ToString();
  EXPECT_EQ(d->channels, 3);
  EXPECT_EQ(d->num_classes, 8);
  EXPECT_DOUBLE_EQ(d->images[3], 0.75);
  EXPECT_DOUBLE_EQ(d->images[47], 0.5);
}

TEST(NpyTest, Errors) {
  TempDir dir;
  const std::string x = dir.File("x_train.npy");
  const std::string y = dir.File("y_train.npy");
  const std::string px(3 * 16, '\1');
  WriteFile(y, Npy("<i4", "(3,)", Raw<int32_t>({0, 1, 2})));

  WriteFile(x, Npy("|u1", "(3, 4, 4)", px, /*fortran=*/true));
  ExpectError(LoadNpy(x, y), {x, "fortran_order"});

  WriteFile(x, Npy("|u1", "(48,)", px));
  ExpectError(LoadNpy(x, y),
              {"x_train.npy: images must be 3-D (N,H,W) or 4-D, got shape "
               "(48,)"});

  WriteFile(x, Npy("|u1", "(3, 4, 4, 4)", std::string(3 * 64, '\1')));
  ExpectError(LoadNpy(x, y), {x, "channel axis"});

  WriteFile(x, Npy("<i8", "(3, 4, 4)", std::string(3 * 16 * 8, '\0')));
  ExpectError(LoadNpy(x, y), {x, "uint8, float32 or float64"});

  WriteFile(x, Npy("<c8", "(3, 4, 4)", px));
  ExpectError(LoadNpy(x, y), {x, "unsupported dtype '<c8'"});

  // A shape that claims far more than the file holds.
  WriteFile(x, Npy("<f8", "(2147483648, 1024, 1024)", px));
  ExpectError(LoadNpy(x, y), {x, "does not match"});
  WriteFile(x, Npy("<f8", "(99999999999999, 99999999999999, 99999)", px));
  ExpectError(LoadNpy(x, y), {x, "does not match"});

  std::vector<float> nan(48, 0.0f);
  nan[20] = std::nanf("");
  WriteFile(x, Npy("<f4", "(3, 4, 4)", Raw(nan)));
  ExpectError(LoadNpy(x, y), {x, "image 1", "not finite"});

  for (const std::string& garbage :
       {std::string("\x93NUMPY\x01\x00\x05\x00{'a':", 15),
        Npy("|u1", "(3, 4, 4", px), Npy("|u1", "(3, -4, 4)", px),
        std::string("PK\x03\x04 a zip, not an npy"),
        std::string("\x93NUMPY\x09\x00", 8),
        std::string("\x93NUMPY\x02\x00\xff\xff\xff\xff", 12)}) {
    WriteFile(x, garbage);
    ExpectError(LoadNpy(x, y), {x});
  }

  WriteFile(x, Npy("|u1", "(3, 4, 4)", px));
  ASSERT_TRUE(LoadNpy(x, y).ok());
  WriteFile(y, Npy("<i4", "(3,)", Raw<int32_t>({0, -1, 2})));
  ExpectError(LoadNpy(x, y), {y, "label 1 is -1", "non-negative"});
  WriteFile(y, Npy("<u8", "(3,)", Raw<uint64_t>({0, ~0ull, 2})));
  ExpectError(LoadNpy(x, y), {y, "label 1"});
  WriteFile(y, Npy("<i8", "(3,)", Raw<int64_t>({0, int64_t{1} << 40, 2})));
  ExpectError(LoadNpy(x, y), {y, "label 1", "below"});
  WriteFile(y, Npy("<f4", "(3,)", Raw<float>({0, 1, 2})));
  ExpectError(LoadNpy(x, y), {y, "integers"});
  WriteFile(y, Npy("|u1", "(2,)", std::string("\0\1", 2)));
  ExpectError(LoadNpy(x, y), {y, "2 labels for the 3 images"});
  WriteFile(y, Npy("|u1", "(3, 2)", std::string(6, '\0')));
  ExpectError(LoadNpy(x, y), {y, "1-D"});
}

TEST(NpyTest, EveryTruncationIsAnError) {
  TempDir dir;
  const std::string x =
      Npy("<f4", "(2, 3, 3)", Raw(std::vector<float>(18, 0.5f)));
  WriteFile(dir.File("y.npy"), Npy("|i1", "(2,)", std::string("\1\0", 2)));
  // The header is 128 bytes; past it only the data's length matters, so a
  // few cuts there suffice (each file write costs milliseconds here).
  for (size_t len = 0; len < x.size(); len += len < 140 ? 1 : 13) {
    WriteFile(dir.File("x.npy"), x.substr(0, len));
    EXPECT_FALSE(LoadNpy(dir.File("x.npy"), dir.File("y.npy")).ok()) << len;
  }
  for (size_t at = 0; at < 128; ++at) {
    // ^1 turns digits into digits and '(' into ')': near-valid headers.
    std::string s = x;
    s[at] ^= 0x01;
    WriteFile(dir.File("x.npy"), s);
    (void)LoadNpy(dir.File("x.npy"), dir.File("y.npy")).ok();
  }
}

}  // namespace
}  // namespace hpt::nas
