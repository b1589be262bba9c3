// `hpt db copy FROM TO` as a user runs it: the real binary on real SQLite
// files, with real servers holding them.

#include <unistd.h>

#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <string>

#include "storage/db_lock.h"
#include "storage/store.h"
#include "tests/testing/hpt_process.h"
#include "tests/testing/temp_dir.h"

namespace hpt::testing {
namespace {

api::Experiment Finished(const std::string& ns, const std::string& name) {
  api::Experiment e;
  e.spec.name = name;
  e.spec.namespace_name = ns;
  e.spec.objective.metric_name = "loss";
  e.spec.algorithm.name = "random";
  api::ParameterSpec x;
  x.name = "x";
  x.feasible_space.min = 0;
  x.feasible_space.max = 1;
  e.spec.parameters = {x};
  e.phase = api::ExperimentPhase::kSucceeded;
  e.creation_time_ms = 1000;
  e.completion_time_ms = 2000;
  return e;
}

api::Trial Done(const std::string& name, const std::string& x) {
  api::Trial t;
  t.name = name;
  t.assignment = {{"x", x}};
  t.phase = api::TrialPhase::kSucceeded;
  t.exit_code = 0;
  return t;
}

api::Observation Loss(int64_t step, double value) {
  api::Observation o;
  o.step = step;
  o.timestamp_ms = 1500 + step;
  o.metrics = {{"loss", value}};
  return o;
}

// 2 namespaces, 1 user, 2 experiments, 3 trials, 4 observations, 2 audit
// entries, all finished: a server started on it has nothing to do.
void MakeSource(const std::string& path) {
  auto opened = storage::OpenSqliteStore(path);
  ASSERT_TRUE(opened.ok()) << opened.status().ToString();
  storage::Store& s = **opened;
  ASSERT_TRUE(s.CreateNamespace({.name = "team-a", .creation_time_ms = 10}).ok());
  ASSERT_TRUE(
      s.CreateUser({"ann", false, {{"team-a", api::Role::kMember}}, 20}, std::string(64, 'a'))
          .ok());
  ASSERT_TRUE(s.CreateExperiment(Finished("default", "cli-a")).ok());
  ASSERT_TRUE(s.CreateExperiment(Finished("team-a", "cli-b")).ok());
  ASSERT_TRUE(s.CreateTrials("cli-a", {Done("cli-a-1", "0.1"), Done("cli-a-2", "0.2")}, "").ok());
  ASSERT_TRUE(s.CreateTrials("team-a/cli-b", {Done("cli-b-1", "0.3")}, "").ok());
  ASSERT_TRUE(s.AddObservations("cli-a", "cli-a-1", {Loss(1, 0.5), Loss(2, NAN)}).ok());
  ASSERT_TRUE(s.AddObservations("cli-a", "cli-a-2", {Loss(1, 0.25)}).ok());
  ASSERT_TRUE(s.AddObservations("team-a/cli-b", "cli-b-1", {Loss(1, 0.75)}).ok());
  storage::AuditEntry entry;
  entry.time_ms = 3000;
  entry.actor = "admin";
  entry.method = "POST";
  entry.path = "/api/v1/namespaces";
  entry.status = 201;
  ASSERT_TRUE(s.AppendAudit({entry, entry}).ok());
}

int Lines(const std::string& text) {
  return static_cast<int>(std::count(text.begin(), text.end(), '\n'));
}

class DbCopyTest : public ::testing::Test {
 protected:
  void SetUp() override { ASSERT_NO_FATAL_FAILURE(MakeSource(from_)); }

