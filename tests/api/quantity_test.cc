#include "api/quantity.h"

#include <gtest/gtest.h>

namespace hpt::api {
namespace {

TEST(QuantityTest, BytesTakeBinaryAndDecimalSuffixes) {
  EXPECT_EQ(ParseBytes("1048576"), 1048576);
  EXPECT_EQ(ParseBytes("10Gi"), 10ll << 30);
  EXPECT_EQ(ParseBytes(" 512Mi "), 512ll << 20);
  EXPECT_EQ(ParseBytes("1.5Ki"), 1536);
  EXPECT_EQ(ParseBytes("4G"), 4000000000ll);
  EXPECT_EQ(ParseBytes("128k"), 128000);
  EXPECT_EQ(ParseBytes("1e9"), 1000000000ll);
  EXPECT_EQ(ParseBytes("0.5"), 1);  // rounded up to a whole byte
  for (const char* bad : {"", "Gi", "-1Gi", "10GB", "ten", "1e30", "nan", "5 Gi x"}) {
    EXPECT_EQ(ParseBytes(bad), std::nullopt) << bad;
  }
}

TEST(QuantityTest, CpusTakeCoresAndMillicores) {
  EXPECT_EQ(ParseCpus("2"), 2.0);
  EXPECT_EQ(ParseCpus("0.5"), 0.5);
  EXPECT_EQ(ParseCpus("250m"), 0.25);
  for (const char* bad : {"", "m", "-1", "1.5m", "two", "1e9"}) {
    EXPECT_EQ(ParseCpus(bad), std::nullopt) << bad;
  }
}

TEST(QuantityTest, FormatBytesReadsBack) {
  EXPECT_EQ(FormatBytes(10ll << 30), "10Gi");
  EXPECT_EQ(FormatBytes(3072), "3Ki");
  EXPECT_EQ(FormatBytes(1536), "1536");  // 1.5Ki: not whole
  EXPECT_EQ(FormatBytes(1000000), "1000000");
  for (int64_t b : {int64_t{1}, int64_t{1536}, int64_t{10} << 30, int64_t{123456789}}) {
    EXPECT_EQ(ParseBytes(FormatBytes(b)), b) << b;
  }
}

}  // namespace
}  // namespace hpt::api
