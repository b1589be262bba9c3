// Issue 32: trials may run as other users (a namespace's runAsUser), so
// what the server keeps must be closed to every other user. A database
// and logs' folder of an older hpt (or made by hand) and a token file
// written with the usual umask are made private when `hpt serve` starts;
// a new database is 0600 from the start.
#include <sys/stat.h>

#include <gtest/gtest.h>

#include <filesystem>

#include "tests/testing/hpt_process.h"
#include "tests/testing/temp_dir.h"

namespace hpt::testing {
namespace {

unsigned Mode(const std::string& path) {
  struct stat st {};
  EXPECT_EQ(::stat(path.c_str(), &st), 0) << path;
  return st.st_mode & 07777;
}

TEST(ServerFilesTest, OpenFilesOfTheServersAreMadePrivateAtStart) {
  TempDir dir;
  const std::string db = dir.File("data/hpt.db");
  { HptProcess first(db); }
  EXPECT_EQ(Mode(db), 0600u);
  // As an older hpt, or an admin, may have left them.
  ASSERT_EQ(::chmod(db.c_str(), 0644), 0);
  const std::string logs = dir.File("data/logs");
  std::filesystem::create_directories(logs);
  ASSERT_EQ(::chmod(logs.c_str(), 0755), 0);
  const std::string token = dir.File("token");
  WriteFile(token, "admin-token\n");
  ASSERT_EQ(::chmod(token.c_str(), 0644), 0);

  HptProcess server(db, {"--token-file", token});
  EXPECT_EQ(server.Client("admin-token")->Call("GET", "/api/v1/experiments")->status, 200);
  EXPECT_EQ(Mode(db), 0600u);
  for (const char* suffix : {"-wal", "-shm"}) {
    if (std::filesystem::exists(db + suffix)) EXPECT_EQ(Mode(db + suffix), 0600u) << suffix;
  }
  EXPECT_EQ(Mode(token), 0600u);
  EXPECT_EQ(Mode(logs), 0711u) << "others may pass (to their own folders), not list";
}

}  // namespace
}  // namespace hpt::testing