  TempDir dir_;
  const std::string from_ = dir_.File("from.db");
  const std::string to_ = dir_.File("copy/to.db");
};

// Each hpt process costs about a second on a loaded machine (it loads
// libtorch's libraries): the cases share processes where they can, and
// this process holds FROM as a server does (its lock, and a connection in
// WAL mode) rather than starting one.
TEST_F(DbCopyTest, CopiesFromUnderARunningServerIntoAnEmptyTargetOnly) {
  auto lock = storage::DatabaseLock::Acquire(from_);
  ASSERT_TRUE(lock.ok()) << lock.status().ToString();
  auto server_store = storage::OpenSqliteStore(from_);
  ASSERT_TRUE(server_store.ok()) << server_store.status().ToString();
  std::string out, err;
  ASSERT_EQ(RunHpt({"db", "copy", from_, to_}, &out, &err), 0) << err;
  EXPECT_EQ(out,
            "copied 2 namespaces, 1 user, 2 experiments, 3 trials, 4 observations, 2 audit "
            "entries; every row compared equal\n");
  EXPECT_EQ(err, "");
  // hpt reads the copy.
  ASSERT_EQ(RunHpt({"list", "--db", to_, "-n", "team-a", "-o", "json"}, &out, &err), 0) << err;
  EXPECT_NE(out.find("\"cli-b\""), std::string::npos) << out;
  EXPECT_NE(out.find("\"Succeeded\""), std::string::npos) << out;

  // Not empty any more: refused, nothing written.
  const int64_t trials = SqlInt(to_, "SELECT count(*) FROM trials");
  EXPECT_EQ(RunHpt({"db", "copy", from_, to_}, &out, &err), 4);
  EXPECT_EQ(err,
            "hpt: db copy: TO: holds 2 experiments, 1 user, 1 namespace besides default and an "
            "audit log; copy into an empty database\n");
  EXPECT_EQ(out, "");
  EXPECT_EQ(SqlInt(to_, "SELECT count(*) FROM trials"), trials);

  // A server's database is no target, whatever it holds.
  EXPECT_EQ(RunHpt({"db", "copy", to_, from_}, &out, &err), 4);
  EXPECT_EQ(Lines(err), 1) << err;
  EXPECT_EQ(err.rfind("hpt: db copy: TO: database '" + from_ +
                          "' is in use by another hpt server (pid " + std::to_string(::getpid()),
                      0),
            0u)
      << err;
  EXPECT_NE(err.find("; stop it before copying into the database\n"), std::string::npos) << err;
}

TEST_F(DbCopyTest, NamesAMissingSourceInOneLineAndCreatesNoTarget) {
  std::string out, err;
  const std::string missing = dir_.File("missing.db");
  EXPECT_EQ(RunHpt({"db", "copy", missing, to_}, &out, &err), 3);
  EXPECT_EQ(err, "hpt: db copy: FROM: database '" + missing + "' not found\n");
  EXPECT_FALSE(std::filesystem::exists(to_));
}

TEST_F(DbCopyTest, UnreadableRowsAreNamedAndLeftOutOnlyWhenAsked) {
  ExecSql(from_, "UPDATE trials SET assignment_json = 'x' WHERE name = 'cli-a-2'");
  std::string out, err;
  EXPECT_EQ(RunHpt({"db", "copy", from_, to_}, &out, &err), 4);
  EXPECT_EQ(Lines(err), 1) << err;
  EXPECT_EQ(err.rfind("hpt: db copy: FROM: holds 1 row that cannot be read (experiment 'cli-a': "
                      "trial 'cli-a-2' cannot be read: ",
                      0),
            0u)
      << err;
  EXPECT_NE(err.find("leave them out with --skip-unreadable"), std::string::npos) << err;

  // Nothing was written: the same target takes the copy.
  ASSERT_EQ(RunHpt({"db", "copy", "--skip-unreadable", from_, to_}, &out, &err), 0) << err;
  EXPECT_EQ(
      err.rfind("hpt: db copy: left out: experiment 'cli-a': trial 'cli-a-2' cannot be read", 0),
      0u)
      << err;
  EXPECT_EQ(out,
            "copied 2 namespaces, 1 user, 2 experiments, 2 trials, 3 observations, 2 audit "
            "entries (1 unreadable left out); every row compared equal\n");
}

}  // namespace
}  // namespace hpt::testing
