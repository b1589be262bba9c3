// Observations in the SQLite store: a batch that fails inside SQLite. The
// behaviour every backend shares is in the conformance suite
// (store_conformance.h).

#include <gtest/gtest.h>

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

}  // namespace
}  // namespace hpt::storage

namespace hpt::storage {
namespace {

// Text a trial reports (a DARTS genotype) is kept as its outputs, the last
// text of each name winning, across writes and a reopen of the file.
TEST(SqliteStoreOutputsTest, TextsBecomeTheTrialsOutputsAndSurviveAReopen) {
  hpt::testing::TempDir dir;
  const std::string path = dir.File("hpt.db");
  {
    auto store = OpenSqliteStore(path);
    ASSERT_TRUE(store.ok()) << store.status().ToString();
    ASSERT_TRUE((*store)->CreateExperiment(testing::MakeExperiment("e")).ok());
    ASSERT_TRUE((*store)->CreateTrials("e", {testing::MakeTrial("t", "0.1")}, "").ok());
    api::Observation first;
    first.step = 1;
    first.metrics = {{"loss", 0.5}};
    first.texts = {{"Best-Genotype", "Genotype(normal=[[('a', 0)]])"}, {"note", "it's \"x\""}};
    ASSERT_TRUE((*store)->AddObservations("e", "t", {first}).ok());
    api::Observation second;
    second.step = 1;
    second.texts = {{"Best-Genotype", "Genotype(normal=[[('b', 1)]])"}};
    ASSERT_TRUE((*store)->AddObservations("e", "t", {second}).ok());
  }
  auto store = OpenSqliteStore(path);
  ASSERT_TRUE(store.ok());
  auto trial = (*store)->GetTrial("e", "t");
  ASSERT_TRUE(trial.ok());
  EXPECT_EQ(trial->outputs, (std::map<std::string, std::string>{
                                {"Best-Genotype", "Genotype(normal=[[('b', 1)]])"},
                                {"note", "it's \"x\""}}));
  // Text is no point of a curve.
  auto observations = (*store)->ListObservations("e", "t");
  ASSERT_TRUE(observations.ok());
  ASSERT_EQ(observations->size(), 1u);
  EXPECT_EQ((*observations)[0].metrics.size(), 1u);
}

}  // namespace
}  // namespace hpt::storage
