// Store conformance: an experiment's queue and AddTrials with first
// observations (trials:enqueue, trials:import).

#include <gtest/gtest.h>

#include "tests/storage/store_conformance.h"
#include "tests/storage/store_test_util.h"

namespace hpt::storage::testing {
namespace {

TEST_P(StoreConformanceTest, QueueRoundTripsAndShrinksWithTheTrialsMadeOfIt) {
  ASSERT_TRUE(store().CreateExperiment(MakeExperiment("e")).ok());
  const std::vector<api::Assignment> queue = {{{"lr", "0.1"}}, {{"lr", "0.2"}}, {{"lr", "0.3"}}};
  ExperimentUpdate update;
  update.queue = queue;
  ASSERT_TRUE(store().UpdateExperiment("e", update).ok());
  auto got = store().GetExperiment("e");
  ASSERT_TRUE(got.ok());
  ASSERT_EQ(got->queue.size(), 3u);
  EXPECT_EQ(got->queue[1][0].value, "0.2");

  // The first becomes a trial and leaves the queue in the same write.
  NewTrials batch;
  batch.trials = {MakeTrial("t1", "0.1")};
  batch.queue = std::vector<api::Assignment>(queue.begin() + 1, queue.end());
  ASSERT_TRUE(store().AddTrials("e", batch).ok());
  got = store().GetExperiment("e");
  ASSERT_EQ(got->queue.size(), 2u);
  EXPECT_EQ(got->queue[0][0].value, "0.2");
  // A failed write changes neither.
  batch.queue = std::vector<api::Assignment>{};
  EXPECT_EQ(store().AddTrials("e", batch).code(), StatusCode::kAlreadyExists);
  EXPECT_EQ(store().GetExperiment("e")->queue.size(), 2u);
  EXPECT_EQ(store().ListTrials("e")->size(), 1u);
}

TEST_P(StoreConformanceTest, AddTrialsStoresFirstObservationsAndKeepsTheState) {
  api::Experiment e = MakeExperiment("e");
  e.algorithm_state = "state-1";
  ASSERT_TRUE(store().CreateExperiment(e).ok());
  NewTrials batch;
  batch.trials = {MakeTrial("a", "0.1"), MakeTrial("b", "0.2")};
  batch.trials[0].phase = api::TrialPhase::kSucceeded;
  api::Observation o1, o2;
  o1.step = 1;
  o1.metrics = {{"loss", 0.5}};
  o2.step = 2;
  o2.metrics = {{"loss", 0.25}, {"acc", 0.9}};
  batch.observations = {{o1, o2}, {}};
  ASSERT_TRUE(store().AddTrials("e", batch).ok());
  auto trials = store().ListTrials("e");
  ASSERT_TRUE(trials.ok());
  ASSERT_EQ(trials->size(), 2u);
  ASSERT_EQ((*trials)[0].metrics.size(), 2u);
  EXPECT_EQ((*trials)[0].metrics[1].name, "loss");
  EXPECT_EQ((*trials)[0].metrics[1].latest, 0.25);
  EXPECT_EQ((*trials)[0].metrics[1].max, 0.5);
  EXPECT_TRUE((*trials)[1].metrics.empty());
  EXPECT_EQ(store().ListObservations("e", "a")->size(), 2u);
  // algorithm_state unset: unchanged.
  EXPECT_EQ(store().GetExperiment("e")->algorithm_state, "state-1");

  batch.trials = {MakeTrial("c", "0.3")};
  batch.observations = {{o1}, {o2}};  // one list per trial, or none
  EXPECT_EQ(store().AddTrials("e", batch).code(), StatusCode::kInvalidArgument);
}

}  // namespace
}  // namespace hpt::storage::testing
