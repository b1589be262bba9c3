// Optuna's user attributes in the SQLite store (#33): a trial's and an
// experiment's, stored as one JSON object each, written whole by the
// runner (TrialUpdate/ExperimentUpdate::user_attrs) and left as they are by
// every other update; a database from schema 7 gains them empty.

#include <gtest/gtest.h>

#include <memory>
#include <string>

#include "api/user_attrs.h"
#include "storage/sqlite_schema.h"
#include "storage/store.h"
#include "tests/storage/store_test_util.h"
#include "tests/testing/temp_dir.h"

namespace hpt::storage {
namespace {

using testing::MakeExperiment;
using testing::MakeTrial;
using testing::RawDb;

std::unique_ptr<Store> MustOpenStore(const std::string& path) {
  auto store = OpenSqliteStore(path);
  EXPECT_TRUE(store.ok()) << store.status().ToString();
  return store.ok() ? std::move(store).value() : nullptr;
}

const api::UserAttrs kAttrs = {{"fold", "3"},
                               {"note", "\"<b>kept as text</b>\""},
                               {"nested", "{\"a\":[1,null,true]}"},
                               {"none", "null"}};

TEST(SqliteStoreUserAttrsTest, TrialAndExperimentAttrsSurviveAReopenAndOtherUpdates) {
  hpt::testing::TempDir dir;
  const std::string path = dir.File("hpt.db");
  {
    auto store = MustOpenStore(path);
    ASSERT_NE(store, nullptr);
    ASSERT_TRUE(store->CreateExperiment(MakeExperiment("e")).ok());
    ASSERT_TRUE(store->CreateTrials("e", {MakeTrial("e-1", "0.5")}, "").ok());
    EXPECT_TRUE(store->GetTrial("e", "e-1")->user_attrs.empty());
    EXPECT_TRUE(store->GetExperiment("e")->user_attrs.empty());
    TrialUpdate attrs;
    attrs.user_attrs = kAttrs;
    ASSERT_TRUE(store->UpdateTrial("e", "e-1", attrs).ok());
    ExperimentUpdate exp_attrs;
    exp_attrs.user_attrs = api::UserAttrs{{"dataset", "\"mnist\""}};
    ASSERT_TRUE(store->UpdateExperiment("e", exp_attrs).ok());
    // Updates without user_attrs leave them.
    TrialUpdate phase;
    phase.phase = api::TrialPhase::kSucceeded;
    ASSERT_TRUE(store->UpdateTrial("e", "e-1", phase).ok());
    ExperimentUpdate reason;
    reason.reason = "Running";
    ASSERT_TRUE(store->UpdateExperiment("e", reason).ok());
  }
  auto store = MustOpenStore(path);
  ASSERT_NE(store, nullptr);
  auto t = store->GetTrial("e", "e-1");
  ASSERT_TRUE(t.ok()) << t.status().ToString();
  EXPECT_EQ(t->user_attrs, kAttrs);
  EXPECT_EQ(t->phase, api::TrialPhase::kSucceeded);
  auto listed = store->ListTrials("e");
  ASSERT_TRUE(listed.ok());
  EXPECT_EQ(listed->at(0).user_attrs, kAttrs);
  EXPECT_EQ(store->GetExperiment("e")->user_attrs, (api::UserAttrs{{"dataset", "\"mnist\""}}));
  EXPECT_EQ(store->ListExperiments()->at(0).user_attrs,
            (api::UserAttrs{{"dataset", "\"mnist\""}}));
}

// Version 8 adds the columns: rows from version 7 read with none, and
// attributes set afterwards are kept.
TEST(SqliteStoreUserAttrsTest, MigratesFromVersion7) {
  hpt::testing::TempDir dir;
  const std::string path = dir.File("hpt.db");
  {
    auto store = MustOpenStore(path);
    ASSERT_NE(store, nullptr);
    ASSERT_TRUE(store->CreateExperiment(MakeExperiment("old")).ok());
    ASSERT_TRUE(store->CreateTrials("old", {MakeTrial("t", "0.1")}, "").ok());
  }
  {
    RawDb raw(path);
    raw.Exec("ALTER TABLE trials DROP COLUMN user_attrs_json");
    raw.Exec("ALTER TABLE experiments DROP COLUMN user_attrs_json");
    raw.Exec("PRAGMA user_version = 7");
  }
  auto store = MustOpenStore(path);
  ASSERT_NE(store, nullptr);
  EXPECT_EQ(RawDb(path).Query("PRAGMA user_version"),
            std::to_string(sqlite::LatestSchemaVersion()));
  EXPECT_EQ(sqlite::LatestSchemaVersion(), 8);
  auto t = store->GetTrial("old", "t");
  ASSERT_TRUE(t.ok()) << t.status().ToString();
  EXPECT_TRUE(t->user_attrs.empty());
  TrialUpdate u;
  u.user_attrs = api::UserAttrs{{"k", "1.5"}};
  ASSERT_TRUE(store->UpdateTrial("old", "t", u).ok());
  EXPECT_EQ(store->GetTrial("old", "t")->user_attrs, (api::UserAttrs{{"k", "1.5"}}));
  EXPECT_EQ(RawDb(path).Query("SELECT user_attrs_json FROM trials"), "{\"k\":1.5}");
}

// A damaged column leaves the attributes empty, not the trial unreadable.
TEST(SqliteStoreUserAttrsTest, ADamagedColumnReadsAsNone) {
  hpt::testing::TempDir dir;
  const std::string path = dir.File("hpt.db");
  {
    auto store = MustOpenStore(path);
    ASSERT_NE(store, nullptr);
    ASSERT_TRUE(store->CreateExperiment(MakeExperiment("e")).ok());
    ASSERT_TRUE(store->CreateTrials("e", {MakeTrial("t", "0.1")}, "").ok());
  }
  RawDb(path).Exec("UPDATE trials SET user_attrs_json = '[1, 2'");
  auto store = MustOpenStore(path);
  ASSERT_NE(store, nullptr);
  auto t = store->GetTrial("e", "t");
  ASSERT_TRUE(t.ok()) << t.status().ToString();
  EXPECT_TRUE(t->user_attrs.empty());
}

}  // namespace
}  // namespace hpt::storage
