// `hpt serve` behind PgBouncer in session mode (README, "PostgreSQL"): a
// real pgbouncer (Debian's package) in front of the tests' server, a
// database of the test's own (PgBouncer does not pass the `options` that
// TestSchema's schemas need). hpt prepares its statements once per
// connection, which session pooling keeps; ask/tell runs, and a server
// killed with SIGKILL and started again through PgBouncer finds every
// acknowledged trial and goes on. Skips, saying why, without pgbouncer.

#include <arpa/inet.h>
#include <netinet/in.h>
#include <signal.h>
#include <sys/socket.h>
#include <unistd.h>

#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>
#include <random>
#include <set>
#include <string>
#include <thread>
#include <vector>

#include "tests/postgres/postgres_fixture.h"
#include "tests/server/specs.h"
#include "tests/testing/hpt_process.h"
#include "tests/testing/temp_dir.h"

namespace hpt::storage::testing {
namespace {

using hpt::testing::HptProcess;
using nlohmann::json;

constexpr const char* kPgBouncer = "/usr/sbin/pgbouncer";

// A port nothing listens on now.
int FreePort() {
  const int fd = socket(AF_INET, SOCK_STREAM, 0);
  sockaddr_in address{};
  address.sin_family = AF_INET;
  address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  socklen_t length = sizeof(address);
  int port = -1;
  if (fd >= 0 && bind(fd, reinterpret_cast<sockaddr*>(&address), length) == 0 &&
      getsockname(fd, reinterpret_cast<sockaddr*>(&address), &length) == 0) {
    port = ntohs(address.sin_port);
  }
  if (fd >= 0) close(fd);
  return port;
}

bool Accepts(int port) {
  const int fd = socket(AF_INET, SOCK_STREAM, 0);
  sockaddr_in address{};
  address.sin_family = AF_INET;
  address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  address.sin_port = htons(static_cast<uint16_t>(port));
  const bool ok =
      fd >= 0 && connect(fd, reinterpret_cast<sockaddr*>(&address), sizeof(address)) == 0;
  if (fd >= 0) close(fd);
  return ok;
}

class PgBouncerTest : public ::testing::Test {
 protected:
  void SetUp() override {
    std::string why;
    base_ = PostgresUrl(&why);
    if (base_.empty()) GTEST_SKIP() << "no PostgreSQL server for the tests: " << why;
    if (access(kPgBouncer, X_OK) != 0) {
      GTEST_SKIP() << "no " << kPgBouncer << " (apt-get install pgbouncer)";
    }
    // PgBouncer will not run as root: as root it runs as postgres, which
    // must reach its folder.
    if (geteuid() == 0 && std::system("id postgres >/dev/null 2>&1") != 0) {
      GTEST_SKIP() << "running as root, and there is no postgres user for pgbouncer";
    }
    std::random_device random;
    database_ = "t_bouncer_" + std::to_string(random());
    RawPg(base_).Exec("CREATE DATABASE " + database_);
    const std::string pg_port = RawPg(base_).Query("SELECT inet_server_port()");
    port_ = FreePort();
    ASSERT_GT(port_, 0);
    std::filesystem::permissions(dir_.path(), std::filesystem::perms::all);
    std::ofstream(dir_.File("users.txt")) << "\"postgres\" \"\"\n";
    std::ofstream(dir_.File("pgbouncer.ini"))
        << "[databases]\n"
        << database_ << " = host=127.0.0.1 port=" << pg_port << " dbname=" << database_
        << "\n[pgbouncer]\nlisten_addr = 127.0.0.1\nlisten_port = " << port_
        << "\nunix_socket_dir =\nauth_type = trust\nauth_file = " << dir_.File("users.txt")
        << "\npool_mode = " << pool_mode_ << "\nmax_client_conn = 100\ndefault_pool_size = 20"
        << "\nlogfile = " << dir_.File("pgbouncer.log")
        << "\npidfile = " << dir_.File("pgbouncer.pid") << "\n";
    const std::string start = std::string(geteuid() == 0 ? "runuser -u postgres -- " : "") +
                              kPgBouncer + " -d " + dir_.File("pgbouncer.ini");
    ASSERT_EQ(std::system(start.c_str()), 0) << start;
    for (int i = 0; i < 100 && !Accepts(port_); ++i) {
      std::this_thread::sleep_for(std::chrono::milliseconds(50));
    }
    ASSERT_TRUE(Accepts(port_)) << hpt::testing::ReadFile(dir_.File("pgbouncer.log"));
  }
  void TearDown() override {
    std::string pid;
    std::getline(std::ifstream(dir_.File("pgbouncer.pid")), pid);
    if (!pid.empty()) {
      ::kill(std::stoi(pid), SIGTERM);
      for (int i = 0; i < 100 && ::kill(std::stoi(pid), 0) == 0; ++i) {
        std::this_thread::sleep_for(std::chrono::milliseconds(20));
      }
    }
    if (!database_.empty()) RawPg(base_).Exec("DROP DATABASE " + database_ + " WITH (FORCE)");
  }
  std::string Url() const {
    return "postgresql://postgres@127.0.0.1:" + std::to_string(port_) + "/" + database_;
  }

