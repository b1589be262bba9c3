// A namespace's runAsUser end to end below the HTTP layer: an experiment
// runner whose RunnerDeps::run_as_user_of names a real test user, over a
// real SQLite database made as `hpt serve` makes it, a token file kept as
// `hpt serve` keeps it, and the real local executor running each trial
// under `hpt trial-shim`. The trials run as the user, write their own
// checkpoint folders, and read neither the database nor the token.
#include <gtest/gtest.h>
#include <sys/stat.h>

#include <atomic>
#include <chrono>
#include <memory>
#include <thread>

#include "api/private_files.h"
#include "api/spec_codec.h"
#include "controller/builtins.h"
#include "controller/experiment_runner.h"
#include "controller/trial_token.h"
#include "storage/store.h"
#include "tests/controller/controller_fixture.h"
#include "tests/testing/temp_dir.h"
#include "tests/testing/test_users.h"
#include "trial-runner/executor.h"
#include "trial-runner/run_as.h"

namespace hpt::controller {
namespace {

using hpt::testing::TempDir;
using hpt::testing::WriteFile;

unsigned RunAsMode(const std::string& path) {
  struct stat st {};
  EXPECT_EQ(::stat(path.c_str(), &st), 0) << path;
  return st.st_mode & 0777;
}

double Latest(const api::Trial& trial, const std::string& metric) {
  for (const api::MetricSummary& m : trial.metrics) {
    if (m.name == metric) return m.latest;
  }
  ADD_FAILURE() << trial.name << " has no " << metric << ": " << trial.message;
  return -1;
}

// pbt, so that each trial gets a checkpoint folder; two trials of the
// first generation. Each prints what it can do as metrics.
nlohmann::json Spec(const std::string& script) {
  return {{"name", "ra"},
          {"objective",
           {{"type", "maximize"},
            {"objectiveMetricName", "acc"},
            {"additionalMetricNames",
             {"uid", "gid", "db_seen", "db_rc", "wal_rc", "shm_rc", "token_rc", "ckpt_rc",
              "list_rc"}}}},
          {"algorithm",
           {{"algorithmName", "pbt"},
            {"algorithmSettings",
             {{{"name", "n_population"}, {"value", "5"}},
              {{"name", "random_state"}, {"value", "3"}}}}}},
          {"parallelTrialCount", 2},
          {"maxTrialCount", 2},
          {"maxFailedTrialCount", 2},
          {"parameters",
           {{{"name", "lr"},
             {"parameterType", "double"},
             {"feasibleSpace", {{"min", "0.1"}, {"max", "0.2"}}}}}},
          {"trialTemplate",
           {{"command", {"/bin/sh", "-c", script, "--lr=${trialParameters.lr}"}},
            {"trialParameters", {{{"name", "lr"}, {"reference", "lr"}}}},
            {"workingDir", "/"}}}};
}

class RunAsRunnerTest : public ::testing::Test, public runner::ExecutorListener {
 protected:
  void SetUp() override {
    if (std::string why = hpt::testing::TestUsersProblem(); !why.empty()) GTEST_SKIP() << why;
    // An admin's server folder others may pass through (the database's
    // own folder, which hpt makes 0700, opened for checkpoints under it).
    ASSERT_EQ(::chmod(dir_.path().c_str(), 0711), 0);
    db_ = dir_.File("data/hpt.db");
    auto store = storage::OpenSqliteStore(db_);
    ASSERT_TRUE(store.ok()) << store.status().ToString();
    store_ = std::move(store).value();
    ASSERT_EQ(::chmod(dir_.File("data").c_str(), 0711), 0);
    // A token file written with the usual umask, which `hpt serve` makes
    // private before it serves.
    token_ = dir_.File("data/token");
    WriteFile(token_, "admin-token\n");
    ASSERT_EQ(::chmod(token_.c_str(), 0644), 0);
    ASSERT_TRUE(api::RestrictToOwner(token_).ok());

    runner::LocalExecutorOptions options;
    options.shim_command = {HPT_BINARY, "trial-shim"};
    executor_ = runner::NewLocalExecutor(this, options);
    executors_["local"] = executor_.get();
    builtins_ = NewBuiltins();
    deps_.store = store_.get();
    deps_.algorithms = &builtins_->algorithms;
    deps_.policies = &builtins_->policies;
    deps_.executors = &executors_;
    deps_.default_executor = "local";
    deps_.stopping = &stopping_;
    deps_.server_url = "http://127.0.0.1:9";
    deps_.token = "admin-token";
    deps_.log_dir = dir_.File("data/logs");
    deps_.run_as_user_of = [](const std::string& ns) {
      return ns == "team" ? std::string(hpt::testing::kTestUser1) : "";
    };
  }

  void TearDown() override {
    executor_.reset();  // no more callbacks; every trial has ended
    runner_.reset();
  }

  // Creates the experiment as the Controller does, and runs it.
  void Run(const nlohmann::json& spec) {
    auto parsed = api::SpecFromJson(spec);
    ASSERT_TRUE(parsed.ok()) << parsed.status().ToString();
    api::Experiment exp;
    exp.spec = *parsed;
    exp.spec.namespace_name = "team";  // whose runAsUser is kTestUser1
    exp.phase = api::ExperimentPhase::kRunning;
    exp.trial_token_salt = NewTrialTokenSalt();
    api::Namespace team;
    team.name = "team";
    (void)store_->CreateNamespace(team);  // AlreadyExists on a second Run()
    ASSERT_TRUE(store_->CreateExperiment(exp).ok());
    runner_ = std::make_shared<ExperimentRunner>(deps_, exp, std::vector<api::Trial>{});
    runner_->Reconcile();
  }

