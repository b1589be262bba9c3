// Issue 30, finding 5: a full disk dropped a trial's output silently. On a
// real, tiny tmpfs: what the disk refuses waits in memory and is written
// once there is room; past the bound it is counted as lost, and a marker
// line says where and how much.
#include <gtest/gtest.h>

#include <cstdio>
#include <string>
#include <vector>

#include "tests/testing/small_disk.h"
#include "tests/testing/temp_dir.h"
#include "trial-runner/trial_log.h"

namespace hpt::runner {
namespace {

using hpt::testing::ReadFile;
using hpt::testing::SmallDisk;
using hpt::testing::TempDir;
using hpt::testing::WriteFile;

// LogLine i: "line <i> " padded with x to 1 KiB.
std::string LogLine(int i) {
  std::string line = "line " + std::to_string(i) + " ";
  line.resize(1023, 'x');
  return line + "\n";
}

std::vector<std::string> Lines(const std::string& text) {
  std::vector<std::string> out;
  size_t start = 0;
  while (start < text.size()) {
    size_t eol = text.find('\n', start);
    if (eol == std::string::npos) eol = text.size();
    out.push_back(text.substr(start, eol - start));
    start = eol + 1;
  }
  return out;
}

TEST(TrialLogFullDiskTest, RefusedOutputWaitsThenIsWrittenAndLossIsMarked) {
  TempDir dir;
  SmallDisk disk(dir.File("disk"), 4 << 20);
  if (!disk.ok()) GTEST_SKIP() << disk.why();
  const std::string path = dir.File("disk/logs/t.log");
  const std::string filler = dir.File("disk/filler");
  WriteFile(filler, std::string(3584 << 10, 'f'));

  TrialLogWriter writer;
  ASSERT_TRUE(writer.Open(path, 0).ok());
  // 2 MiB of output: the disk takes ~512 KiB, memory holds 1 MiB more.
  std::string written;
  for (int i = 0; i < 2048; ++i) {
    written += LogLine(i);
    writer.Write(LogLine(i).data(), LogLine(i).size());
  }
  EXPECT_TRUE(writer.pending());
  EXPECT_GT(writer.lost_bytes(), 0);
  EXPECT_NE(writer.write_error().find("No space left on device writing " + path),
            std::string::npos)
      << writer.write_error();
  const int64_t lost_while_full = writer.lost_bytes();

  // Room again: what waits is written, and the next whole line after a
  // marker that says how much was dropped.
  ASSERT_EQ(std::remove(filler.c_str()), 0);
  writer.Flush();
  for (int i = 2048; i < 2058; ++i) {
    written += LogLine(i);
    writer.Write(LogLine(i).data(), LogLine(i).size());
  }
  writer.Close();
  EXPECT_FALSE(writer.pending());

  const std::string log = ReadFile(path);
  const int64_t lost = writer.lost_bytes();
  EXPECT_EQ(lost, lost_while_full) << "nothing more was lost once there was room";
  const std::string marker =
      kLostOutputMarker + std::to_string(lost) + " bytes (No space left on device)]";
  // The log: whole lines in order, one line ending in the marker (after the
  // start of the line the loss cut short, if any), then whole lines again.
  int next = 0;
  int markers = 0;
  for (const std::string& line : Lines(log)) {
    const size_t at = line.find(kLostOutputMarker);
    if (at != std::string::npos) {
      ++markers;
      EXPECT_EQ(line.substr(at), marker);
      EXPECT_EQ(LogLine(next).compare(0, at, line, 0, at), 0)
          << "a cut line's start";
      continue;
    }
    // After the marker, output resumes at a whole line, somewhere later.
    while (markers > 0 && next < 2058 && LogLine(next) != line + "\n") ++next;
    ASSERT_LT(next, 2058) << line.substr(0, 40);
    EXPECT_EQ(line + "\n", LogLine(next)) << "line " << next;
    ++next;
  }
  EXPECT_EQ(markers, 1) << log.substr(0, 200);
  EXPECT_EQ(next, 2058) << "the last lines, written once there was room, are there";
  EXPECT_EQ(static_cast<int64_t>(log.size() - marker.size() - 1) + lost,
            static_cast<int64_t>(written.size()))
      << "on disk (less the marker line's own bytes) + lost = written";
}

}  // namespace
}  // namespace hpt::runner
