// Experiments and trials in the SQLite store: what its file holds. The
// behaviour every backend shares is in the conformance suite
// (store_conformance.h, sqlite_store_conformance_test.cc).

#include <gtest/gtest.h>

#include <memory>
#include <string>

#include "storage/store.h"
#include "tests/storage/store_test_util.h"
#include "tests/testing/temp_dir.h"

namespace hpt::storage {
namespace {

using testing::MakeExperiment;
using testing::MakeTrial;
using testing::Obs;
using testing::RawDb;

class SqliteStoreTest : public ::testing::Test {
 protected:
  void SetUp() override {
    auto store = OpenSqliteStore(path_);
    ASSERT_TRUE(store.ok()) << store.status().ToString();
    store_ = std::move(store).value();
  }

  hpt::testing::TempDir dir_;
  std::string path_ = dir_.File("hpt.db");
  std::unique_ptr<Store> store_;
};

TEST_F(SqliteStoreTest, DeleteExperimentLeavesNoRows) {
  ASSERT_TRUE(store_->CreateExperiment(MakeExperiment("gone")).ok());
  ASSERT_TRUE(store_->CreateExperiment(MakeExperiment("kept")).ok());
  for (const char* exp : {"gone", "kept"}) {
    ASSERT_TRUE(store_->CreateTrials(exp, {MakeTrial("t1", "0.1")}, "").ok());
    ASSERT_TRUE(
        store_->AddObservations(exp, "t1", {Obs(1, {{"loss", 1}, {"acc", 0}})})
            .ok());
  }
  ASSERT_TRUE(store_->DeleteExperiment("gone").ok());

  RawDb raw(path_);
  EXPECT_EQ(raw.Count("experiments"), 1);
  EXPECT_EQ(raw.Count("trials"), 1);
  EXPECT_EQ(raw.Count("trial_metrics"), 2);
  EXPECT_EQ(raw.Count("observations"), 2);
}

TEST_F(SqliteStoreTest, JobIdIsStoredInItsOwnColumn) {
  ASSERT_TRUE(store_->CreateExperiment(MakeExperiment("e")).ok());
  api::Trial t = MakeTrial("t1", "0.1");
  t.job_id = "local:1";
  ASSERT_TRUE(store_->CreateTrials("e", {t}, "").ok());
  EXPECT_EQ(RawDb(path_).Query("SELECT job_id FROM trials WHERE name = 't1'"),
            "local:1");
}

}  // namespace
}  // namespace hpt::storage
