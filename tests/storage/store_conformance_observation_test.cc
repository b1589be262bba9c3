// Store conformance: observations, metric summaries, curves and unreadable
// rows (store_conformance.h).

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <atomic>
#include <cmath>
#include <string>
#include <thread>
#include <vector>

#include "tests/storage/store_conformance.h"
#include "tests/storage/store_test_util.h"

namespace hpt::storage::testing {
namespace {

using ::testing::HasSubstr;

TEST_P(StoreConformanceObservationTest, SummaryWithOutOfOrderSteps) {
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

TEST_P(StoreConformanceObservationTest, SummaryWithinOneBatch) {
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

TEST_P(StoreConformanceObservationTest, NanIsKeptButIgnoredByMinMax) {
  ASSERT_TRUE(Add({Obs(1, {{"loss", 2.0}})}).ok());
  ASSERT_TRUE(Add({Obs(2, {{"loss", NAN}})}).ok());
  api::MetricSummary s = Summary("loss");
  EXPECT_EQ(s.min, 2.0);
  EXPECT_EQ(s.max, 2.0);
  EXPECT_TRUE(std::isnan(s.latest));
  ASSERT_TRUE(Add({Obs(3, {{"loss", -INFINITY}})}).ok());
  EXPECT_EQ(Summary("loss").min, -INFINITY);

  auto obs = store().ListObservations("e", "t");
  ASSERT_TRUE(obs.ok());
  ASSERT_EQ(obs->size(), 3u);
  EXPECT_TRUE(std::isnan((*obs)[1].metrics.at("loss")));
}

TEST_P(StoreConformanceObservationTest, OnlyNanGivesNanSummary) {
  ASSERT_TRUE(Add({Obs(1, {{"loss", NAN}}), Obs(2, {{"loss", NAN}})}).ok());
  api::MetricSummary s = Summary("loss");
  EXPECT_TRUE(std::isnan(s.min));
  EXPECT_TRUE(std::isnan(s.max));
  EXPECT_TRUE(std::isnan(s.latest));
}

// Writers racing on trials of their own (and one on a missing trial), as
// the server's handler threads do: every acknowledged write is stored
// once, each trial's in the order written, never mixed with another's, and
// each answer's summaries are those of the writes so far (both stores
// commit such writes in groups).
TEST_P(StoreConformanceObservationTest, ConcurrentWritersStoredOnceInOrder) {
  constexpr int kTrials = 8;
  constexpr int kSteps = 100;
  auto name = [](int i) { return "w" + std::to_string(i); };
  std::vector<api::Trial> trials;
  for (int i = 0; i < kTrials; ++i) trials.push_back(MakeTrial(name(i), "0.01"));
  ASSERT_TRUE(store().CreateTrials("e", trials, "").ok());
  std::atomic<int> failures{0};
  std::atomic<int> refused{0};
  std::vector<std::thread> writers;
  for (int i = 0; i < kTrials; ++i) {
    writers.emplace_back([&, i] {
      for (int step = 1; step <= kSteps; ++step) {
        // Values fall, so max is step 1's and min the latest.
        auto r = store().AddObservationsAndSummarize(
            "e", name(i), {Obs(step, {{"loss", 1.0 / step}, {"id", double(i)}})});
        const api::MetricSummary* loss = nullptr;
        if (r.ok()) {
          for (const auto& m : *r) {
            if (m.name == "loss") loss = &m;
          }
        }
        if (!loss || loss->latest != 1.0 / step || loss->min != 1.0 / step || loss->max != 1.0) {
          ++failures;
        }
      }
    });
  }
  writers.emplace_back([&] {
    for (int n = 0; n < kSteps; ++n) {
      if (Add({Obs(n, {{"loss", 1.0}})}, "missing").code() == StatusCode::kNotFound) ++refused;
    }
  });
  for (auto& w : writers) w.join();
  EXPECT_EQ(failures.load(), 0);
  EXPECT_EQ(refused.load(), kSteps);

  for (int i = 0; i < kTrials; ++i) {
    auto obs = store().ListObservations("e", name(i));
    ASSERT_TRUE(obs.ok());
    ASSERT_EQ(obs->size(), size_t{kSteps}) << name(i);
    for (int step = 1; step <= kSteps; ++step) {
      const api::Observation& o = (*obs)[step - 1];
      ASSERT_EQ(o.step, step);
      ASSERT_EQ(o.metrics.size(), 2u);
      EXPECT_EQ(o.metrics.at("id"), i);  // never mixed with another write
    }
    auto trial = store().GetTrial("e", name(i));
    ASSERT_TRUE(trial.ok());
    ASSERT_NE(FindMetric(*trial, "loss"), nullptr);
    EXPECT_EQ(FindMetric(*trial, "loss")->latest, 1.0 / kSteps);
  }
}

TEST_P(StoreConformanceObservationTest, ListGroupsMetricsOfOneWrite) {
  ASSERT_TRUE(Add({Obs(2, {{"loss", 0.3}, {"acc", 0.7}}, 200)}).ok());
  ASSERT_TRUE(Add({Obs(1, {{"loss", 0.5}, {"acc", 0.6}}, 100),
                   Obs(2, {{"loss", 0.2}}, 250)})
                  .ok());
  auto obs = store().ListObservations("e", "t");
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

TEST_P(StoreConformanceObservationTest, LargeBatchIsStored) {
  std::vector<api::Observation> batch;
  for (int i = 0; i < 1000; ++i) {
    batch.push_back(Obs(i, {{"loss", 1.0 / (i + 1)}, {"acc", i / 1000.0}}));
  }
  ASSERT_TRUE(Add(batch).ok());
  auto obs = store().ListObservations("e", "t");
  ASSERT_TRUE(obs.ok());
  ASSERT_EQ(obs->size(), 1000u);
  EXPECT_EQ((*obs)[999].metrics.at("acc"), 0.999);
  EXPECT_EQ(Summary("loss").latest, 1.0 / 1000);
  EXPECT_EQ(Summary("acc").max, 0.999);
}

TEST_P(StoreConformanceObservationTest, EmptyAddIsOk) {
  EXPECT_TRUE(Add({}).ok());
  auto obs = store().ListObservations("e", "t");
  ASSERT_TRUE(obs.ok());
  EXPECT_TRUE(obs->empty());
  EXPECT_TRUE(store().GetTrial("e", "t")->metrics.empty());
}

TEST_P(StoreConformanceObservationTest,
       MetricCurvesByTrialInStepThenWriteOrder) {
  ASSERT_TRUE(
      store()
          .CreateTrials("e", {MakeTrial("b", "0.2"), MakeTrial("quiet", "0.3")},
                        "")
          .ok());
  ASSERT_TRUE(
      Add({Obs(3, {{"loss", 0.3}, {"acc", 0.5}}), Obs(1, {{"loss", 0.9}})})
          .ok());
  ASSERT_TRUE(Add({Obs(3, {{"loss", 0.25}})}).ok());  // same step, later write
  ASSERT_TRUE(Add({Obs(2, {{"loss", NAN}})}).ok());
  ASSERT_TRUE(Add({Obs(1, {{"loss", 4}})}, "b").ok());
  ASSERT_TRUE(Add({Obs(1, {{"acc", 0.1}})}, "quiet").ok());  // no loss

  auto curves = store().ListMetricCurves("e", "loss");
  ASSERT_TRUE(curves.ok()) << curves.status().ToString();
  ASSERT_EQ(curves->size(), 2u);  // "quiet" never reported loss
  EXPECT_EQ(curves->count("quiet"), 0u);
  const auto& t = curves->at("t");
  ASSERT_EQ(t.size(), 4u);
  EXPECT_EQ(t[0].step, 1);
  EXPECT_EQ(t[0].value, 0.9);
  EXPECT_EQ(t[1].step, 2);
  EXPECT_TRUE(std::isnan(t[1].value));
  EXPECT_EQ(t[2].step, 3);
  EXPECT_EQ(t[2].value, 0.3);
  EXPECT_EQ(t[3].step, 3);
  EXPECT_EQ(t[3].value, 0.25);
  ASSERT_EQ(curves->at("b").size(), 1u);
  EXPECT_EQ(curves->at("b")[0].value, 4);

  auto none = store().ListMetricCurves("e", "never");
  ASSERT_TRUE(none.ok());
  EXPECT_TRUE(none->empty());
}

TEST_P(StoreConformanceTest, NothingUnreadableIsAnEmptyList) {
  for (const char* name : {"first", "second"}) {
    ASSERT_TRUE(store().CreateExperiment(MakeExperiment(name)).ok());
  }
  ASSERT_TRUE(store().CreateTrials("first", {MakeTrial("t1", "1")}, "").ok());
  auto unreadable = store().ListUnreadableExperiments();
  ASSERT_TRUE(unreadable.ok());
  EXPECT_TRUE(unreadable->empty());
  auto trials = store().ListUnreadableTrials("first");
  ASSERT_TRUE(trials.ok());
  EXPECT_TRUE(trials->empty());
  EXPECT_EQ(store().ListExperiments()->size(), 2u);
}

TEST_P(StoreConformanceTest, UnreadableExperimentIsReportedNotFatal) {
  for (const char* name : {"first", "bad", "last"}) {
    ASSERT_TRUE(store().CreateExperiment(MakeExperiment(name)).ok());
  }
  backend_->DamageExperiment("bad");
  auto list = store().ListExperiments();
  ASSERT_TRUE(list.ok()) << list.status().ToString();
  ASSERT_EQ(list->size(), 2u);
  EXPECT_EQ((*list)[0].spec.name, "first");
  EXPECT_EQ((*list)[1].spec.name, "last");

  auto unreadable = store().ListUnreadableExperiments();
  ASSERT_TRUE(unreadable.ok()) << unreadable.status().ToString();
  ASSERT_EQ(unreadable->size(), 1u);
  EXPECT_EQ((*unreadable)[0].name, "bad");
  EXPECT_THAT((*unreadable)[0].error,
              HasSubstr("experiment 'bad' cannot be read"));

  auto get = store().GetExperiment("bad");
  EXPECT_EQ(get.status().code(), StatusCode::kFailedPrecondition);
  EXPECT_EQ(get.status().message(), (*unreadable)[0].error);
  EXPECT_TRUE(store().GetExperiment("last").ok());
  // Deleting it is how it goes away.
  ASSERT_TRUE(store().DeleteExperiment("bad").ok());
  EXPECT_TRUE(store().ListUnreadableExperiments()->empty());
}

TEST_P(StoreConformanceTest, UnreadableTrialIsReportedNotFatal) {
  ASSERT_TRUE(store().CreateExperiment(MakeExperiment("e")).ok());
  ASSERT_TRUE(
      store()
          .CreateTrials("e",
                        {MakeTrial("t1", "0.01"), MakeTrial("t2", "0.02"),
                         MakeTrial("t3", "0.03")},
                        "")
          .ok());
  backend_->DamageTrial("e", "t2");
  auto trials = store().ListTrials("e");
  ASSERT_TRUE(trials.ok()) << trials.status().ToString();
  ASSERT_EQ(trials->size(), 2u);
  EXPECT_EQ((*trials)[0].name, "t1");
  EXPECT_EQ((*trials)[1].name, "t3");

  auto unreadable = store().ListUnreadableTrials("e");
  ASSERT_TRUE(unreadable.ok()) << unreadable.status().ToString();
  ASSERT_EQ(unreadable->size(), 1u);
  EXPECT_EQ((*unreadable)[0].name, "t2");
  EXPECT_THAT((*unreadable)[0].error, HasSubstr("trial 't2' cannot be read"));

  EXPECT_EQ(store().GetTrial("e", "t2").status().code(),
            StatusCode::kFailedPrecondition);
  // The experiment itself stays readable.
  EXPECT_TRUE(store().GetExperiment("e").ok());
  EXPECT_TRUE(store().ListUnreadableExperiments()->empty());
}

}  // namespace
}  // namespace hpt::storage::testing
