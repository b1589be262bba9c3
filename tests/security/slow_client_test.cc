// Issue #30, finding 8: slowloris. Partial headers were held for ever; with
// `ulimit -n 256`, 300 such connections from one unauthenticated client
// made /healthz time out while the server spun at 70% CPU retrying
// accept(). The server now raises its open-file limit, caps connections,
// and cuts off a request head that does not arrive in time.
#include <arpa/inet.h>
#include <netinet/in.h>
#include <poll.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <unistd.h>

#include <gtest/gtest.h>

#include <chrono>
#include <fstream>
#include <sstream>
#include <thread>

#include "tests/server/specs.h"
#include "tests/testing/hpt_process.h"
#include "tests/testing/raw_http.h"
#include "tests/testing/temp_dir.h"
#include "tests/testing/time_scale.h"

namespace hpt::testing {
namespace {

using Clock = std::chrono::steady_clock;

int PartialRequest(const std::string& url) {
  const int port = std::atoi(url.substr(url.rfind(':') + 1).c_str());
  int fd = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_port = htons(static_cast<uint16_t>(port));
  ::inet_pton(AF_INET, "127.0.0.1", &addr.sin_addr);
  if (::connect(fd, reinterpret_cast<sockaddr*>(&addr), sizeof addr) != 0) {
    ::close(fd);
    return -1;
  }
  const std::string head = "GET /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Slow: ";
  (void)::send(fd, head.data(), head.size(), MSG_NOSIGNAL);
  return fd;
}

// The CPU time (user + system) a process has used, in clock ticks.
long CpuTicks(pid_t pid) {
  std::ifstream in("/proc/" + std::to_string(pid) + "/stat");
  std::string text((std::istreambuf_iterator<char>(in)), {});
  std::istringstream fields(text.substr(text.rfind(')') + 2));
  std::string field;
  long utime = 0, stime = 0;
  for (int i = 3; fields >> field; ++i) {
    if (i == 14) utime = std::stol(field);
    if (i == 15) {
      stime = std::stol(field);
      break;
    }
  }
  return utime + stime;
}

class SlowClientTest : public ::testing::Test {
 protected:
  void SetUp() override {
    // This test holds 300 connections itself.
    rlimit limit{};
    getrlimit(RLIMIT_NOFILE, &limit);
    if (limit.rlim_max < 1024) GTEST_SKIP() << "the open-file limit here is " << limit.rlim_max;
    limit.rlim_cur = limit.rlim_max;
    setrlimit(RLIMIT_NOFILE, &limit);
  }
  void TearDown() override {
    for (int fd : fds_) ::close(fd);
  }
  // Opens `count` connections that send half a request head and stop.
  void Flood(const std::string& url, int count) {
    for (int i = 0; i < count; ++i) {
      int fd = PartialRequest(url);
      if (fd >= 0) fds_.push_back(fd);
    }
  }
  // /healthz's answer and how long it took, while the flood holds.
  std::pair<int, double> Health(const std::string& url) {
    const auto start = Clock::now();
    RawResponse r = RawHttp(url, "GET", "/healthz", {}, "", 5);
    return {r.status, std::chrono::duration<double>(Clock::now() - start).count()};
  }
  // The server's share of one core over a second.
  double CpuShare(pid_t pid) {
    const long before = CpuTicks(pid);
    std::this_thread::sleep_for(std::chrono::seconds(1));
    return static_cast<double>(CpuTicks(pid) - before) / sysconf(_SC_CLK_TCK);
  }

  std::vector<int> fds_;
};

// The finding as reported: a soft limit of 256, 300 slow connections.
TEST_F(SlowClientTest, ALowSoftLimitNoLongerTakesTheServerDown) {
  TempDir dir;
  HptProcessOptions options;
  rlimit low{};
  getrlimit(RLIMIT_NOFILE, &low);
  low.rlim_cur = 256;
  options.open_files = low;
  HptProcess server(dir.File("hpt.db"), {}, options);
  Flood(server.url(), 300);
  ASSERT_GE(fds_.size(), 290u);
  auto [status, seconds] = Health(server.url());
  EXPECT_EQ(status, 200);
  EXPECT_LT(seconds, 2.0 * TimeScale());
  EXPECT_LT(CpuShare(server.pid()), 0.3);
}

// Where the hard limit is low too, the server holds as many connections as
// it can take: the slow ones that came first give way to the ones after
// them, /healthz is answered at once, and nothing spins.
TEST_F(SlowClientTest, ALowHardLimitCapsConnectionsWithoutSpinning) {
  TempDir dir;
  HptProcessOptions options;
  options.open_files = rlimit{128, 128};
  HptProcess server(dir.File("hpt.db"), {}, options);
  Flood(server.url(), 300);
  auto [status, seconds] = Health(server.url());
  EXPECT_EQ(status, 200);
  EXPECT_LT(seconds, 2.0);
  EXPECT_LT(CpuShare(server.pid()), 0.3);
  // The first slow connection was closed to make room.
  char buffer[512] = {};
  pollfd p{fds_.front(), POLLIN, 0};
  ASSERT_EQ(::poll(&p, 1, 2000), 1);
  EXPECT_LE(::recv(fds_.front(), buffer, sizeof buffer - 1, 0), 0);
}

// The server raises its own open-file limit; its trials get back the one
// it was started with.
TEST_F(SlowClientTest, TrialsKeepTheOpenFileLimitTheServerWasGiven) {
  TempDir dir;
  HptProcessOptions options;
  rlimit low{};
  getrlimit(RLIMIT_NOFILE, &low);
  low.rlim_cur = 300;
  options.open_files = low;
  HptProcess server(dir.File("hpt.db"), {}, options);
  auto client = server.Client();
  nlohmann::json spec = ShellExperiment("limit", "echo loss=$(ulimit -n)", 1, 1);
  ASSERT_TRUE(client->Json("POST", "/api/v1/experiments", spec).ok());
  nlohmann::json done = WaitForExperiment(*client, "limit", 60);
  ASSERT_EQ(done["status"].value("phase", ""), "Succeeded") << done.dump();
  EXPECT_EQ(done["status"]["currentOptimalTrial"].value("objectiveValue", 0.0), 300) << done.dump();
}

}  // namespace
}  // namespace hpt::testing
