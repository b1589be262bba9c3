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

// ---- IDX

TEST(IdxTest, ReadsImagesAndLabels) {
  TempDir dir;
  WriteFile(dir.File("i"), IdxImages(3, 4, 4));
  WriteFile(dir.File("l"), IdxLabels({0, 2, 1}));
  StatusOr<Dataset> d = LoadIdx(dir.File("i"), dir.File("l"));
  ASSERT_TRUE(d.ok()) << d.status().ToString();
  EXPECT_EQ(d->size(), 3);
  EXPECT_EQ(d->channels, 1);
  EXPECT_EQ(d->height, 4);
  EXPECT_EQ(d->width, 4);
  EXPECT_EQ(d->num_classes, 3);
  EXPECT_THAT(d->labels, ElementsAre(0, 2, 1));
  ASSERT_EQ(d->images.size(), 48u);
  EXPECT_FLOAT_EQ(d->images[0], 0.0f);
  EXPECT_FLOAT_EQ(d->images[5], 5 / 255.0f);
  EXPECT_FLOAT_EQ(d->images[16 * 2 + 3], 35 / 255.0f);
}

TEST(IdxTest, ReadsGzip) {
  TempDir dir;
  WriteGz(dir.File("i.gz"), IdxImages(3, 4, 4));
  WriteGz(dir.File("l.gz"), IdxLabels({0, 2, 9}));
  StatusOr<Dataset> d = LoadIdx(dir.File("i.gz"), dir.File("l.gz"));
  ASSERT_TRUE(d.ok()) << d.status().ToString();
  EXPECT_EQ(d->num_classes, 10);
  EXPECT_THAT(d->labels, ElementsAre(0, 2, 9));
  EXPECT_FLOAT_EQ(d->images[16 + 1], 17 / 255.0f);
}

TEST(IdxTest, BadMagicNamesFileAndSwappedPair) {
  TempDir dir;
  WriteFile(dir.File("i"), IdxImages(3, 4, 4));
  WriteFile(dir.File("l"), IdxLabels({0, 2, 1}));
  ExpectError(LoadIdx(dir.File("l"), dir.File("i")),
              {dir.File("l"), "magic 0x00000801", "label file"});
  WriteFile(dir.File("x"), "not an idx file at all");
  ExpectError(LoadIdx(dir.File("x"), dir.File("l")), {dir.File("x"), "magic"});
}

TEST(IdxTest, HeaderClaimingHugeDataIsAnErrorNotAnAllocation) {
  TempDir dir;
  std::string huge = BigEndian(0x803) + BigEndian(0x80000000u) + BigEndian(28) +
                     BigEndian(28) + std::string(1024, 'x');
  WriteFile(dir.File("i"), huge);
  WriteGz(dir.File("i.gz"), huge);
  WriteFile(dir.File("l"), IdxLabels({0}));
  ExpectError(LoadIdx(dir.File("i"), dir.File("l")),
              {dir.File("i"), "2147483648 images of 28x28", "1040 bytes"});
  // A gzip stream's length is unknown: the claim itself is refused.
  ExpectError(LoadIdx(dir.File("i.gz"), dir.File("l")),
              {dir.File("i.gz"), "1683627180032 bytes", "8 GiB"});
  // Dimensions whose product overflows 64 bits.
  WriteFile(dir.File("o"), BigEndian(0x803) + BigEndian(0xffffffffu) +
                               BigEndian(0xffffffffu) + BigEndian(0xffffffffu));
  ExpectError(LoadIdx(dir.File("o"), dir.File("l")), {dir.File("o"), "large"});
}

TEST(IdxTest, LengthMustMatchHeader) {
  TempDir dir;
  WriteFile(dir.File("l"), IdxLabels({0, 1, 2}));
  WriteFile(dir.File("long"), IdxImages(3, 4, 4) + "x");
  ExpectError(LoadIdx(dir.File("long"), dir.File("l")), {dir.File("long")});
  WriteGz(dir.File("long.gz"), IdxImages(3, 4, 4) + "x");
  ExpectError(LoadIdx(dir.File("long.gz"), dir.File("l")),
              {dir.File("long.gz"), "continues past"});
  WriteFile(dir.File("zero"), IdxImages(0, 4, 4));
  ExpectError(LoadIdx(dir.File("zero"), dir.File("l")),
              {dir.File("zero"), "positive"});
}

