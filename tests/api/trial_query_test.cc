// Paging, sorting, filtering (api/trial_query.h) and downsampling
// (api/trial_sample.h) of trial lists, on plain vectors.
#include "api/trial_query.h"

#include <algorithm>

#include <gtest/gtest.h>

#include "api/trial_sample.h"

namespace hpt::api {
namespace {

ExperimentSpec QuerySpec() {
  ExperimentSpec spec;
  spec.objective.type = ObjectiveType::kMinimize;
  spec.objective.metric_name = "loss";
  ParameterSpec lr;
  lr.name = "lr";
  ParameterSpec opt;
  opt.name = "opt";
  opt.type = ParameterType::kCategorical;
  spec.parameters = {lr, opt};
  return spec;
}

Trial T(int index, TrialPhase phase, std::optional<double> loss, double lr, const char* opt) {
  Trial t;
  t.index = index;
  t.name = "t-" + std::to_string(index);
  t.phase = phase;
  t.assignment = {{"lr", std::to_string(lr)}, {"opt", opt}};
  if (loss) t.metrics.push_back({"loss", *loss, *loss, *loss});
  return t;
}

std::vector<std::string> Names(const std::vector<Trial>& trials, const std::vector<size_t>& at) {
  std::vector<std::string> out;
  for (size_t i : at) out.push_back(trials[i].name);
  return out;
}

StatusOr<TrialQuery> Parse(std::map<std::string, std::string> q) {
  return ParseTrialQuery(q, QuerySpec());
}

TEST(TrialQueryTest, OnlyPagingOrFilteringParametersMakeAQuery) {
  EXPECT_FALSE(IsTrialQuery({}));
  EXPECT_FALSE(IsTrialQuery({{"pretty", "1"}}));
  EXPECT_TRUE(IsTrialQuery({{"limit", "5"}}));
  EXPECT_TRUE(IsTrialQuery({{"min.objective", "1"}}));
}

TEST(TrialQueryTest, BadValuesNameTheirParameter) {
  const std::vector<std::pair<std::map<std::string, std::string>, std::string>> bad = {
      {{{"limit", "0"}}, "limit:"},           {{{"limit", "10001"}}, "limit:"},
      {{{"offset", "-1"}}, "offset:"},        {{{"sort", "size"}}, "sort: unknown key 'size'"},
      {{{"sort", "p:nope"}}, "sort: the experiment has no parameter 'nope'"},
      {{{"order", "up"}}, "order:"},          {{{"phase", "Succeeded,Done"}}, "phase: 'Done'"},
      {{{"min.objective", "low"}}, "min.objective:"}, {{{"max.phase", "1"}}, "max.phase:"},
      {{{"min.bogus", "1"}}, "min.bogus: unknown key"},
  };
  for (const auto& [query, message] : bad) {
    auto q = Parse(query);
    ASSERT_FALSE(q.ok()) << message;
    EXPECT_EQ(q.status().code(), StatusCode::kInvalidArgument);
    EXPECT_NE(q.status().message().find(message), std::string::npos) << q.status().message();
  }
}

TEST(TrialQueryTest, SortsWithMissingValuesLastInEitherOrder) {
  std::vector<Trial> trials = {
      T(1, TrialPhase::kSucceeded, 0.5, 0.1, "adam"), T(2, TrialPhase::kFailed, {}, 0.2, "sgd"),
      T(3, TrialPhase::kSucceeded, 0.1, 0.3, "sgd"), T(4, TrialPhase::kSucceeded, 0.9, 0.4, "adam")};
  auto asc = Parse({{"sort", "objective"}});
  ASSERT_TRUE(asc.ok());
  EXPECT_EQ(Names(trials, SelectTrials(trials, QuerySpec().objective, *asc)),
            (std::vector<std::string>{"t-3", "t-1", "t-4", "t-2"}));
  auto desc = Parse({{"sort", "objective"}, {"order", "desc"}});
  EXPECT_EQ(Names(trials, SelectTrials(trials, QuerySpec().objective, *desc)),
            (std::vector<std::string>{"t-4", "t-1", "t-3", "t-2"}));
  auto by_param = Parse({{"sort", "p:lr"}, {"order", "desc"}});
  EXPECT_EQ(
      Names(trials, SelectTrials(trials, QuerySpec().objective, *by_param)),
      (std::vector<std::string>{"t-4", "t-3", "t-2", "t-1"}));
}

TEST(TrialQueryTest, FiltersByPhaseWordsAndRanges) {
  std::vector<Trial> trials = {
      T(1, TrialPhase::kSucceeded, 0.5, 0.1, "adam"), T(2, TrialPhase::kFailed, {}, 0.2, "sgd"),
      T(3, TrialPhase::kSucceeded, 0.1, 0.3, "sgd"), T(4, TrialPhase::kKilled, 0.9, 0.4, "adam")};
  const Objective& o = QuerySpec().objective;
  EXPECT_EQ(Names(trials, SelectTrials(trials, o, *Parse({{"phase", "Failed,Killed"}}))),
            (std::vector<std::string>{"t-2", "t-4"}));
  EXPECT_EQ(Names(trials, SelectTrials(trials, o, *Parse({{"filter", "OPT=SGD"}}))),
            (std::vector<std::string>{"t-2", "t-3"}));
  // A range fails trials without a value (t-2 has no loss).
  EXPECT_EQ(Names(trials, SelectTrials(trials, o, *Parse({{"max.m:loss", "0.5"}}))),
            (std::vector<std::string>{"t-1", "t-3"}));
  EXPECT_EQ(Names(trials, SelectTrials(trials, o,
                                       *Parse({{"min.p:lr", "0.15"}, {"max.p:lr", "0.35"}}))),
            (std::vector<std::string>{"t-2", "t-3"}));
}

TEST(TrialSampleTest, KeepsEveryRecordTheBestAndEveryFailedTrial) {
  std::vector<Trial> trials;
  // 10,000 trials: a slow downward drift with noise, every 97th failed;
  // the best is t-7777.
  for (int i = 1; i <= 10000; ++i) {
    double loss = 1.0 + ((i * 7919) % 1000) / 1000.0 - i / 20000.0;
    if (i == 7777) loss = 0.01;
    trials.push_back(T(i, i % 97 ? TrialPhase::kSucceeded : TrialPhase::kFailed,
                       i % 97 ? std::optional<double>(loss) : std::nullopt, 0.5, "adam"));
  }
  std::vector<size_t> all(trials.size());
  for (size_t i = 0; i < all.size(); ++i) all[i] = i;
  TrialSample s = SampleTrials(trials, all, QuerySpec().objective, 500);
  EXPECT_TRUE(s.sampled);
  EXPECT_LE(s.kept.size(), 500u);
  EXPECT_TRUE(std::is_sorted(s.kept.begin(), s.kept.end()));
  std::vector<std::string> kept = Names(trials, s.kept);
  auto has = [&](const std::string& n) { return std::count(kept.begin(), kept.end(), n) == 1; };
  EXPECT_TRUE(has("t-7777"));
  EXPECT_TRUE(has("t-10000"));  // evenly spaced: first and last
  EXPECT_EQ(s.failed, 103u);
  for (int i = 97; i <= 10000; i += 97) EXPECT_TRUE(has("t-" + std::to_string(i))) << i;
  // Every new best so far is kept, so the line drawn from the sample is exact.
  double best = 1e9;
  std::vector<std::string> records;
  for (const Trial& t : trials) {
    if (t.metrics.empty() || t.metrics[0].latest >= best) continue;
    best = t.metrics[0].latest;
    records.push_back(t.name);
  }
  for (const auto& r : records) EXPECT_TRUE(has(r)) << r;

  // Fewer trials than the cap: all of them, unsampled.
  TrialSample small =
      SampleTrials(trials, {5, 1, 3}, QuerySpec().objective, 500);
  EXPECT_FALSE(small.sampled);
  EXPECT_EQ(small.kept, (std::vector<size_t>{1, 3, 5}));
}

}  // namespace
}  // namespace hpt::api
