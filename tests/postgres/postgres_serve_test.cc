// `hpt serve --db postgresql://...`: the real binary on the test server.
// Two servers share one database, and a server
// that runs an experiment's trials, is killed with SIGKILL and restarted,
// finds everything it stored.

#include <signal.h>
#include <unistd.h>

#include <chrono>
#include <fstream>
#include <iterator>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "tests/postgres/postgres_fixture.h"
#include "tests/server/specs.h"
#include "tests/testing/hpt_process.h"
#include "tests/testing/temp_dir.h"

namespace hpt::storage::testing {
namespace {

using hpt::testing::HptProcess;
using hpt::testing::RunHpt;

class PostgresServerTest : public ::testing::Test {
 protected:
  void SetUp() override {
    if (!schema_.ok())
      GTEST_SKIP() << "no PostgreSQL server for the tests: " << schema_.why();
  }
  std::vector<std::string> Args(const std::string& logs) const {
    return {"--log-dir", dir_.File(logs)};
  }

  TestSchema schema_;
  hpt::testing::TempDir dir_;
};

TEST_F(PostgresServerTest, TwoServersShareTheDatabase) {
  // Several servers on one database (each experiment driven by the one
  // holding its lease: postgres_failover_test.cc). A password the test
  // server's trust authentication ignores: it must show neither in
  // messages nor on a running server's command line.
  const std::string password = "pg-s3cret-pw";
  std::string url = schema_.url();
  ASSERT_NE(url.find("postgres@"), std::string::npos) << url;
  url.replace(url.find("postgres@"), 9, "postgres:" + password + "@");
  HptProcess first(url, Args("logs"));
  HptProcess second(url, Args("logs"));
  std::ifstream cmdline_file("/proc/" + std::to_string(first.pid()) + "/cmdline");
  const std::string cmdline((std::istreambuf_iterator<char>(cmdline_file)),
                            std::istreambuf_iterator<char>());
  EXPECT_NE(cmdline.find("postgres:" + std::string(password.size(), '*') + "@"),
            std::string::npos)
      << cmdline;
  EXPECT_EQ(cmdline.find(password), std::string::npos) << cmdline;
  nlohmann::json spec = {
      {"name", "shared"},
      {"objective", {{"type", "minimize"}, {"objectiveMetricName", "loss"}}},
      {"algorithm", {{"algorithmName", "random"}}},
      {"maxTrialCount", 3},
      {"parameters",
       {{{"name", "x"},
         {"parameterType", "double"},
         {"feasibleSpace", {{"min", "0"}, {"max", "1"}}}}}}};
  auto created = first.Client()->Json("POST", "/api/v1/experiments", spec);
  ASSERT_TRUE(created.ok()) << created.status().ToString();
  auto read = second.Client()->Json("GET", "/api/v1/experiments/shared");
  ASSERT_TRUE(read.ok()) << read.status().ToString();
  EXPECT_EQ((*read)["name"], "shared");
  // A reader needs no server.
  std::string out, err;
  EXPECT_EQ(RunHpt({"list", "--db", url}, &out, &err), 0) << err;
  EXPECT_NE(out.find("shared"), std::string::npos) << out;
  EXPECT_EQ(err.find(password), std::string::npos) << err;
  // A copy into the database does not run beside its servers (they hold
  // its lock shared, a copy needs it alone).
  EXPECT_EQ(RunHpt({"db", "copy", url, url}, &out, &err), 4) << out;
  EXPECT_NE(err.find("is in use by another hpt server (its connection: backend pid"),
            std::string::npos)
      << err;
  EXPECT_EQ(err.find(password), std::string::npos) << err;
  EXPECT_EQ(out.find(password), std::string::npos) << out;
  // A clean stop lets its leases go: the other server drives the
  // experiment at once, not after --lease-seconds (10).
  first.Kill(SIGTERM);
  const auto stopped = std::chrono::steady_clock::now();
  auto asked = second.Client()->Json("POST", "/api/v1/experiments/shared/trials:suggest",
                                     {{"count", 1}});
  EXPECT_TRUE(asked.ok()) << asked.status().ToString();
  EXPECT_LT(std::chrono::steady_clock::now() - stopped, std::chrono::seconds(5));
}

// A /metrics gauge's value, or -1 when absent.
double Gauge(const std::string& metrics, const std::string& name) {
  size_t at = metrics.find("\n" + name + " ");
  return at == std::string::npos ? -1 : std::stod(metrics.substr(at + name.size() + 2));
}

TEST_F(PostgresServerTest, DbPoolSizeCapsTheConnections) {
  std::vector<std::string> args = Args("logs");
  args.insert(args.end(), {"--db-pool-size", "2"});
  // Its connections told apart from other tests' in pg_stat_activity.
  const std::string app = "hpt_pool_test_" + std::to_string(::getpid());
  HptProcess server(schema_.url() + "&application_name=" + app, args);
  auto client = server.Client();
  nlohmann::json spec = hpt::testing::ShellExperiment(
      "pool", "for s in 1 2 3; do echo step=$s loss=$X; done", /*max_trials=*/8, /*parallel=*/4);
  ASSERT_TRUE(client->Json("POST", "/api/v1/experiments", spec).ok());
  nlohmann::json done = hpt::testing::WaitForExperiment(*client, "pool", 60);
  ASSERT_EQ(done["status"]["phase"], "Succeeded") << done.dump();
  auto metrics = client->Call("GET", "/metrics");
  ASSERT_TRUE(metrics.ok());
  EXPECT_EQ(Gauge(metrics->body, "hpt_store_connections_max"), 2) << metrics->body;
  const double open = Gauge(metrics->body, "hpt_store_connections_open");
  EXPECT_GE(open, 1) << metrics->body;
  EXPECT_LE(open, 2) << metrics->body;
  // PostgreSQL's own count of this server's connections (app: letters,
  // digits and underscores).
  const int count = std::stoi(RawPg(schema_.url())
                                  .Query("SELECT count(*) FROM pg_stat_activity "
                                         "WHERE application_name = '" + app + "'"));
  EXPECT_GE(count, 2) << "a pooled connection, and the server's lock";
  EXPECT_LE(count, 2 + 1) << "the pool, and the server's lock";
}

TEST_F(PostgresServerTest, TrialsRunAndEverythingSurvivesKill9) {
  nlohmann::json spec = {
      {"name", "pg"},
      {"objective", {{"type", "minimize"}, {"objectiveMetricName", "loss"}}},
      {"algorithm", {{"algorithmName", "random"}}},
      {"parallelTrialCount", 2},
      {"maxTrialCount", 3},
      {"parameters",
       {{{"name", "x"},
         {"parameterType", "double"},
         {"feasibleSpace", {{"min", "0"}, {"max", "1"}}}}}},
      {"trialTemplate",
       {{"command", {"sh", "-c", "echo loss=${trialParameters.x}"}},
        {"trialParameters", {{{"name", "x"}, {"reference", "x"}}}},
        {"workingDir", "/tmp"}}}};
  nlohmann::json trials_before;
  {
    HptProcess server(schema_.url(), Args("logs"));
    auto client = server.Client();
    auto created = client->Json("POST", "/api/v1/experiments", spec);
    ASSERT_TRUE(created.ok()) << created.status().ToString();
    nlohmann::json done = hpt::testing::WaitForExperiment(*client, "pg", 60);
    ASSERT_EQ(done["status"]["phase"], "Succeeded") << done.dump();
    auto trials = client->Json("GET", "/api/v1/experiments/pg/trials");
    ASSERT_TRUE(trials.ok());
    trials_before = (*trials)["trials"];
    auto metrics = client->Call("GET", "/metrics");
    ASSERT_TRUE(metrics.ok());
    EXPECT_NE(metrics->body.find("\nhpt_store_connections_open "),
              std::string::npos)
        << metrics->body;
    server.Kill(SIGKILL);
  }
  ASSERT_EQ(trials_before.size(), 3u) << trials_before.dump();
  for (const auto& t : trials_before) {
    EXPECT_EQ(t["phase"], "Succeeded") << t.dump();
    EXPECT_EQ(t["metrics"].size(), 1u)
        << t.dump();  // loss, from the trial's output
  }

  HptProcess again(schema_.url(), Args("logs"));
  auto client = again.Client();
  auto experiment = client->Json("GET", "/api/v1/experiments/pg");
  ASSERT_TRUE(experiment.ok()) << experiment.status().ToString();
  EXPECT_EQ((*experiment)["status"]["phase"], "Succeeded");
  auto trials = client->Json("GET", "/api/v1/experiments/pg/trials");
  ASSERT_TRUE(trials.ok());
  EXPECT_EQ((*trials)["trials"], trials_before);
}

}  // namespace
}  // namespace hpt::storage::testing
