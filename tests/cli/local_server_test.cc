// #14, problem 2: `hpt run` can be watched. It attaches to a server that
// answers where the CLI looks ($HPT_SERVER, else the default port), or
// starts its own there, whose printed dashboard link and token work from a
// second terminal; afterwards the read commands work on the database file
// with no server, or say exactly what would make them work.
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <sstream>
#include <thread>

#include <gtest/gtest.h>

#include "tests/testing/hpt_process.h"
#include "tests/testing/temp_dir.h"

namespace hpt::testing {
namespace {

using nlohmann::json;

// Each trial sleeps, so that the run is still going while we look at it;
// with GATE in the command, each waits for that file first.
const char* kSlowSpec = R"(
name: watched-run
objective: {type: minimize, objectiveMetricName: loss}
algorithm: {algorithmName: random, algorithmSettings: [{name: random_state, value: "3"}]}
parallelTrialCount: 1
maxTrialCount: 3
parameters:
  - {name: x, parameterType: double, feasibleSpace: {min: "0", max: "1"}}
trialTemplate:
  command: [sh, -c, "GATE sleep 0.7; echo progress line; echo loss=${trialParameters.x}"]
  trialParameters: [{name: x, reference: x}]
  workingDir: .
)";

int FreePort() {
  int fd = socket(AF_INET, SOCK_STREAM, 0);
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  addr.sin_port = 0;
  socklen_t len = sizeof(addr);
  if (bind(fd, reinterpret_cast<sockaddr*>(&addr), sizeof(addr)) != 0 ||
      getsockname(fd, reinterpret_cast<sockaddr*>(&addr), &len) != 0) {
    close(fd);
    return 0;
  }
  close(fd);
  return ntohs(addr.sin_port);
}

// Where the CLI looks for "the" server, and where `hpt run` leaves its
// token: this test's own, in the environment the hpt children inherit.
class LocalServerTest : public ::testing::Test {
 protected:
  void SetUp() override {
    port_ = FreePort();
    ASSERT_GT(port_, 0);
    url_ = "http://127.0.0.1:" + std::to_string(port_);
    setenv("HPT_SERVER", url_.c_str(), 1);
    unsetenv("HPT_URL");
    unsetenv("HPT_TOKEN");
    setenv("XDG_RUNTIME_DIR", dir_.File("runtime").c_str(), 1);
    WriteFile(dir_.File("exp/run.yaml"), Spec(""));
  }
  // The spec, its trials first waiting for `gate` to exist when given.
  static std::string Spec(const std::string& gate) {
    std::string spec = kSlowSpec;
    spec.replace(spec.find("GATE "), 5,
                 gate.empty() ? "" : "while [ ! -e " + gate + " ]; do sleep 0.1; done; ");
    return spec;
  }
  void TearDown() override {
    unsetenv("HPT_SERVER");
    unsetenv("XDG_RUNTIME_DIR");
  }
  std::string TokenFile() const {
    return dir_.File("runtime/hpt/server-" + std::to_string(port_) + ".token");
  }

