// Issue #30, finding 1: a trial became admin. Trials run as the server's
// user, the server's command line (world-readable in /proc) named
// --token-file, and a trial read the token from that file, then listed,
// created and stopped experiments. Here a trial searches every process it
// can see, as that attacker did (command lines, environments, open files),
// and whatever it finds must not hold the admin token.
#include <fcntl.h>
#include <pwd.h>
#include <sys/stat.h>
#include <unistd.h>

#include <gtest/gtest.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <thread>

#include "tests/server/specs.h"
#include "tests/testing/hpt_process.h"
#include "tests/testing/temp_dir.h"

namespace hpt::testing {
namespace {

constexpr char kSecretsToken[] = "admin-secret-5f0c2e9b7a";
constexpr char kUser[] = "hpt-test-trial";

// What the attacker's trial ran: every token file a command line names,
// every environment and every file another process holds open, all into
// $LOOT; then the metric, so that the trial ends Succeeded.
constexpr char kSearch[] = R"sh(
for p in /proc/[0-9]*; do
  prev=""
  for a in $(tr '\0' ' ' < "$p/cmdline" 2>/dev/null); do
    [ "$prev" = --token-file ] && cat "$a"
    case "$a" in --token-file=*) cat "${a#--token-file=}";; esac
    prev="$a"
  done
  tr '\0' '\n' < "$p/environ"
  for f in "$p"/fd/*; do
    t=$(readlink "$f") || continue
    case "$t" in /*) [ -f "$t" ] && head -c 65536 "$t";; esac
  done
done >> "$LOOT" 2>/dev/null
echo loss=1
)sh";

// The user trials run as: root's trials can read anything, so as root the
// server runs as a system user made for the test; otherwise as ourselves.
std::optional<std::pair<uid_t, gid_t>> TrialUser() {
  if (geteuid() != 0) return std::nullopt;
  if (getpwnam(kUser) == nullptr) {
    std::string command = std::string("useradd --system --no-create-home --shell /usr/sbin/nologin ") +
                          kUser + " >/dev/null 2>&1";
    if (std::system(command.c_str()) != 0 && getpwnam(kUser) == nullptr) return std::nullopt;
  }
  const passwd* pw = getpwnam(kUser);
  return std::make_pair(pw->pw_uid, pw->pw_gid);
}

class TrialSecretsTest : public ::testing::Test {
 protected:
  void SetUp() override {
    user_ = TrialUser();
    if (geteuid() == 0 && !user_) GTEST_SKIP() << "cannot create the user " << kUser;
    // The binary where that user can run it, wherever the build is.
    binary_ = dir_.File("hpt");
    std::filesystem::copy_file(HptBinary(), binary_);
    ::chmod(binary_.c_str(), 0755);
    ::chmod(dir_.path().c_str(), 0755);
    WriteFile(dir_.File("data/.keep"), "");
    WriteFile(dir_.File("data/loot"), "");
    if (user_) {
      for (const char* path : {"data", "data/.keep", "data/loot"}) {
        ASSERT_EQ(::chown(dir_.File(path).c_str(), user_->first, user_->second), 0) << path;
      }
    }
  }

  HptProcessOptions Options() const {
    HptProcessOptions options;
    options.user = user_;
    options.binary = binary_;
    return options;
  }

  // Runs the search as a trial and returns what it found.
  std::string Search(HptProcess& server) {
    auto client = server.Client(kSecretsToken);
    nlohmann::json spec = ShellExperiment("search", kSearch, 1, 1);
    spec["trialTemplate"]["env"]["LOOT"] = dir_.File("data/loot");
    auto created = client->Json("POST", "/api/v1/experiments", spec);
    EXPECT_TRUE(created.ok()) << created.status().ToString();
    nlohmann::json done = WaitForExperiment(*client, "search", 60);
    EXPECT_EQ(done["status"].value("phase", ""), "Succeeded") << done.dump();
    return ReadFile(dir_.File("data/loot"));
  }

  TempDir dir_;
  std::optional<std::pair<uid_t, gid_t>> user_;
  std::string binary_;
};

TEST_F(TrialSecretsTest, TheTokenFileIsNotNamedOnTheCommandLine) {
  const std::string token_file = dir_.File("data/token");
  WriteFile(token_file, std::string(kSecretsToken) + "\n");
  ::chmod(token_file.c_str(), 0600);
  if (user_) ASSERT_EQ(::chown(token_file.c_str(), user_->first, user_->second), 0);
  HptProcess server(dir_.File("data/hpt.db"), {"--token-file", token_file}, Options());
  std::ifstream cmdline("/proc/" + std::to_string(server.pid()) + "/cmdline");
  std::string args((std::istreambuf_iterator<char>(cmdline)), {});
  EXPECT_EQ(args.find(token_file), std::string::npos) << args;
  EXPECT_NE(args.find("--token-file"), std::string::npos) << args;

  const std::string loot = Search(server);
  // The search ran and could read its own processes...
  EXPECT_NE(loot.find("HPT_TRIAL=search-"), std::string::npos) << loot.substr(0, 2000);
  // ... and found no way to the admin token.
  EXPECT_EQ(loot.find(kSecretsToken), std::string::npos)
      << "a trial read the admin token";
}

// --token-fd with a file the trials' user cannot open (root's): the token
// exists in the server's memory alone, which its trials cannot read.
TEST_F(TrialSecretsTest, ATokenOnADescriptorLeavesNoTrace) {
  if (!user_) GTEST_SKIP() << "needs root: the token file must belong to another user";
  const std::string token_file = dir_.File("root-token");
  WriteFile(token_file, std::string(kSecretsToken) + "\n");
  ::chmod(token_file.c_str(), 0600);
  const int fd = ::open(token_file.c_str(), O_RDONLY | O_CLOEXEC);
  ASSERT_GE(fd, 0);
  HptProcessOptions options = Options();
  options.descriptors[3] = fd;
  HptProcess server(dir_.File("data/hpt.db"), {"--token-fd", "3"}, options);
  ::close(fd);
  EXPECT_EQ(server.Client()->Call("GET", "/api/v1/experiments")->status, 401);
  const std::string loot = Search(server);
  EXPECT_NE(loot.find("HPT_TRIAL=search-"), std::string::npos) << loot.substr(0, 2000);
  EXPECT_EQ(loot.find(kSecretsToken), std::string::npos)
      << "a trial read the admin token";
  // The descriptor was closed once read: nothing of the server's names the file.
  for (const auto& fd :
       std::filesystem::directory_iterator("/proc/" + std::to_string(server.pid()) + "/fd")) {
    std::error_code ec;
    EXPECT_NE(std::filesystem::read_symlink(fd.path(), ec).string(), token_file);
  }
}

// systemd's StandardInput=file:... with --token-fd 0, and a pipe whose
// writer stays open (the token's line is enough).
TEST(TokenDescriptorTest, StandardInputAndAnOpenPipeWork) {
  TempDir dir;
  WriteFile(dir.File("token"), "on-stdin\n");
  HptProcessOptions from_stdin;
  const int file = ::open(dir.File("token").c_str(), O_RDONLY | O_CLOEXEC);
  from_stdin.descriptors[0] = file;
  {
    HptProcess server(dir.File("a.db"), {"--token-fd", "0"}, from_stdin);
    EXPECT_EQ(server.Client()->Call("GET", "/api/v1/experiments")->status, 401);
    EXPECT_EQ(server.Client("on-stdin")->Call("GET", "/api/v1/experiments")->status, 200);
  }
  ::close(file);
  int pipe_fds[2];
  ASSERT_EQ(::pipe2(pipe_fds, O_CLOEXEC), 0);
  ASSERT_EQ(::write(pipe_fds[1], "in-a-pipe\n", 10), 10);
  HptProcessOptions from_pipe;
  from_pipe.descriptors[3] = pipe_fds[0];
  HptProcess server(dir.File("b.db"), {"--token-fd", "3"}, from_pipe);  // writer still open
  EXPECT_EQ(server.Client("in-a-pipe")->Call("GET", "/api/v1/experiments")->status, 200);
  ::close(pipe_fds[0]);
  ::close(pipe_fds[1]);
}

TEST(TokenDescriptorTest, ProblemsAreNamed) {
  TempDir dir;
  std::string out, err;
  EXPECT_EQ(RunHpt({"serve", "--db", dir.File("a.db"), "--port", "0", "--token-fd", "9"}, &out,
                   &err, 30),
            2);
  EXPECT_NE(err.find("--token-fd: descriptor 9 is not open"), std::string::npos) << err;
  EXPECT_EQ(RunHpt({"serve", "--db", dir.File("a.db"), "--port", "0", "--token-fd", "3",
                    "--token-file", dir.File("t")},
                   &out, &err, 30),
            2);
  EXPECT_NE(err.find("excludes"), std::string::npos) << err;
}

}  // namespace
}  // namespace hpt::testing