TEST(IdxTest, TruncatedGzip) {
  TempDir dir;
  WriteGz(dir.File("i.gz"), IdxImages(20, 8, 8));
  WriteFile(dir.File("l"), IdxLabels(std::vector<uint8_t>(20, 1)));
  ASSERT_TRUE(LoadIdx(dir.File("i.gz"), dir.File("l")).ok());
  const std::string whole = ReadFile(dir.File("i.gz"));
  // Cut anywhere, including inside the 8-byte CRC/length trailer.
  for (size_t len : {whole.size() / 2, whole.size() - 9, whole.size() - 1}) {
    WriteFile(dir.File("cut.gz"), whole.substr(0, len));
    ExpectError(LoadIdx(dir.File("cut.gz"), dir.File("l")),
                {dir.File("cut.gz")});
  }
  WriteFile(dir.File("cut.gz"), whole.substr(0, whole.size() / 2));
  ExpectError(LoadIdx(dir.File("cut.gz"), dir.File("l")), {"truncated gzip"});
  // A flipped byte in the compressed data or the CRC.
  std::string bad = whole;
  bad[bad.size() - 6] ^= 0x55;
  WriteFile(dir.File("bad.gz"), bad);
  ExpectError(LoadIdx(dir.File("bad.gz"), dir.File("l")), {dir.File("bad.gz")});
}

TEST(IdxTest, LabelCountMustMatchImages) {
  TempDir dir;
  WriteFile(dir.File("i"), IdxImages(3, 4, 4));
  WriteFile(dir.File("l"), IdxLabels({0, 1}));
  ExpectError(LoadIdx(dir.File("i"), dir.File("l")),
              {dir.File("l"), "2 labels for the 3 images"});
}

TEST(IdxTest, MissingFile) {
  TempDir dir;
  WriteFile(dir.File("l"), IdxLabels({0}));
  ExpectError(LoadIdx(dir.File("nope"), dir.File("l")),
              {dir.File("nope"), "no such file"});
  ExpectError(LoadIdx(dir.path(), dir.File("l")), {"not a regular file"});
}

// Every prefix of a valid pair, and every single-byte change, is read or
// refused, never crashes.
TEST(IdxTest, EveryTruncationIsAnError) {
  TempDir dir;
  const std::string images = IdxImages(2, 3, 3);
  WriteFile(dir.File("l"), IdxLabels({1, 0}));
  for (size_t len = 0; len < images.size(); ++len) {
    WriteFile(dir.File("i"), images.substr(0, len));
    EXPECT_FALSE(LoadIdx(dir.File("i"), dir.File("l")).ok()) << len;
  }
  for (size_t at = 0; at < images.size(); ++at) {
    std::string s = images;
    s[at] ^= 0xff;
    WriteFile(dir.File("i"), s);
    (void)LoadIdx(dir.File("i"), dir.File("l")).ok();
  }
}

// ---- CIFAR-10

TEST(CifarTest, ReadsRecordsAcrossBatches) {
  TempDir dir;
  WriteFile(dir.File("a.bin"), CifarRecord(3, 0) + CifarRecord(9, 7));
  WriteFile(dir.File("b.bin"), CifarRecord(0, 100));
  StatusOr<Dataset> d = LoadCifar10({dir.File("a.bin"), dir.File("b.bin")});
  ASSERT_TRUE(d.ok()) << d.status().ToString();
  EXPECT_EQ(d->size(), 3);
  EXPECT_EQ(d->channels, 3);
  EXPECT_EQ(d->height, 32);
  EXPECT_EQ(d->width, 32);
  EXPECT_EQ(d->num_classes, 10);
  EXPECT_THAT(d->labels, ElementsAre(3, 9, 0));
  ASSERT_EQ(d->images.size(), 3u * 3072);
  EXPECT_FLOAT_EQ(d->images[1024 + 1], (1025 % 256) / 255.0f);  // green
  EXPECT_FLOAT_EQ(d->images[3072 + 2], 9 / 255.0f);
  EXPECT_FLOAT_EQ(d->images[2 * 3072], 100 / 255.0f);
}

