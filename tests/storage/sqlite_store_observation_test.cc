// Observations and metric summaries in the SQLite store.

#include <gtest/gtest.h>

#include <cmath>
#include <memory>
#include <string>
#include <vector>

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

class SqliteStoreObservationTest : public ::testing::Test {
 protected:
  void SetUp() override {
    auto store = OpenSqliteStore(path_);
    ASSERT_TRUE(store.ok()) << store.status().ToString();
    store_ = std::move(store).value();
    ASSERT_TRUE(store_->CreateExperiment(MakeExperiment("e")).ok());
    ASSERT_TRUE(store_->CreateTrials("e", {MakeTrial("t", "0.1")}, "").ok());
  }

  api::MetricSummary Summary(const std::string& metric) {
    auto trial = store_->GetTrial("e", "t");
    EXPECT_TRUE(trial.ok()) << trial.status().ToString();
    if (!trial.ok()) return {};
    const api::MetricSummary* m = FindMetric(*trial, metric);
    EXPECT_NE(m, nullptr) << metric;
    return m ? *m : api::MetricSummary{};
  }

  Status Add(std::vector<api::Observation> obs) {
    return store_->AddObservations("e", "t", obs);
  }

  hpt::testing::TempDir dir_;
  std::string path_ = dir_.File("hpt.db");
  std::unique_ptr<Store> store_;
};

TEST_F(SqliteStoreObservationTest, SummaryWithOutOfOrderSteps) {
  ASSERT_TRUE(Add({Obs(5, {{"loss", 0.5}})}).ok());
  ASSERT_TRUE(Add({Obs(1, {{"loss", 0.1}})}).ok());
  ASSERT_TRUE(Add({Obs(3, {{"loss", 0.9}})}).ok());
  api::MetricSummary s = Summary("loss");
  EXPECT_EQ(s.min, 0.1);
  EXPECT_EQ(s.max, 0.9);
  EXPECT_EQ(s.latest, 0.5);  // the highest step, not the last write

  // Same step again: the later write wins; a lower step does not.
  ASSERT_TRUE(Add({Obs(5, {{"loss", 0.7}})}).ok());
  EXPECT_EQ(Summary("loss").latest, 0.7);
  ASSERT_TRUE(Add({Obs(4, {{"loss", 0.01}})}).ok());
  s = Summary("loss");
  EXPECT_EQ(s.latest, 0.7);
  EXPECT_EQ(s.min, 0.01);
}

TEST_F(SqliteStoreObservationTest, SummaryWithinOneBatch) {
  ASSERT_TRUE(Add({Obs(2, {{"acc", 0.4}}), Obs(9, {{"acc", 0.8}}),
                   Obs(9, {{"acc", 0.6}}), Obs(1, {{"acc", 0.9}})})
                  .ok());
  api::MetricSummary s = Summary("acc");
  EXPECT_EQ(s.min, 0.4);
  EXPECT_EQ(s.max, 0.9);
  EXPECT_EQ(s.latest, 0.6);  // step 9, second of the two writes

  // A later batch at the same top step still wins over the stored value.
  ASSERT_TRUE(Add({Obs(9, {{"acc", 0.65}}), Obs(3, {{"acc", 0.1}})}).ok());
  s = Summary("acc");
  EXPECT_EQ(s.latest, 0.65);
  EXPECT_EQ(s.min, 0.1);
}

TEST_F(SqliteStoreObservationTest, NanIsKeptButIgnoredByMinMax) {
  ASSERT_TRUE(Add({Obs(1, {{"loss", 2.0}})}).ok());
  ASSERT_TRUE(Add({Obs(2, {{"loss", NAN}})}).ok());
  api::MetricSummary s = Summary("loss");
  EXPECT_EQ(s.min, 2.0);
  EXPECT_EQ(s.max, 2.0);
  EXPECT_TRUE(std::isnan(s.latest));
  ASSERT_TRUE(Add({Obs(3, {{"loss", -INFINITY}})}).ok());
  EXPECT_EQ(Summary("loss").min, -INFINITY);

  auto obs = store_->ListObservations("e", "t");
  ASSERT_TRUE(obs.ok());
  ASSERT_EQ(obs->size(), 3u);
  EXPECT_TRUE(std::isnan((*obs)[1].metrics.at("loss")));
}

