#include <sys/stat.h>
// Opening, reopening and crashing: what survives in the SQLite file.

#include <gtest/gtest.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <filesystem>
#include <memory>
#include <string>

#include "storage/sqlite_schema.h"
#include "storage/store.h"
#include "tests/storage/store_test_util.h"
#include "tests/testing/temp_dir.h"

namespace hpt::storage {
namespace {

using testing::FindMetric;
using testing::MakeExperiment;
using testing::MakeTrial;
using testing::Obs;
using testing::RawDb;

std::unique_ptr<Store> MustOpen(const std::string& path,
                                const SqliteOptions& options = {}) {
  auto store = OpenSqliteStore(path, options);
  EXPECT_TRUE(store.ok()) << store.status().ToString();
  return store.ok() ? std::move(store).value() : nullptr;
}

// Writes one of everything.
void Populate(Store& store) {
  ASSERT_TRUE(store.CreateExperiment(MakeExperiment("e")).ok());
  ASSERT_TRUE(store.CreateTrials("e", {MakeTrial("e-1", "0.5")}, "st").ok());
  TrialUpdate u;
  u.phase = api::TrialPhase::kSucceeded;
  u.exit_code = 0;
  ASSERT_TRUE(store.UpdateTrial("e", "e-1", u).ok());
  ASSERT_TRUE(
      store
          .AddObservations("e", "e-1",
                           {Obs(1, {{"acc", 0.5}}), Obs(2, {{"acc", 0.75}})})
          .ok());
}

// Checks what Populate wrote.
void ExpectPopulated(Store& store) {
  auto e = store.GetExperiment("e");
  ASSERT_TRUE(e.ok()) << e.status().ToString();
  EXPECT_EQ(e->algorithm_state, "st");
  auto t = store.GetTrial("e", "e-1");
  ASSERT_TRUE(t.ok()) << t.status().ToString();
  EXPECT_EQ(t->phase, api::TrialPhase::kSucceeded);
  EXPECT_EQ(t->exit_code, 0);
  const api::MetricSummary* acc = FindMetric(*t, "acc");
  ASSERT_NE(acc, nullptr);
  EXPECT_EQ(acc->latest, 0.75);
  auto obs = store.ListObservations("e", "e-1");
  ASSERT_TRUE(obs.ok());
  EXPECT_EQ(obs->size(), 2u);
}

TEST(SqliteStoreDurabilityTest, ReopenSeesEverything) {
  hpt::testing::TempDir dir;
  const std::string path = dir.File("hpt.db");
  {
    auto store = MustOpen(path);
    ASSERT_NE(store, nullptr);
    Populate(*store);
  }
  auto store = MustOpen(path);
  ASSERT_NE(store, nullptr);
  ExpectPopulated(*store);
}

TEST(SqliteStoreDurabilityTest, ReopenWithFullSync) {
  hpt::testing::TempDir dir;
  const std::string path = dir.File("hpt.db");
  SqliteOptions options;
  options.synchronous_full = true;
  {
    auto store = MustOpen(path, options);
    ASSERT_NE(store, nullptr);
    Populate(*store);
  }
  auto store = MustOpen(path);
  ASSERT_NE(store, nullptr);
  ExpectPopulated(*store);
}

TEST(SqliteStoreDurabilityTest, SurvivesKilledProcess) {
  hpt::testing::TempDir dir;
  const std::string path = dir.File("hpt.db");
  pid_t pid = fork();
  ASSERT_GE(pid, 0);
  if (pid == 0) {
    // Child: write, then die without closing anything.
    auto store = OpenSqliteStore(path);
    if (!store.ok()) _exit(2);
    Populate(**store);
    if (::testing::Test::HasFailure()) _exit(3);
    raise(SIGKILL);
    _exit(4);
  }
  int wstatus = 0;
  ASSERT_EQ(waitpid(pid, &wstatus, 0), pid);
  ASSERT_TRUE(WIFSIGNALED(wstatus)) << "child exit " << WEXITSTATUS(wstatus);
  auto store = MustOpen(path);
  ASSERT_NE(store, nullptr);
  ExpectPopulated(*store);
}

TEST(SqliteStoreDurabilityTest, CreatesParentFoldersAndUsesWal) {
  hpt::testing::TempDir dir;
  const std::string path = dir.File("a/b/c/hpt.db");
  auto store = MustOpen(path);
  ASSERT_NE(store, nullptr);
  EXPECT_TRUE(std::filesystem::exists(path));
  RawDb raw(path);
  EXPECT_EQ(raw.Query("PRAGMA journal_mode"), "wal");
  EXPECT_EQ(raw.Query("PRAGMA user_version"), std::to_string(sqlite::LatestSchemaVersion()));
  // Private to the server's user: the database holds what trials run.
  struct stat st;
  ASSERT_EQ(stat(path.c_str(), &st), 0);
  EXPECT_EQ(st.st_mode & 0777, 0600u);
  ASSERT_EQ(stat(dir.File("a/b").c_str(), &st), 0);
  EXPECT_EQ(st.st_mode & 0777, 0700u);
}

// Takes a database back to version 7 (user attributes undone).
void UndoVersion8(RawDb& raw) {
  raw.Exec("ALTER TABLE trials DROP COLUMN user_attrs_json");
  raw.Exec("ALTER TABLE experiments DROP COLUMN user_attrs_json");
}

// Takes a database back to what version 6 wrote (8 and 7 undone).
void UndoVersion7(RawDb& raw) {
  UndoVersion8(raw);
  raw.Exec("ALTER TABLE trials DROP COLUMN preemptions");
}

// Takes a database back to version 5 (versions 7 and 6 undone).
void UndoVersion6(RawDb& raw) {
  UndoVersion7(raw);
  raw.Exec("DROP INDEX experiments_by_namespace");
  raw.Exec("ALTER TABLE experiments DROP COLUMN namespace");
  raw.Exec("DROP TABLE namespaces");
  raw.Exec("DROP TABLE users");
  raw.Exec("DROP TABLE audit");
}

// A database written by version 1 (no job_id, no outputs_json, no
// queue_json column) opens and migrates, keeping its trials.
TEST(SqliteStoreDurabilityTest, MigratesVersion1Trials) {
  hpt::testing::TempDir dir;
  const std::string path = dir.File("hpt.db");
  ASSERT_NE(MustOpen(path), nullptr);
  {
    RawDb raw(path);
    UndoVersion6(raw);
    raw.Exec("ALTER TABLE trials DROP COLUMN job_id");
    raw.Exec("ALTER TABLE trials DROP COLUMN outputs_json");
    raw.Exec("ALTER TABLE experiments DROP COLUMN queue_json");
    raw.Exec("ALTER TABLE experiments DROP COLUMN trial_token_salt");
    raw.Exec("PRAGMA user_version = 1");
  }
  auto store = MustOpen(path);
  ASSERT_NE(store, nullptr);
  RawDb raw(path);
  EXPECT_EQ(raw.Query("SELECT COUNT(*) FROM pragma_table_info('trials') WHERE name = 'job_id'"),
            "1");
  EXPECT_EQ(raw.Query("SELECT COUNT(*) FROM pragma_table_info('trials') WHERE name = "
                      "'outputs_json'"),
            "1");
  EXPECT_EQ(raw.Query("SELECT COUNT(*) FROM pragma_table_info('experiments') WHERE name = "
                      "'queue_json'"),
            "1");
  EXPECT_EQ(raw.Query("SELECT COUNT(*) FROM pragma_table_info('experiments') WHERE name = "
                      "'trial_token_salt'"),
            "1");
  EXPECT_EQ(raw.Query("PRAGMA user_version"), std::to_string(sqlite::LatestSchemaVersion()));
}

// Version 5 binds trial tokens to a per-experiment secret: experiments
// stored before it read back with none (their trials keep the tokens they
// were given), new ones keep theirs.
TEST(SqliteStoreDurabilityTest, ExperimentsFromBeforeTokenSaltsReadWithNone) {
  hpt::testing::TempDir dir;
  const std::string path = dir.File("hpt.db");
  {
    auto store = MustOpen(path);
    ASSERT_NE(store, nullptr);
    api::Experiment old = MakeExperiment("old");
    old.trial_token_salt = "dropped-by-the-downgrade";
    ASSERT_TRUE(store->CreateExperiment(old).ok());
  }
  {
    RawDb raw(path);
    UndoVersion6(raw);
    raw.Exec("ALTER TABLE experiments DROP COLUMN trial_token_salt");
    raw.Exec("PRAGMA user_version = 4");
  }
  auto store = MustOpen(path);
  ASSERT_NE(store, nullptr);
  auto old = store->GetExperiment("old");
  ASSERT_TRUE(old.ok()) << old.status().ToString();
  EXPECT_EQ(old->trial_token_salt, "");
  api::Experiment fresh = MakeExperiment("fresh");
  fresh.trial_token_salt = "0123456789abcdef";
  ASSERT_TRUE(store->CreateExperiment(fresh).ok());
  EXPECT_EQ(store->GetExperiment("fresh")->trial_token_salt, "0123456789abcdef");
}

// Version 6 adds namespaces: a database from before them opens with every
// experiment in `default`, under the name it had, trials and all.
TEST(SqliteStoreDurabilityTest, ExperimentsFromBeforeNamespacesAreInDefault) {
  hpt::testing::TempDir dir;
  const std::string path = dir.File("hpt.db");
  {
    auto store = MustOpen(path);
    ASSERT_NE(store, nullptr);
    ASSERT_TRUE(store->CreateExperiment(MakeExperiment("old")).ok());
    ASSERT_TRUE(store->CreateTrials("old", {MakeTrial("t", "0.1")}, "").ok());
  }
  {
    RawDb raw(path);
    UndoVersion6(raw);
    raw.Exec("PRAGMA user_version = 5");
  }
  auto store = MustOpen(path);
  ASSERT_NE(store, nullptr);
  auto old = store->GetExperiment("old");
  ASSERT_TRUE(old.ok()) << old.status().ToString();
  EXPECT_EQ(old->spec.namespace_name, "default");
  EXPECT_EQ(store->ListTrials("old")->size(), 1u);
  EXPECT_EQ(*store->CountExperiments("default"), 1);
  EXPECT_TRUE(store->GetNamespace("default").ok());
}

// Version 7 counts preemptions: trials stored before read back with none,
// and a count stored now survives.
TEST(SqliteStoreDurabilityTest, TrialsFromBeforePreemptionCountsHaveNone) {
  hpt::testing::TempDir dir;
  const std::string path = dir.File("hpt.db");
  {
    auto store = MustOpen(path);
    ASSERT_NE(store, nullptr);
    ASSERT_TRUE(store->CreateExperiment(MakeExperiment("old")).ok());
    ASSERT_TRUE(store->CreateTrials("old", {MakeTrial("t", "0.1")}, "").ok());
  }
  {
    RawDb raw(path);
    UndoVersion7(raw);
    raw.Exec("PRAGMA user_version = 6");
  }
  auto store = MustOpen(path);
  ASSERT_NE(store, nullptr);
  EXPECT_EQ(store->GetTrial("old", "t")->preemptions, 0);
  TrialUpdate u;
  u.preemptions = 2;
  ASSERT_TRUE(store->UpdateTrial("old", "t", u).ok());
  EXPECT_EQ(store->GetTrial("old", "t")->preemptions, 2);
  EXPECT_EQ(RawDb(path).Query("PRAGMA user_version"),
            std::to_string(sqlite::LatestSchemaVersion()));
}

TEST(SqliteStoreDurabilityTest, RefusesNewerSchema) {
  hpt::testing::TempDir dir;
  const std::string path = dir.File("hpt.db");
  ASSERT_NE(MustOpen(path), nullptr);
  RawDb(path).Exec("PRAGMA user_version = 99");
  auto store = OpenSqliteStore(path);
  ASSERT_FALSE(store.ok());
  EXPECT_EQ(store.status().code(), StatusCode::kFailedPrecondition);
  EXPECT_NE(store.status().message().find("schema version 99"),
            std::string::npos)
      << store.status().ToString();
}

TEST(SqliteStoreDurabilityTest, UnusablePathIsAnErrorNotACrash) {
  hpt::testing::TempDir dir;
  hpt::testing::WriteFile(dir.File("plain"), "not a folder");
  auto store = OpenSqliteStore(dir.File("plain/hpt.db"));
  ASSERT_FALSE(store.ok());
  EXPECT_NE(store.status().message().find("plain"), std::string::npos)
      << store.status().ToString();

  hpt::testing::WriteFile(dir.File("junk.db"), std::string(8192, 'x'));
  store = OpenSqliteStore(dir.File("junk.db"));
  EXPECT_FALSE(store.ok());
}

}  // namespace
}  // namespace hpt::storage
