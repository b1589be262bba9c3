// Checkpoint folders of trials that run as another user (runAsUser), with
// real users: each is the user's own, 0700, in a root of the server's that
// others may pass (0711) but not list; what a user's folder holds is
// copied and removed as that user; a root the user cannot reach is named.
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <filesystem>

#include "controller/checkpoints.h"
#include "controller/run_as_folders.h"
#include "tests/testing/temp_dir.h"
#include "tests/testing/test_users.h"
#include "trial-runner/run_as.h"

namespace hpt::controller {
namespace {

namespace fs = std::filesystem;
using hpt::testing::ReadFile;
using hpt::testing::TempDir;
using hpt::testing::WriteFile;

struct stat Stat(const std::string& path) {
  struct stat st {};
  EXPECT_EQ(::lstat(path.c_str(), &st), 0) << path;
  return st;
}

class RunAsFoldersTest : public ::testing::Test {
 protected:
  void SetUp() override {
    if (std::string why = hpt::testing::TestUsersProblem(); !why.empty()) GTEST_SKIP() << why;
    ASSERT_EQ(::chmod(dir_.path().c_str(), 0711), 0);
    user_ = *runner::ResolveRunAs(hpt::testing::kTestUser1);
    root_ = dir_.File("logs/exp/checkpoints");
  }
  // The way to the root, as the runner opens it before the first folder.
  void Open() { ASSERT_TRUE(OpenExperimentFolders(dir_.File("logs"), "exp").ok()); }
  // `path`, written as the user would have.
  void WriteAsUser(const std::string& path, const std::string& content) {
    WriteFile(path, content);
    ASSERT_EQ(::chown(path.c_str(), user_.uid, user_.gid), 0);
  }

  TempDir dir_;
  runner::RunAs user_;
  std::string root_;
};

TEST_F(RunAsFoldersTest, EachTrialsFolderIsTheUsersInARootOthersCanOnlyPass) {
  Open();
  ASSERT_TRUE(PrepareCheckpointDir(root_, "exp-1", "", &user_).ok());
  for (const std::string& folder : {dir_.File("logs"), dir_.File("logs/exp"), root_}) {
    EXPECT_EQ(Stat(folder).st_uid, ::geteuid()) << folder;
    EXPECT_EQ(Stat(folder).st_mode & 0777, 0711u) << folder;
  }
  struct stat own = Stat(root_ + "/exp-1");
  EXPECT_EQ(own.st_uid, user_.uid);
  EXPECT_EQ(own.st_gid, user_.gid);
  EXPECT_EQ(own.st_mode & 0777, 0700u);
}

TEST_F(RunAsFoldersTest, AChildsCopyIsMadeAsTheUserAndIsTheUsers) {
  Open();
  ASSERT_TRUE(PrepareCheckpointDir(root_, "exp-1", "", &user_).ok());
  WriteAsUser(root_ + "/exp-1/model.bin", "step 3");
  ASSERT_TRUE(PrepareCheckpointDir(root_, "exp-2", root_ + "/exp-1", &user_).ok());
  EXPECT_EQ(ReadFile(root_ + "/exp-2/model.bin"), "step 3");
  EXPECT_EQ(Stat(root_ + "/exp-2/model.bin").st_uid, user_.uid);
  EXPECT_EQ(Stat(root_ + "/exp-2").st_uid, user_.uid);
  EXPECT_EQ(Stat(root_ + "/exp-2").st_mode & 0777, 0700u);
  EXPECT_FALSE(fs::exists(root_ + "/.exp-2.partial"));

  // What the user cannot read itself is not copied for it: the copy runs
  // with the user's rights, not the server's.
  WriteFile(root_ + "/exp-1/server-only", "secret");
  ASSERT_EQ(::chmod((root_ + "/exp-1/server-only").c_str(), 0600), 0);
  Status refused = PrepareCheckpointDir(root_, "exp-3", root_ + "/exp-1", &user_);
  EXPECT_EQ(refused.code(), StatusCode::kInternal);
  EXPECT_NE(refused.message().find("as user 'hpt-test-ru1'"), std::string::npos)
      << refused.message();
  EXPECT_NE(refused.message().find("Permission denied"), std::string::npos) << refused.message();
  EXPECT_FALSE(fs::exists(root_ + "/exp-3"));
}

TEST_F(RunAsFoldersTest, ALeftoverFolderOfTheUserIsReplaced) {
  Open();
  ASSERT_TRUE(PrepareCheckpointDir(root_, "exp-1", "", &user_).ok());
  ASSERT_EQ(::mkdir((root_ + "/exp-1/sub").c_str(), 0700), 0);
  ASSERT_EQ(::chown((root_ + "/exp-1/sub").c_str(), user_.uid, user_.gid), 0);
  WriteAsUser(root_ + "/exp-1/sub/old.bin", "old");
  ASSERT_TRUE(PrepareCheckpointDir(root_, "exp-1", "", &user_).ok());
  EXPECT_TRUE(fs::is_empty(root_ + "/exp-1"));
  EXPECT_EQ(Stat(root_ + "/exp-1").st_uid, user_.uid);
}

TEST_F(RunAsFoldersTest, ARootTheUserCannotReachIsNamedWithWhatOpensIt) {
  ASSERT_EQ(::mkdir(dir_.File("logs").c_str(), 0700), 0);
  Status status = PrepareCheckpointDir(root_, "exp-1", "", &user_);
  EXPECT_EQ(status.code(), StatusCode::kFailedPrecondition);
  EXPECT_EQ(status.message(), "runAsUser 'hpt-test-ru1' cannot reach " + root_ +
                                  ": the folder " + dir_.File("logs") +
                                  " (mode 0700, uid 0) does not let it through; make it "
                                  "traversable (chmod o+x " + dir_.File("logs") + ")");
  Open();  // as the runner opens it: the same root is reached
  EXPECT_TRUE(PrepareCheckpointDir(root_, "exp-1", "", &user_).ok());
}

TEST_F(RunAsFoldersTest, AFolderOfAnotherOwnerIsNotOpened) {
  const std::string logs = dir_.File("logs");
  ASSERT_EQ(::mkdir(logs.c_str(), 0750), 0);
  ASSERT_EQ(::chown(logs.c_str(), user_.uid, user_.gid), 0);
  ASSERT_TRUE(OpenExperimentFolders(logs, "exp").ok());
  EXPECT_EQ(Stat(logs).st_mode & 0777, 0750u);
  EXPECT_EQ(Stat(logs + "/exp").st_mode & 0777, 0711u);
}

}  // namespace
}  // namespace hpt::controller