  std::string base_, database_;
  std::string pool_mode_ = "session";
  int port_ = -1;
  hpt::testing::TempDir dir_;
};

// `rounds` ask/tell rounds; the names of the trials whose completion was
// acknowledged.
std::set<std::string> AskTellRounds(hpt::client::ApiClient& client,
                                    int rounds) {
  std::set<std::string> told;
  for (int i = 0; i < rounds; ++i) {
    auto asked = client.Json("POST", "/api/v1/experiments/bounced/trials:suggest", {{"count", 1}});
    EXPECT_TRUE(asked.ok()) << asked.status().ToString();
    if (!asked.ok()) break;
    const std::string name = (*asked)["trials"][0]["name"];
    auto done = client.Json("POST", "/api/v1/experiments/bounced/trials/" + name + ":complete",
                            {{"metrics", {{"loss", 0.01 * i}}}});
    EXPECT_TRUE(done.ok()) << done.status().ToString();
    if (done.ok()) told.insert(name);
  }
  return told;
}

TEST_F(PgBouncerTest, AskTellRunsBehindSessionPoolingAndSurvivesKill9) {
  // One port for both runs: the server restarted at its URL takes its
  // experiment's lease back at once.
  const std::vector<std::string> args = {"--port", std::to_string(FreePort()), "--log-dir",
                                         dir_.File("logs")};
  std::set<std::string> told;
  {
    HptProcess server(Url(), args);
    auto client = server.Client();
    ASSERT_TRUE(client->Json("POST", "/api/v1/experiments",
                             hpt::testing::ClientExperiment("bounced", 1000))
                    .ok());
    told = AskTellRounds(*client, 30);
    ASSERT_EQ(told.size(), 30u);
    server.Kill(SIGKILL);
  }
  HptProcess again(Url(), args);
  auto client = again.Client();
  std::set<std::string> more = AskTellRounds(*client, 10);
  ASSERT_EQ(more.size(), 10u);
  auto trials = client->Json("GET", "/api/v1/experiments/bounced/trials");
  ASSERT_TRUE(trials.ok()) << trials.status().ToString();
  std::set<std::string> succeeded;
  for (const auto& t : (*trials)["trials"]) {
    if (t["phase"] == "Succeeded") succeeded.insert(t["name"].get<std::string>());
  }
  told.insert(more.begin(), more.end());
  EXPECT_EQ(succeeded, told) << "every acknowledged completion, once, under its own name";
}

class PgBouncerTransactionModeTest : public PgBouncerTest {
 protected:
  void SetUp() override {
    pool_mode_ = "transaction";
    PgBouncerTest::SetUp();
  }
};

// Transaction pooling lends the server's sessions per transaction, and
// hpt's statements are prepared once per connection: the server stops
// at its start and says what to change, rather than failing later.
TEST_F(PgBouncerTransactionModeTest, TheServerStopsAndNamesSessionPooling) {
  std::string out, err;
  const int code = hpt::testing::RunHpt({"serve", "--db", Url(), "--port", "0", "--log-dir",
                                         dir_.File("logs"), "--db-pool-size", "4"},
                                        &out, &err, 30);
  EXPECT_NE(code, 0) << out;
  EXPECT_NE(code, 128 + SIGKILL) << "still serving after 30 s behind transaction pooling: "
                                 << err;
  EXPECT_THAT(err, ::testing::HasSubstr("pool_mode = session")) << err;
}

}  // namespace
}  // namespace hpt::storage::testing