  TempDir dir_;
  int port_ = 0;
  std::string url_;
};

TEST_F(LocalServerTest, AnEmbeddedRunIsWatchedFromASecondTerminal) {
  const std::string db = dir_.File("data/hpt.db");
  // The trials wait for GO, so the run is still going when watch attaches.
  const std::string gate = dir_.File("GO");
  WriteFile(dir_.File("exp/run.yaml"), Spec(gate));
  std::string run_out, run_err;
  int run_code = -1;
  std::thread run([&] {
    run_code = RunHpt({"run", "--db", db, dir_.File("exp/run.yaml")}, &run_out, &run_err, 90);
  });
  struct Joiner {  // a failed ASSERT must not leave the thread joinable
    std::thread& t;
    ~Joiner() {
      if (t.joinable()) t.join();
    }
  } joiner{run};

  // The embedded server comes up where the CLI looks, and leaves its token
  // where this user's other commands find it.
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(30);
  while (!std::filesystem::exists(TokenFile()) && std::chrono::steady_clock::now() < deadline) {
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
  }
  ASSERT_TRUE(std::filesystem::exists(TokenFile()));
  EXPECT_EQ(std::filesystem::status(TokenFile()).permissions() & std::filesystem::perms::all,
            std::filesystem::perms::owner_read | std::filesystem::perms::owner_write);
  const std::string token = ReadFile(TokenFile()).substr(0, 32);

  // The second terminal: no flags at all. (The token file is written as
  // the server comes up, a moment before `hpt run` creates its experiment:
  // a slow machine lists nothing yet, so ask until it shows.)
  std::string out, err;
  const auto listed_by = std::chrono::steady_clock::now() + std::chrono::seconds(30);
  do {
    out.clear();
    err.clear();
    ASSERT_EQ(RunHpt({"list"}, &out, &err), 0) << err;
  } while (out.find("watched-run") == std::string::npos &&
           std::chrono::steady_clock::now() < listed_by);
  EXPECT_NE(out.find("watched-run"), std::string::npos) << out;
  // While it runs: the API is locked without the token, and the dashboard
  // page is served where the printed link points.
  auto anonymous = hpt::client::NewApiClient(url_, "");
  auto refused = anonymous->Call("GET", "/api/v1/experiments");
  ASSERT_TRUE(refused.ok()) << refused.status().ToString();
  EXPECT_EQ(refused->status, 401);
  const bool dashboard_built = std::filesystem::exists(HPT_SOURCE_DIR "/ui/dist/index.html");
  auto page = anonymous->Call("GET", "/");
  ASSERT_TRUE(page.ok()) << page.status().ToString();
  if (dashboard_built) EXPECT_EQ(page->status, 200) << "the dashboard is served at the printed URL";

  std::string watch_out, watch_err;
  int watch_code = -1;
  std::thread watch([&] { watch_code = RunHpt({"watch", "watched-run"}, &watch_out, &watch_err, 90); });
  std::this_thread::sleep_for(std::chrono::seconds(2));  // watch has attached
  WriteFile(gate, "");
  watch.join();
  EXPECT_EQ(watch_code, 0) << watch_err;
  EXPECT_NE(watch_out.find("experiment 'watched-run' Succeeded"), std::string::npos) << watch_out;

  run.join();
  EXPECT_EQ(run_code, 0) << run_out << run_err;
  EXPECT_NE(run_out.find("submitted to " + url_), std::string::npos) << run_out;
  if (dashboard_built) {
    EXPECT_NE(run_out.find("dashboard: " + url_ + "/#/experiments/watched-run?token=" + token),
              std::string::npos)
        << run_out;
  }
  EXPECT_NE(run_out.find("hpt watch watched-run"), std::string::npos) << run_out;
  // Gone with the server: a stale token is never left behind.
  EXPECT_FALSE(std::filesystem::exists(TokenFile()));

  // Offline: the read commands read the file, read-only.
  ASSERT_EQ(RunHpt({"list", "--db", db}, &out, &err), 0) << err;
  EXPECT_NE(out.find("watched-run"), std::string::npos);
  EXPECT_NE(out.find("Succeeded"), std::string::npos);
  EXPECT_NE(out.find("3/3"), std::string::npos) << out;
  ASSERT_EQ(RunHpt({"trials", "watched-run", "--db", db, "-o", "csv"}, &out, &err), 0) << err;
  EXPECT_EQ(out.substr(0, out.find('\n')), "trial,phase,x,loss,reason,startTime,completionTime");
  EXPECT_EQ(std::count(out.begin(), out.end(), '\n'), 4) << out;
  ASSERT_EQ(RunHpt({"best", "watched-run", "--db", db}, &out, &err), 0) << err;
  EXPECT_NE(out.find("PARAMETER"), std::string::npos) << out;
  ASSERT_EQ(RunHpt({"logs", "watched-run", "2", "--db", db}, &out, &err), 0) << err;
  EXPECT_NE(out.find("progress line"), std::string::npos) << out;
  ASSERT_EQ(RunHpt({"get", "watched-run", "--db", db, "-o", "json"}, &out, &err), 0) << err;
  EXPECT_EQ(json::parse(out)["status"]["phase"], "Succeeded");
  EXPECT_EQ(RunHpt({"get", "nope", "--db", db}, &out, &err), 3);
  EXPECT_EQ(RunHpt({"list", "--db", dir_.File("missing.db")}, &out, &err), 3);
  EXPECT_NE(err.find("missing.db"), std::string::npos) << err;
  EXPECT_FALSE(std::filesystem::exists(dir_.File("missing.db")));

  // No server and no --db: one line with the exact command that works.
  EXPECT_EQ(RunHpt({"trials", "watched-run"}, &out, &err), 5);
  EXPECT_NE(err.find("cannot reach the hpt server"), std::string::npos) << err;
  EXPECT_NE(err.find("hpt trials watched-run --db"), std::string::npos) << err;
  EXPECT_EQ(std::count(err.begin(), err.end(), '\n'), 1) << err;
}

TEST_F(LocalServerTest, RunAttachesToTheServerThatAnswers) {
  HptProcess server(dir_.File("served.db"), {"--port", std::to_string(port_)});
  ASSERT_EQ(server.url(), url_);
  std::string out, err;
  // No --server, no --db: the running server gets it, and a Ctrl-C would
  // only detach.
  ASSERT_EQ(RunHpt({"run", dir_.File("exp/run.yaml")}, &out, &err, 90), 0) << out << err;
  EXPECT_NE(out.find("submitted to " + url_ + "\n"), std::string::npos) << out;
  EXPECT_EQ(out.find("token="), std::string::npos) << out;
  EXPECT_FALSE(std::filesystem::exists(dir_.File("hpt-data")));
  auto stored = server.Client()->Json("GET", "/api/v1/experiments/watched-run");
  ASSERT_TRUE(stored.ok()) << stored.status().ToString();
  EXPECT_EQ((*stored)["status"]["phase"], "Succeeded");
}

TEST_F(LocalServerTest, OutputAsCsvEverywhere) {
  HptProcess server(dir_.File("csv.db"), {"--port", std::to_string(port_)});
  std::string out, err;
  ASSERT_EQ(RunHpt({"run", "--quiet", dir_.File("exp/run.yaml")}, &out, &err, 90), 0) << err;
  ASSERT_EQ(RunHpt({"list", "-o", "csv"}, &out, &err), 0) << err;
  std::istringstream list(out);
  std::string header, row;
  std::getline(list, header);
  std::getline(list, row);
  EXPECT_EQ(header, "NAME,PHASE,ALGORITHM,TRIALS,RUNNING,PENDING,BEST");
  EXPECT_EQ(row.rfind("watched-run,Succeeded,random,3/3,0,0,", 0), 0u) << row;
  ASSERT_EQ(RunHpt({"get", "watched-run", "-o", "csv"}, &out, &err), 0) << err;
  EXPECT_EQ(out.rfind(header + "\n" + row + "\n", 0), 0u) << out;
  ASSERT_EQ(RunHpt({"best", "watched-run", "-o", "csv"}, &out, &err), 0) << err;
  EXPECT_EQ(out.rfind("trial,loss,x\nwatched-run-", 0), 0u) << out;
}

}  // namespace
}  // namespace hpt::testing
