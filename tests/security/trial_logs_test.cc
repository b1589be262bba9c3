// Issue #10, medium findings about logs: unbounded trial logs written 0644,
// and /logs reading the whole file into memory on every request.
#include <sys/stat.h>

#include <gtest/gtest.h>

#include <filesystem>

#include "tests/server/specs.h"
#include "tests/testing/hpt_process.h"
#include "tests/testing/raw_http.h"
#include "tests/testing/temp_dir.h"

namespace hpt::testing {
namespace {

namespace fs = std::filesystem;

unsigned LogFileMode(const fs::path& path) {
  struct stat st {};
  EXPECT_EQ(stat(path.c_str(), &st), 0) << path;
  return st.st_mode & 0777;
}

uintmax_t FolderBytes(const fs::path& folder) {
  uintmax_t total = 0;
  for (const auto& e : fs::recursive_directory_iterator(folder)) {
    if (e.is_regular_file()) total += e.file_size();
  }
  return total;
}

TEST(TrialLogsTest, LogsAreCappedPrivateAndServedByRange) {
  TempDir dir;
  const std::string db = dir.File("data/hpt.db");
  HptProcess server(db, {"--max-log-bytes", "1048576"});
  auto client = server.Client();
  // 8 MiB of output, first and last lines marked.
  auto created = client->Json(
      "POST", "/api/v1/experiments",
      ShellExperiment("chatty",
                      "echo FIRST-LINE; i=0; while [ $i -lt 128 ]; do "
                      "head -c 65536 /dev/zero | tr '\\0' x; echo; i=$((i+1)); done; "
                      "echo LAST-LINE loss=1",
                      1, 1));
  ASSERT_TRUE(created.ok()) << created.status().ToString();
  nlohmann::json done = WaitForExperiment(*client, "chatty", 60);
  ASSERT_EQ(done["status"]["phase"], "Succeeded") << done.dump();

  const fs::path logs = fs::path(dir.path()) / "data" / "logs";
  EXPECT_LE(FolderBytes(logs), 1048576u + 4096u) << "the cap holds on disk";
  EXPECT_EQ(LogFileMode(dir.File("data")), 0700u);
  EXPECT_EQ(LogFileMode(logs), 0700u);
  EXPECT_EQ(LogFileMode(logs / "chatty"), 0700u);
  EXPECT_EQ(LogFileMode(db), 0600u);
  for (const auto& e : fs::recursive_directory_iterator(logs)) {
    if (e.is_regular_file())
      EXPECT_EQ(LogFileMode(e.path()), 0600u) << e.path();
  }

  const std::string path = "/api/v1/experiments/chatty/trials/chatty-1/logs";
  RawResponse tail = RawHttp(server.url(), "GET", path + "?tail=100");
  ASSERT_EQ(tail.status, 200) << tail.body;
  EXPECT_EQ(tail.body.size(), 100u);
  EXPECT_NE(tail.body.find("LAST-LINE loss=1"), std::string::npos) << tail.body;
  const long long size = std::stoll(tail.headers["x-log-size"]);
  EXPECT_LE(size, 1048576 + 100);

  RawResponse head = RawHttp(server.url(), "GET", path + "?offset=0&limit=64");
  ASSERT_EQ(head.status, 200);
  EXPECT_EQ(head.body.rfind("FIRST-LINE", 0), 0u) << head.body;
  EXPECT_EQ(head.body.size(), 64u);

  RawResponse all = RawHttp(server.url(), "GET", path);
  ASSERT_EQ(all.status, 200);
  EXPECT_EQ(static_cast<long long>(all.body.size()), size);
  EXPECT_NE(all.body.find("[hpt: output over the log cap was dropped here]"), std::string::npos);

  EXPECT_EQ(RawHttp(server.url(), "GET", path + "?tail=-1").status, 400);
  EXPECT_EQ(RawHttp(server.url(), "GET", path + "?offset=abc").status, 400);
}

}  // namespace
}  // namespace hpt::testing
