// The capped trial log as another process follows it: a follower that keeps
// up reads every byte in order across chunk rotations; one that falls behind
// loses only whole chunks (counted) and still reads the latest output.
#include <gtest/gtest.h>

#include <string>

#include "tests/testing/temp_dir.h"
#include "trial-runner/trial_log.h"

namespace hpt::runner {
namespace {

using hpt::testing::TempDir;

std::string Numbered(int from, int to) {
  std::string out;
  for (int i = from; i < to; ++i) out += "line " + std::to_string(i) + "\n";
  return out;
}

// A capped (4 KiB) log of lines 0..n-1, left open in `writer`.
void WriteLines(TrialLogWriter& writer, const std::string& path, int n) {
  ASSERT_TRUE(writer.Open(path, 4096).ok());
  std::string all = Numbered(0, n);
  writer.Write(all.data(), all.size());
}

TEST(TrialLogTest, FollowerThatKeepsUpReadsEveryByteAcrossRotations) {
  TempDir dir;
  const std::string path = dir.File("logs/t.log");
  TrialLogWriter writer;
  ASSERT_TRUE(writer.Open(path, 4096).ok());
  TrialLogFollower follower(path);
  std::string written, read;
  for (int round = 0; round < 200; ++round) {
    std::string chunk = Numbered(round * 10, round * 10 + 10);
    writer.Write(chunk.data(), chunk.size());
    written += chunk;
    follower.Read(read, 1 << 20);
  }
  writer.Close();
  follower.Read(read, 1 << 20);
  EXPECT_EQ(read, written);
  EXPECT_EQ(follower.skipped(), 0);
  EXPECT_GT(TrialLogChunks(path).back(), 5) << "the writer rotated many times";
  EXPECT_LE(TrialLogChunks(path).size(), 2u) << "only two chunks are kept";
}

TEST(TrialLogTest, FollowerFarBehindSkipsWholeChunksAndReadsTheLatest) {
  TempDir dir;
  const std::string path = dir.File("t.log");
  TrialLogWriter writer;
  WriteLines(writer, path, 2000);
  writer.Close();
  TrialLogFollower follower(path);
  std::string read;
  for (int i = 0; i < 10; ++i) follower.Read(read, 1 << 20);
  EXPECT_GT(follower.skipped(), 0);
  EXPECT_EQ(read.rfind(Numbered(0, 5), 0), 0u) << "the head is read";
  EXPECT_EQ(read.substr(read.size() - 10), "line 1999\n") << "and the latest output";
  // What readers of the log see: the head, the marker, the chunks left.
  auto whole = ReadTrialLog(path, 0, 1 << 20);
  ASSERT_TRUE(whole.ok());
  EXPECT_NE(whole->data.find("[hpt: output over the log cap was dropped here]"),
            std::string::npos);
  EXPECT_EQ(whole->data.substr(whole->data.size() - 10), "line 1999\n");
}

// What lost a chatty trial's last line (its objective): once the writer
// has finished, a final read reaches the end at once, past chunks that
// rotated away, with no rationed listing in the way.
TEST(TrialLogTest, FinalReadReachesTheEndAtOnce) {
  TempDir dir;
  const std::string path = dir.File("t.log");
  TrialLogWriter writer;
  WriteLines(writer, path, 500);
  TrialLogFollower follower(path);
  std::string read;
  follower.Read(read, 1 << 20);  // lists the folder once
  std::string more = Numbered(500, 3000) + "LAST loss=1\n";
  writer.Write(more.data(), more.size());
  writer.Close();
  follower.Read(read, 1 << 20, /*final=*/true);
  EXPECT_EQ(read.substr(read.size() - 12), "LAST loss=1\n");
}

TEST(TrialLogTest, ReopeningRemovesAnEarlierRunsChunks) {
  TempDir dir;
  const std::string path = dir.File("t.log");
  TrialLogWriter writer;
  WriteLines(writer, path, 1000);
  ASSERT_FALSE(TrialLogChunks(path).empty());
  ASSERT_TRUE(writer.Open(path, 4096).ok());
  EXPECT_TRUE(TrialLogChunks(path).empty());
  writer.Write("new\n", 4);
  writer.Close();
  auto whole = ReadTrialLog(path, 0, 1 << 20);
  ASSERT_TRUE(whole.ok());
  EXPECT_EQ(whole->data, "new\n");
}

// A run under the same name follows its log from the start: after
// RemoveTrialLog, a follower sees only what the new run writes.
TEST(TrialLogTest, AFollowerOfARunAfterRemoveTrialLogReadsOnlyTheNewRun) {
  TempDir dir;
  const std::string path = dir.File("t.log");
  TrialLogWriter writer;
  WriteLines(writer, path, 1000);
  ASSERT_FALSE(TrialLogChunks(path).empty());
  RemoveTrialLog(path);
  EXPECT_TRUE(TrialLogChunks(path).empty());
  EXPECT_FALSE(ReadTrialLog(path, 0, 16).ok() && !ReadTrialLog(path, 0, 16)->data.empty());
  TrialLogFollower follower(path);
  std::string read;
  follower.Read(read, 1 << 20);  // nothing there yet
  ASSERT_TRUE(writer.Open(path, 4096).ok());
  writer.Write("step=1 loss=1\n", 14);
  writer.Close();
  follower.Read(read, 1 << 20, /*final=*/true);
  EXPECT_EQ(read, "step=1 loss=1\n");
  RemoveTrialLog(dir.File("never-written.log"));  // nothing to remove: no harm
}

}  // namespace
}  // namespace hpt::runner
