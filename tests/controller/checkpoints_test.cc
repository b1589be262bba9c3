// Trial checkpoint folders: where they go, the copy of a parent's, and the
// rewriting of the path a trial command expects its folder at.
#include "controller/checkpoints.h"

#include <gtest/gtest.h>
#include <sys/stat.h>

#include <filesystem>

#include "tests/testing/temp_dir.h"

namespace hpt::controller {
namespace {

namespace fs = std::filesystem;
using hpt::testing::ReadFile;
using hpt::testing::TempDir;
using hpt::testing::WriteFile;

api::ExperimentSpec PbtSpec(const std::string& trial_dir) {
  api::ExperimentSpec spec;
  spec.name = "exp";
  spec.algorithm.name = "pbt";
  if (!trial_dir.empty())
    spec.algorithm.settings = {{"suggestion_trial_dir", trial_dir}};
  return spec;
}

TEST(CheckpointsTest, RewritesWholePathsAndTheirSubpathsOnly) {
  const std::string to = "/srv/logs/exp/checkpoints/exp-3";
  EXPECT_EQ(RewritePath("--checkpoint=/var/log/katib/checkpoints/",
                        "/var/log/katib/checkpoints/", to),
            "--checkpoint=" + to + "/");
  EXPECT_EQ(RewritePath("/ckpt", "/ckpt", to), to);
  EXPECT_EQ(RewritePath("/ckpt/model.pt,/ckpt", "/ckpt/", to),
            to + "/model.pt," + to);
  EXPECT_EQ(RewritePath("/ckpt2 /data/ckpt /ckpt.old", "/ckpt", to),
            "/ckpt2 /data/ckpt /ckpt.old");
  EXPECT_EQ(RewritePath("--dir /ckpt --x", "/ckpt", to),
            "--dir " + to + " --x");
  EXPECT_EQ(RewritePath("/anything", "/", to), "/anything");
  EXPECT_EQ(RewritePath("/anything", "", to), "/anything");
}

TEST(CheckpointsTest, FoldersGoUnderTheLogsUnlessTheGivenPathIsWritable) {
  TempDir dir;
  const std::string logs = dir.File("logs");
  EXPECT_EQ(CheckpointRoot(PbtSpec(""), logs), logs + "/exp/checkpoints");
  EXPECT_EQ(CheckpointRoot(PbtSpec("/hpt-test-absent/ckpt/"), logs),
            logs + "/exp/checkpoints");
  fs::create_directories(dir.File("mine"));
  EXPECT_EQ(CheckpointRoot(PbtSpec(dir.File("mine") + "/"), logs),
            dir.File("mine") + "/exp");
  EXPECT_EQ(SuggestionTrialDir(PbtSpec("/x/")), "/x/");
}

unsigned Mode(const std::string& path) {
  struct stat st {};
  EXPECT_EQ(stat(path.c_str(), &st), 0) << path;
  return st.st_mode & 0777;
}

// Every runner-run trial's folder is made at its first start, before its
// log: the log folders it makes on the way are as private as the log's.
TEST(CheckpointsTest, FoldersMadeOnTheWayArePrivate) {
  TempDir dir;
  fs::permissions(dir.path(), fs::perms(0750), fs::perm_options::replace);
  const std::string logs = dir.File("data/logs");
  ASSERT_TRUE(PrepareCheckpointDir(logs + "/exp/checkpoints", "exp-1", "").ok());
  for (const std::string& made : {dir.File("data"), logs, logs + "/exp",
                                  logs + "/exp/checkpoints", logs + "/exp/checkpoints/exp-1"}) {
    EXPECT_EQ(Mode(made), 0700u) << made;
  }
  EXPECT_EQ(Mode(dir.path()), 0750u) << "a folder that was there is left as it was";
}

TEST(CheckpointsTest, AChildStartsFromACopyOfItsParentsFolder) {
  TempDir dir;
  const std::string root = dir.File("root");
  ASSERT_TRUE(PrepareCheckpointDir(root, "exp-1", "").ok());
  EXPECT_TRUE(fs::is_empty(root + "/exp-1"));
  struct stat st {};
  ASSERT_EQ(stat((root + "/exp-1").c_str(), &st), 0);
  EXPECT_EQ(st.st_mode & 0777, 0700u);
  WriteFile(root + "/exp-1/model.bin", "step 3");
  WriteFile(root + "/exp-1/sub/opt.bin", "adam");

  ASSERT_TRUE(PrepareCheckpointDir(root, "exp-2", root + "/exp-1").ok());
  EXPECT_EQ(ReadFile(root + "/exp-2/model.bin"), "step 3");
  EXPECT_EQ(ReadFile(root + "/exp-2/sub/opt.bin"), "adam");
  // The child's writes stay its own.
  WriteFile(root + "/exp-2/model.bin", "step 6");
  EXPECT_EQ(ReadFile(root + "/exp-1/model.bin"), "step 3");
  // Made again (a store write failed): replaced, not merged.
  ASSERT_TRUE(PrepareCheckpointDir(root, "exp-2", "").ok());
  EXPECT_TRUE(fs::is_empty(root + "/exp-2"));

  EXPECT_EQ(FindCheckpointDir(PbtSpec(""), dir.File("logs"), "exp-1"),
            std::nullopt);
  ASSERT_TRUE(
      PrepareCheckpointDir(dir.File("logs/exp/checkpoints"), "exp-1", "").ok());
  EXPECT_EQ(FindCheckpointDir(PbtSpec(""), dir.File("logs"), "exp-1"),
            dir.File("logs/exp/checkpoints/exp-1"));

  Status gone = PrepareCheckpointDir(root, "exp-3", root + "/exp-9");
  EXPECT_EQ(gone.code(), StatusCode::kFailedPrecondition);
  EXPECT_NE(gone.message().find(root + "/exp-9"), std::string::npos)
      << gone.message();
}

TEST(CheckpointsTest, FoldersMadeOnTheWayArePrivateToo) {
  // The first trial's folder may come before its first log: the logs'
  // folder and the experiment's are made here then, and must not be
  // listable by others.
  TempDir dir;
  ASSERT_TRUE(
      PrepareCheckpointDir(dir.File("logs/exp/checkpoints"), "exp-1", "").ok());
  struct stat st {};
  for (const char* folder : {"logs", "logs/exp", "logs/exp/checkpoints"}) {
    ASSERT_EQ(stat(dir.File(folder).c_str(), &st), 0);
    EXPECT_EQ(st.st_mode & 0777, 0700u) << folder;
  }
}

}  // namespace
}  // namespace hpt::controller
