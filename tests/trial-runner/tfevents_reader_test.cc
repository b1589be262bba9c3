// TFRecord framing and the tensorflow.Event reader, on files written by the
// TensorFlow-free Python writer (tests/testdata/tfevents/).
#include "trial-runner/tfevents_reader.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <random>
#include <string>
#include <vector>

#include "tests/testing/temp_dir.h"
#include "tests/trial-runner/tfevents_testing.h"

namespace hpt::runner {
namespace {

using ::testing::HasSubstr;
using nlohmann::json;

// Every record's data of a file, and what follows the last whole one.
std::vector<std::string> Records(const std::string& bytes, std::string* rest = nullptr) {
  std::vector<std::string> out;
  std::string_view view = bytes;
  while (true) {
    RecordScan scan = ScanTfRecord(view);
    if (scan.kind != RecordScan::Kind::kRecord) break;
    out.emplace_back(scan.data);
    view.remove_prefix(scan.size);
  }
  if (rest) *rest = std::string(view);
  return out;
}

TEST(TfRecord, CrcIsCastagnoliMasked) {
  EXPECT_EQ(Crc32c("123456789"), 0xe3069283u);  // the CRC-32C check value
  EXPECT_EQ(Crc32c(""), 0u);
  EXPECT_EQ(MaskCrc(0), 0xa282ead8u);
  EXPECT_EQ(MaskCrc(0x12345678u), ((0x12345678u >> 15) | (0x12345678u << 17)) + 0xa282ead8u);
}

TEST(TfEventReader, ReadsTheScalarsOfEveryKindTheWriterWrites) {
  hpt::testing::TempDir dir;
  const std::string path = dir.File("events.out.tfevents.1.host");
  testing::WriteEvents(path, json::parse(R"([
    {"step": 3, "wall_time": 1700000000.25, "values": [
      {"tag": "loss", "value": 0.1, "as": "simple"},
      {"tag": "accuracy", "value": 0.75, "as": "float"},
      {"tag": "lr", "value": 0.001, "as": "double"},
      {"tag": "c", "value": 2.5, "as": "content"},
      {"tag": "hist", "value": 1.0, "as": "vector"},
      {"tag": "img", "as": "image"}]},
    {"step": -2, "values": [{"tag": "neg", "value": -1.5}]},
    {"step": 9007199254740993, "values": [{"tag": "big", "value": 1}]}])"));
  std::string rest;
  std::vector<std::string> records = Records(hpt::testing::ReadFile(path), &rest);
  EXPECT_EQ(rest, "");
  ASSERT_EQ(records.size(), 4u);

  StatusOr<TfEvent> version = ParseTfEvent(records[0]);  // "brain.Event:2"
  ASSERT_TRUE(version.ok()) << version.status().ToString();
  EXPECT_TRUE(version->scalars.empty());

  StatusOr<TfEvent> e = ParseTfEvent(records[1]);
  ASSERT_TRUE(e.ok()) << e.status().ToString();
  EXPECT_EQ(e->step, 3);
  EXPECT_EQ(e->wall_time, 1700000000.25);
  ASSERT_EQ(e->scalars.size(), 4u);  // not the [2] tensor, nor the image
  EXPECT_EQ(e->scalars[0].tag, "loss");
  EXPECT_EQ(e->scalars[0].value, static_cast<double>(0.1f));  // a float on disk
  EXPECT_EQ(e->scalars[1].tag, "accuracy");
  EXPECT_EQ(e->scalars[1].value, 0.75);
  EXPECT_EQ(e->scalars[2].tag, "lr");
  EXPECT_EQ(e->scalars[2].value, 0.001);  // a double keeps all its digits
  EXPECT_EQ(e->scalars[3].tag, "c");
  EXPECT_EQ(e->scalars[3].value, 2.5);

  StatusOr<TfEvent> negative = ParseTfEvent(records[2]);
  ASSERT_TRUE(negative.ok());
  EXPECT_EQ(negative->step, -2);  // a ten-byte varint
  StatusOr<TfEvent> big = ParseTfEvent(records[3]);
  ASSERT_TRUE(big.ok());
  EXPECT_EQ(big->step, 9007199254740993);
}

TEST(TfRecord, ACorruptRecordIsReportedAndACutOneWaits) {
  hpt::testing::TempDir dir;
  const std::string path = dir.File("events.out.tfevents.2");
  testing::WriteEvents(path, json::parse(R"([{"step": 1, "values": [{"tag": "a", "value": 1}]}])"));
  const std::string bytes = hpt::testing::ReadFile(path);
  ASSERT_EQ(Records(bytes).size(), 2u);
  const size_t first = ScanTfRecord(bytes).size;
  const std::string last = bytes.substr(first);

  // Every prefix of the last record is one not written yet: never a record,
  // never corrupt.
  for (size_t n = 0; n < last.size(); ++n) {
    RecordScan scan = ScanTfRecord(std::string_view(last).substr(0, n));
    EXPECT_EQ(scan.kind, RecordScan::Kind::kIncomplete) << n;
    if (n >= 12) {
      EXPECT_EQ(scan.size, last.size()) << n;
    }
  }
  std::string bad_length = last;
  bad_length[2] ^= 0x10;
  RecordScan a = ScanTfRecord(bad_length);
  EXPECT_EQ(a.kind, RecordScan::Kind::kCorrupt);
  EXPECT_THAT(a.problem, HasSubstr("length's CRC"));
  for (size_t i : {size_t{12}, last.size() / 2, last.size() - 1}) {
    std::string bad_data = last;
    bad_data[i] ^= 0x01;
    RecordScan b = ScanTfRecord(bad_data);
    EXPECT_EQ(b.kind, RecordScan::Kind::kCorrupt) << i;
    EXPECT_THAT(b.problem, HasSubstr("data's CRC")) << i;
  }
}

TEST(TfEventReader, ArbitraryBytesAreAnErrorNotACrash) {
  hpt::testing::TempDir dir;
  const std::string path = dir.File("events.out.tfevents.3");
  testing::WriteEvents(path, json::parse(R"([{"step": 5, "values": [
      {"tag": "x", "value": 1, "as": "float"}, {"tag": "y", "value": 2, "as": "content"},
      {"tag": "z", "value": 3, "as": "vector"}]}])"));
  std::vector<std::string> records = Records(hpt::testing::ReadFile(path));
  ASSERT_EQ(records.size(), 2u);
  const std::string event = records[1];
  // Every cut of a valid event: an error or fewer scalars, within bounds.
  int errors = 0;
  for (size_t n = 0; n < event.size(); ++n) {
    StatusOr<TfEvent> e = ParseTfEvent(std::string_view(event).substr(0, n));
    if (!e.ok()) {
      ++errors;
      EXPECT_THAT(e.status().message(), HasSubstr("malformed tensorflow.Event"));
    }
  }
  EXPECT_GT(errors, 0);
  // Bytes flipped at random, and random bytes (ASan/UBSan builds check the
  // bounds; here, that each answer comes).
  std::mt19937 rng(35);
  for (int round = 0; round < 2000; ++round) {
    std::string mutated = event;
    for (int k = 0; k < 3; ++k) mutated[rng() % mutated.size()] = static_cast<char>(rng());
    (void)ParseTfEvent(mutated);
    std::string noise(rng() % 64, '\0');
    for (char& c : noise) c = static_cast<char>(rng());
    (void)ParseTfEvent(noise);
    (void)ScanTfRecord(noise);
  }
  // A length that claims more than the message holds.
  EXPECT_FALSE(ParseTfEvent(std::string("\x2a\xff\xff\xff\xff\x0f", 6)).ok());
  // Eleven continuation bytes: no varint.
  EXPECT_FALSE(ParseTfEvent(std::string("\x10") + std::string(11, '\xff')).ok());
  // A group (wire type 3) is not read.
  EXPECT_FALSE(ParseTfEvent(std::string("\x0b", 1)).ok());
}

}  // namespace
}  // namespace hpt::runner