  bool WaitForEnd(std::chrono::seconds timeout = std::chrono::seconds(20)) {
    return testing::WaitFor(
        [&] {
          auto e = store_->GetExperiment("team/ra");
          return e.ok() && e->phase != api::ExperimentPhase::kRunning;
        },
        timeout);
  }

  // As the Controller hands the executor's events to the runner.
  void OnObservation(const std::string&, const std::string& trial,
                     const api::Observation& observation) override {
    runner_->OnObservation(trial, observation);
  }
  void OnExit(const std::string&, const std::string& trial,
              const runner::ExitInfo& info) override {
    runner_->NoteExitDelivered(trial);
    runner_->OnExit(trial, info);
    runner_->Reconcile();
  }

  TempDir dir_;
  std::string db_;
  std::string token_;
  std::unique_ptr<storage::Store> store_;
  std::unique_ptr<Builtins> builtins_;
  std::unique_ptr<runner::Executor> executor_;
  std::map<std::string, runner::Executor*> executors_;
  std::atomic<bool> stopping_{false};
  RunnerDeps deps_;
  std::shared_ptr<ExperimentRunner> runner_;
};

TEST_F(RunAsRunnerTest, TrialsRunAsTheNamespacesUserAndCannotReadTheServersFiles) {
  auto rc = [](const std::string& name, const std::string& command) {
    return command + " >/dev/null 2>&1; echo " + name + "=$?; ";
  };
  const std::string script =
      "echo uid=$(id -u) gid=$(id -g); " + rc("db_seen", "test -e " + db_) +
      rc("db_rc", "cat " + db_) + rc("wal_rc", "cat " + db_ + "-wal") +
      rc("shm_rc", "cat " + db_ + "-shm") + rc("token_rc", "cat " + token_) +
      rc("ckpt_rc", "echo weights > \"$HPT_CHECKPOINT_DIR/model\"") +
      rc("list_rc", "ls \"$HPT_CHECKPOINT_DIR/..\"") + "echo acc=1";
  Run(Spec(script));
  ASSERT_TRUE(WaitForEnd());
  auto exp = store_->GetExperiment("team/ra");
  ASSERT_TRUE(exp.ok());
  EXPECT_EQ(exp->phase, api::ExperimentPhase::kSucceeded) << exp->message;
  const runner::RunAs user = *runner::ResolveRunAs(hpt::testing::kTestUser1);
  auto trials = store_->ListTrials("team/ra");
  ASSERT_TRUE(trials.ok());
  ASSERT_EQ(trials->size(), 2u);
  for (const api::Trial& t : *trials) {
    SCOPED_TRACE(t.name + ": " + t.message);
    EXPECT_EQ(t.phase, api::TrialPhase::kSucceeded);
    EXPECT_EQ(Latest(t, "uid"), user.uid);
    EXPECT_EQ(Latest(t, "gid"), user.gid);
    EXPECT_EQ(Latest(t, "db_seen"), 0) << "the database is in its reach";
    EXPECT_EQ(Latest(t, "db_rc"), 1) << "and closed to it";
    EXPECT_EQ(Latest(t, "wal_rc"), 1);
    EXPECT_EQ(Latest(t, "shm_rc"), 1);
    EXPECT_EQ(Latest(t, "token_rc"), 1);
    EXPECT_EQ(Latest(t, "ckpt_rc"), 0) << "its checkpoint folder is its own";
    EXPECT_GT(Latest(t, "list_rc"), 0) << "the others' are not listed";
    const std::string folder = dir_.File("data/logs/_ns/team/ra/checkpoints/" + t.name);
    struct stat st {};
    ASSERT_EQ(::stat(folder.c_str(), &st), 0);
    EXPECT_EQ(st.st_uid, user.uid);
    EXPECT_EQ(st.st_mode & 0777, 0700u);
  }
  // Each is there (a trial that found none would have failed as well).
  EXPECT_EQ(RunAsMode(db_), 0600u);
  EXPECT_EQ(RunAsMode(db_ + "-wal"), 0600u);
  EXPECT_EQ(RunAsMode(db_ + "-shm"), 0600u);
  EXPECT_EQ(RunAsMode(token_), 0600u);
  EXPECT_EQ(RunAsMode(dir_.File("data/logs")), 0711u);
  EXPECT_EQ(RunAsMode(dir_.File("data/logs/_ns")), 0711u);
  EXPECT_EQ(RunAsMode(dir_.File("data/logs/_ns/team")), 0711u);
  EXPECT_EQ(RunAsMode(dir_.File("data/logs/_ns/team/ra")), 0711u);
  EXPECT_EQ(RunAsMode(dir_.File("data/logs/_ns/team/ra/checkpoints")), 0711u);
  EXPECT_EQ(RunAsMode(dir_.File("data/logs/_ns/team/ra/ra-1.log")), 0600u);
}

TEST_F(RunAsRunnerTest, ADatabaseFolderTheUserCannotPassFailsWithWhatToDo) {
  ASSERT_EQ(::chmod(dir_.File("data").c_str(), 0700), 0);
  Run(Spec("echo acc=1"));
  ASSERT_TRUE(WaitForEnd());
  auto exp = store_->GetExperiment("team/ra");
  ASSERT_TRUE(exp.ok());
  EXPECT_EQ(exp->phase, api::ExperimentPhase::kFailed);
  EXPECT_NE(exp->message.find("runAsUser 'hpt-test-ru1' cannot reach " +
                              dir_.File("data/logs/_ns/team/ra/checkpoints") + ": the folder " +
                              dir_.File("data") + " (mode 0700"),
            std::string::npos)
      << exp->message;
}

}  // namespace
}  // namespace hpt::controller