TEST(CifarTest, LabelAboveNine) {
  TempDir dir;
  WriteFile(dir.File("a.bin"), CifarRecord(1, 0) + CifarRecord(10, 0));
  ExpectError(LoadCifar10({dir.File("a.bin")}),
              {dir.File("a.bin"), "record 1 has label 10"});
}

TEST(CifarTest, SizeNotAMultipleOfTheRecord) {
  TempDir dir;
  WriteFile(dir.File("a.bin"), CifarRecord(1, 0) + "x");
  ExpectError(LoadCifar10({dir.File("a.bin")}), {dir.File("a.bin"), "3073"});
  WriteFile(dir.File("e.bin"), "");
  ExpectError(LoadCifar10({dir.File("e.bin")}), {dir.File("e.bin")});
  ExpectError(LoadCifar10({dir.File("missing.bin")}),
              {dir.File("missing.bin")});
  ExpectError(LoadCifar10({}), {"no batch files"});
}

// ---- LoadDataset and Head

TEST(LoadDatasetTest, IdxDirectoryPlainAndGzip) {
  for (bool gz : {false, true}) {
    TempDir dir;
    WriteIdxDir(dir.path(), gz);
    StatusOr<DataSplit> s = LoadDataset(dir.path());
    ASSERT_TRUE(s.ok()) << s.status().ToString();
    EXPECT_EQ(s->train.size(), 3);
    EXPECT_EQ(s->test.size(), 2);
    // Test labels reach 4, so both splits count 5 classes.
    EXPECT_EQ(s->train.num_classes, 5);
    EXPECT_EQ(s->test.num_classes, 5);
    EXPECT_THAT(s->test.source, HasSubstr("t10k-images-idx3-ubyte"));
  }
}

TEST(LoadDatasetTest, CifarInSubfolder) {
  TempDir dir;
  const std::string sub = dir.File("cifar-10-batches-bin");
  for (int i = 1; i <= 5; ++i) {
    WriteFile(sub + "/data_batch_" + std::to_string(i) + ".bin",
              CifarRecord(i, i));
  }
  WriteFile(sub + "/test_batch.bin", CifarRecord(0, 0) + CifarRecord(1, 0));
  StatusOr<DataSplit> s = LoadDataset(dir.path());
  ASSERT_TRUE(s.ok()) << s.status().ToString();
  EXPECT_EQ(s->train.size(), 5);
  EXPECT_THAT(s->train.labels, ElementsAre(1, 2, 3, 4, 5));
  EXPECT_EQ(s->test.size(), 2);
  EXPECT_EQ(s->test.num_classes, 6);

  std::filesystem::remove(sub + "/data_batch_4.bin");
  ExpectError(LoadDataset(dir.path()),
              {"incomplete CIFAR-10", "data_batch_4.bin"});
}

TEST(LoadDatasetTest, NpyDirectory) {
  TempDir dir;
  WriteFile(dir.File("x_train.npy"),
            Npy("|u1", "(2, 4, 4)", std::string(32, 'a')));
  WriteFile(dir.File("y_train.npy"),
            Npy("|u1", "(2,)", std::string("\0\1", 2)));
  WriteFile(dir.File("x_test.npy"),
            Npy("|u1", "(1, 4, 4)", std::string(16, 'b')));
  WriteFile(dir.File("y_test.npy"), Npy("|u1", "(1,)", "\1"));
  StatusOr<DataSplit> s = LoadDataset(dir.path());
  ASSERT_TRUE(s.ok()) << s.status().ToString();
  EXPECT_EQ(s->train.size(), 2);
  EXPECT_EQ(s->test.size(), 1);
  EXPECT_FLOAT_EQ(s->test.images[0], 'b' / 255.0f);

  WriteFile(dir.File("x_test.npy"),
            Npy("|u1", "(1, 5, 5)", std::string(25, 'b')));
  ExpectError(LoadDataset(dir.path()), {"1x4x4", "1x5x5"});
}

