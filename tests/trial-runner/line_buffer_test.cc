#include "trial-runner/line_buffer.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

namespace hpt::runner {
namespace {

TEST(LineBufferTest, JoinsChunksIntoLines) {
  LineBuffer buffer;
  std::vector<std::string> lines;
  LineFn collect = [&](std::string_view line) { lines.emplace_back(line); };
  buffer.Append("a=1\nb=", collect);
  buffer.Append("2\r\n\nc", collect);
  EXPECT_EQ(lines, (std::vector<std::string>{"a=1", "b=2", ""}));
  buffer.Flush(collect);
  EXPECT_EQ(lines.back(), "c");
  buffer.Flush(collect);
  EXPECT_EQ(lines.size(), 4u);
}

TEST(LineBufferTest, CutsOverlongLines) {
  LineBuffer buffer;
  size_t count = 0;
  buffer.Append(std::string(LineBuffer::kMaxLine * 2 + 5, 'x'),
                [&](std::string_view line) {
                  EXPECT_EQ(line.size(), LineBuffer::kMaxLine);
                  ++count;
                });
  EXPECT_EQ(count, 2u);
}

TEST(TailLinesTest, KeepsTheLastLines) {
  TailLines tail(2);
  EXPECT_EQ(tail.Join(), "");
  tail.Add("one");
  tail.Add("");
  tail.Add("three");
  EXPECT_EQ(tail.Join(), "\nthree");
}

}  // namespace
}  // namespace hpt::runner