TEST_F(SqliteStoreObservationTest, ListGroupsMetricsOfOneWrite) {
  ASSERT_TRUE(Add({Obs(2, {{"loss", 0.3}, {"acc", 0.7}}, 200)}).ok());
  ASSERT_TRUE(Add({Obs(1, {{"loss", 0.5}, {"acc", 0.6}}, 100),
                   Obs(2, {{"loss", 0.2}}, 250)})
                  .ok());
  auto obs = store_->ListObservations("e", "t");
  ASSERT_TRUE(obs.ok()) << obs.status().ToString();
  ASSERT_EQ(obs->size(), 3u);
  // (step, insertion) order; two writes at step 2 stay apart.
  EXPECT_EQ((*obs)[0].step, 1);
  EXPECT_EQ((*obs)[0].timestamp_ms, 100);
  EXPECT_EQ((*obs)[0].metrics.size(), 2u);
  EXPECT_EQ((*obs)[1].step, 2);
  EXPECT_EQ((*obs)[1].timestamp_ms, 200);
  EXPECT_EQ((*obs)[1].metrics.at("acc"), 0.7);
  EXPECT_EQ((*obs)[1].metrics.at("loss"), 0.3);
  EXPECT_EQ((*obs)[2].step, 2);
  EXPECT_EQ((*obs)[2].timestamp_ms, 250);
  ASSERT_EQ((*obs)[2].metrics.size(), 1u);
  EXPECT_EQ((*obs)[2].metrics.at("loss"), 0.2);
}

TEST_F(SqliteStoreObservationTest, LargeBatchIsStored) {
  std::vector<api::Observation> batch;
  for (int i = 0; i < 1000; ++i) {
    batch.push_back(Obs(i, {{"loss", 1.0 / (i + 1)}, {"acc", i / 1000.0}}));
  }
  ASSERT_TRUE(Add(batch).ok());
  auto obs = store_->ListObservations("e", "t");
  ASSERT_TRUE(obs.ok());
  ASSERT_EQ(obs->size(), 1000u);
  EXPECT_EQ((*obs)[999].metrics.at("acc"), 0.999);
  EXPECT_EQ(Summary("loss").latest, 1.0 / 1000);
  EXPECT_EQ(Summary("acc").max, 0.999);
}

TEST_F(SqliteStoreObservationTest, FailedBatchChangesNothing) {
  ASSERT_TRUE(Add({Obs(1, {{"loss", 5}})}).ok());
  // Make the 600th row of the next batch fail, from outside the store.
  {
    RawDb raw(path_);
    raw.Exec(
        "CREATE TRIGGER reject_666 BEFORE INSERT ON observations "
        "WHEN NEW.value = 666 BEGIN SELECT RAISE(ABORT, 'no 666'); END");
  }
  std::vector<api::Observation> batch;
  for (int i = 0; i < 1000; ++i) {
    batch.push_back(Obs(10 + i, {{"loss", i == 599 ? 666.0 : 0.5}}));
  }
  Status s = Add(batch);
  EXPECT_FALSE(s.ok());
  EXPECT_NE(s.message().find("no 666"), std::string::npos) << s.ToString();

  auto obs = store_->ListObservations("e", "t");
  ASSERT_TRUE(obs.ok());
  EXPECT_EQ(obs->size(), 1u);
  api::MetricSummary m = Summary("loss");
  EXPECT_EQ(m.latest, 5);
  EXPECT_EQ(m.min, 5);

  // The store is still usable afterwards.
  ASSERT_TRUE(Add({Obs(2, {{"loss", 4}})}).ok());
  EXPECT_EQ(Summary("loss").latest, 4);
}

TEST_F(SqliteStoreObservationTest, EmptyAddIsOk) {
  EXPECT_TRUE(Add({}).ok());
  auto obs = store_->ListObservations("e", "t");
  ASSERT_TRUE(obs.ok());
  EXPECT_TRUE(obs->empty());
}

}  // namespace
}  // namespace hpt::storage