TEST(LoadDatasetTest, DirectoryErrors) {
  TempDir dir;
  StatusOr<DataSplit> none = LoadDataset(dir.path());
  ExpectError(none, {dir.path(), "no data set found", "train-images-idx3-ubyte",
                     "data_batch_1.bin", "x_train.npy"});

  StatusOr<DataSplit> missing = LoadDataset(dir.File("absent"));
  ASSERT_FALSE(missing.ok());
  EXPECT_EQ(missing.status().code(), StatusCode::kNotFound);
  EXPECT_THAT(missing.status().message(), HasSubstr(dir.File("absent")));

  WriteFile(dir.File("file"), "x");
  ExpectError(LoadDataset(dir.File("file")), {"not a directory"});

  WriteIdxDir(dir.path(), /*gz=*/false);
  std::filesystem::remove(dir.File("t10k-labels-idx1-ubyte"));
  ExpectError(LoadDataset(dir.path()),
              {"incomplete IDX", "t10k-labels-idx1-ubyte[.gz]"});

  WriteFile(dir.File("x_train.npy"), "");
  ExpectError(LoadDataset(dir.path()), {"more than one data set", "IDX, NPY"});
  std::filesystem::remove(dir.File("x_train.npy"));

  // A corrupt file inside a detected data set names that file.
  WriteFile(dir.File("t10k-labels-idx1-ubyte"), IdxLabels({1, 1, 1}));
  ExpectError(LoadDataset(dir.path()),
              {dir.File("t10k-labels-idx1-ubyte"), "3 labels for the 2"});
}

TEST(HeadTest, TakesTheFirstImages) {
  Dataset d;
  d.channels = 1;
  d.height = 1;
  d.width = 2;
  d.num_classes = 4;
  d.images = {0.1f, 0.2f, 0.3f, 0.4f, 0.5f, 0.6f};
  d.labels = {3, 0, 1};
  Dataset h = Head(d, 2);
  EXPECT_EQ(h.size(), 2);
  EXPECT_EQ(h.num_classes, 4);
  EXPECT_EQ(h.width, 2);
  EXPECT_THAT(h.images, ElementsAre(0.1f, 0.2f, 0.3f, 0.4f));
  EXPECT_THAT(h.labels, ElementsAre(3, 0));
  EXPECT_EQ(Head(d, 0).size(), 3);
  EXPECT_EQ(Head(d, -1).size(), 3);
  EXPECT_EQ(Head(d, 3).size(), 3);
  EXPECT_EQ(Head(d, 99).images.size(), 6u);
}

// ---- The installed Fashion-MNIST (Debian's dataset-fashion-mnist).

TEST(FashionMnistTest, LoadsTheInstalledDataSet) {
  if (!std::filesystem::is_directory(kFashionMnistDir)) {
    GTEST_SKIP() << kFashionMnistDir << " absent (dataset-fashion-mnist)";
  }
  StatusOr<DataSplit> s = LoadDataset("fashion-mnist");
  ASSERT_TRUE(s.ok()) << s.status().ToString();
  for (const Dataset* d : {&s->train, &s->test}) {
    EXPECT_EQ(d->channels, 1);
    EXPECT_EQ(d->height, 28);
    EXPECT_EQ(d->width, 28);
    EXPECT_EQ(d->num_classes, 10);
    EXPECT_EQ(d->images.size(), static_cast<size_t>(d->size() * 28 * 28));
  }
  EXPECT_EQ(s->train.size(), 60000);
  EXPECT_EQ(s->test.size(), 10000);
  // Known first labels (ankle boot, T-shirt) and pixel mean of the set.
  EXPECT_EQ(s->train.labels[0], 9);
  EXPECT_EQ(s->test.labels[0], 9);
  double sum = 0;
  for (float v : s->train.images) sum += v;
  EXPECT_NEAR(sum / s->train.images.size(), 0.2860, 1e-3);
}

}  // namespace
}  // namespace hpt::nas
