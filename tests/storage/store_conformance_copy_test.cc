// Store conformance: what a copy of another store writes through the
// interface (storage/store_copy.h): trials that keep their indexes, outputs
// without observations, audit entries that keep their ids.

#include <gtest/gtest.h>

#include "tests/storage/store_conformance.h"
#include "tests/storage/store_test_util.h"

namespace hpt::storage::testing {
namespace {

api::Trial WithIndex(const std::string& name, int64_t index) {
  api::Trial t = MakeTrial(name, "0.1");
  t.index = index;
  return t;
}

TEST_P(StoreConformanceTest, AddTrialsKeepsIndexesWhenAskedAndOnlyIncreasing) {
  ASSERT_TRUE(store().CreateExperiment(MakeExperiment("e")).ok());
  NewTrials batch;
  batch.keep_index = true;
  batch.trials = {WithIndex("a", 2), WithIndex("b", 5)};
  ASSERT_TRUE(store().AddTrials("e", batch).ok());
  // Without keep_index the next is numbered after the last, whatever it says.
  ASSERT_TRUE(store().CreateTrials("e", {WithIndex("c", 1)}, "").ok());
  auto trials = store().ListTrials("e");
  ASSERT_TRUE(trials.ok());
  ASSERT_EQ(trials->size(), 3u);
  EXPECT_EQ((*trials)[0].index, 2);
  EXPECT_EQ((*trials)[1].index, 5);
  EXPECT_EQ((*trials)[2].index, 6);
  EXPECT_EQ(store().GetTrial("e", "b")->index, 5);

  // Not above the last (6), or not increasing: refused, nothing written.
  batch.trials = {WithIndex("d", 6)};
  Status refused = store().AddTrials("e", batch);
  EXPECT_EQ(refused.code(), StatusCode::kInvalidArgument) << refused.ToString();
  EXPECT_NE(refused.message().find("trial 'd': index 6"), std::string::npos) << refused.message();
  batch.trials = {WithIndex("d", 9), WithIndex("f", 8)};
  EXPECT_EQ(store().AddTrials("e", batch).code(), StatusCode::kInvalidArgument);
  EXPECT_EQ(store().ListTrials("e")->size(), 3u);
}

TEST_P(StoreConformanceTest, AnObservationOfTextsAloneSetsOutputsOnly) {
  ASSERT_TRUE(store().CreateExperiment(MakeExperiment("e")).ok());
  NewTrials batch;
  batch.trials = {MakeTrial("t", "0.1")};
  api::Observation texts;
  texts.texts = {{"Best-Genotype", "Genotype(normal=[])"}};
  batch.observations = {{Obs(1, {{"loss", 0.5}}), texts}};
  ASSERT_TRUE(store().AddTrials("e", batch).ok());
  auto trial = store().GetTrial("e", "t");
  ASSERT_TRUE(trial.ok());
  EXPECT_EQ(trial->outputs.at("Best-Genotype"), "Genotype(normal=[])");
  ASSERT_EQ(trial->metrics.size(), 1u);
  EXPECT_EQ(trial->metrics[0].latest, 0.5);
  EXPECT_EQ(store().ListObservations("e", "t")->size(), 1u);
}

TEST_P(StoreConformanceTest, AppendAuditKeepsGivenIds) {
  AuditEntry entry;
  entry.time_ms = 100;
  entry.actor = "admin";
  entry.method = "POST";
  entry.path = "/api/v1/namespaces";
  entry.status = 201;
  std::vector<AuditEntry> kept(2, entry);
  kept[0].id = 5;
  kept[1].id = 9;
  ASSERT_TRUE(store().AppendAudit(kept).ok());
  entry.id = 0;  // the next after the largest
  ASSERT_TRUE(store().AppendAudit({entry}).ok());
  // A taken id fails its whole batch.
  std::vector<AuditEntry> clash(2, entry);
  clash[0].id = 20;
  clash[1].id = 9;
  EXPECT_EQ(store().AppendAudit(clash).code(), StatusCode::kAlreadyExists);
  auto log = store().ListAudit({});
  ASSERT_TRUE(log.ok());
  ASSERT_EQ(log->size(), 3u);
  EXPECT_EQ((*log)[0].id, 5);
  EXPECT_EQ((*log)[1].id, 9);
  EXPECT_EQ((*log)[2].id, 10);
  EXPECT_EQ((*log)[2].time_ms, 100);
}

}  // namespace
}  // namespace hpt::storage::testing
