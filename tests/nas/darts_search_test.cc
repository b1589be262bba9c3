// RunDarts and EvaluateGenotype end to end on tiny synthetic data.

#include <gtest/gtest.h>

#include <sstream>

#include "nas/darts.h"

namespace hpt::nas {
namespace {

// `n` images 1 x 12 x 12 of 3 classes; class c brightens row band c, so
// the task is learnable but not instantly.
Dataset Synthetic(int64_t n, uint32_t seed) {
  Dataset d;
  d.source = "synthetic";
  d.channels = 1;
  d.height = 12;
  d.width = 12;
  d.num_classes = 3;
  uint32_t state = seed;
  auto next = [&state]() {
    state = state * 1664525u + 1013904223u;
    return (state >> 8) / static_cast<float>(1 << 24);
  };
  for (int64_t i = 0; i < n; ++i) {
    const int64_t label = i % 3;
    d.labels.push_back(label);
    for (int64_t p = 0; p < d.image_size(); ++p) {
      const int64_t row = p / d.width;
      d.images.push_back(0.5f * next() + (row / 4 == label ? 0.5f : 0.f));
    }
  }
  return d;
}

DartsJob TinyJob() {
  DartsJob job;
  job.primitives = {"separable_convolution_3x3", "max_pooling_3x3",
                    "skip_connection"};
  job.num_layers = 2;
  api::DartsSettings& s = job.settings;
  s.num_epochs = 2;
  s.batch_size = 8;
  s.init_channels = 4;
  s.num_nodes = 2;
  s.stem_multiplier = 1;
  s.print_step = 1;
  s.random_state = 7;
  s.threads = 1;
  s.device = "cpu";
  return job;
}

TEST(RunDarts, Available) { EXPECT_TRUE(DartsAvailable().ok()); }

TEST(RunDarts, SeededSearchIsReproducibleAndPrintsMetrics) {
  DataSplit data{Synthetic(64, 1), Synthetic(30, 2)};
  DartsJob job = TinyJob();
  job.settings.eval_epochs = 1;
  job.settings.eval_init_channels = 4;
  std::ostringstream out1, out2, log;
  StatusOr<DartsSummary> a = RunDarts(job, data, out1, log);
  ASSERT_TRUE(a.ok()) << a.status().message();
  StatusOr<DartsSummary> b = RunDarts(job, data, out2, log);
  ASSERT_TRUE(b.ok()) << b.status().message();
  EXPECT_EQ(out1.str(), out2.str());
  EXPECT_EQ(a->device, "cpu");
  ASSERT_TRUE(a->test_accuracy.has_value());

  const std::string text = out1.str();
  EXPECT_NE(text.find("step=1 Train-Loss="), std::string::npos) << text;
  EXPECT_NE(text.find(" Validation-Accuracy="), std::string::npos);
  EXPECT_NE(text.find("step=2 Train-Loss="), std::string::npos);
  EXPECT_NE(text.find("step=3 Eval-Train-Loss="), std::string::npos);
  EXPECT_NE(text.find("Test-Accuracy="), std::string::npos);
  const std::string tag = "Best-Genotype=";
  const size_t at = text.find(tag);
  ASSERT_NE(at, std::string::npos);
  const std::string genotype =
      text.substr(at + tag.size(), text.find('\n', at) - at - tag.size());
  StatusOr<Genotype> parsed = ParseGenotype(genotype);
  ASSERT_TRUE(parsed.ok()) << parsed.status().message();
  EXPECT_EQ(parsed->ToString(), a->genotype.ToString());
  EXPECT_EQ(parsed->normal.size(), 2u);

  job.settings.random_state = 8;
  std::ostringstream out3;
  ASSERT_TRUE(RunDarts(job, data, out3, log).ok());
  EXPECT_NE(out3.str(), out1.str());
}

TEST(RunDarts, UnrolledSearchRuns) {
  DataSplit data{Synthetic(32, 3), Synthetic(8, 4)};
  DartsJob job = TinyJob();
  job.settings.num_epochs = 1;
  job.settings.unrolled = true;
  std::ostringstream out, log;
  StatusOr<DartsSummary> r = RunDarts(job, data, out, log);
  ASSERT_TRUE(r.ok()) << r.status().message();
  EXPECT_FALSE(r->test_accuracy.has_value());
}

TEST(RunDarts, TooFewImagesNameTheSetting) {
  DataSplit data{Synthetic(64, 1), Synthetic(8, 2)};
  DartsJob job = TinyJob();
  job.settings.train_limit = 10;
  std::ostringstream out, log;
  StatusOr<DartsSummary> r = RunDarts(job, data, out, log);
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().code(), StatusCode::kInvalidArgument);
  EXPECT_EQ(r.status().message(),
            "algorithm.algorithmSettings: train_limit 10 leaves fewer than "
            "one batch of 8 for the search (half trains the weights, half "
            "alpha)");
  EXPECT_TRUE(out.str().empty());
}

TEST(RunDarts, SettingsTheEvaluationCannotUseFailBeforeTheSearch) {
  DataSplit data{Synthetic(64, 1), Synthetic(8, 2)};
  DartsJob job = TinyJob();
  job.settings.eval_epochs = 1;
  job.settings.eval_batch_size = 65;
  std::ostringstream out, log;
  StatusOr<DartsSummary> r = RunDarts(job, data, out, log);
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().message(),
            "algorithm.algorithmSettings: eval_batch_size 65 is more than the "
            "evaluation's 64 training images");
  job = TinyJob();
  job.num_layers = 1;
  job.settings.eval_epochs = 1;
  job.settings.eval_num_layers = 3;
  r = RunDarts(job, data, out, log);
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.status().message().find("eval_num_layers 3 needs a reduce cell"),
            std::string::npos)
      << r.status().message();
  EXPECT_TRUE(out.str().empty()) << "the search ran first: " << out.str();
}

TEST(RunDarts, ADivergedSearchIsAnErrorNotAGenotype) {
  DataSplit data{Synthetic(64, 1), Synthetic(8, 2)};
  DartsJob job = TinyJob();
  // Each step multiplies the weights by about -1e6: inf, then nan, in 8.
  job.settings.w_lr = 1000;
  job.settings.w_weight_decay = 1000;
  std::ostringstream out, log;
  StatusOr<DartsSummary> r = RunDarts(job, data, out, log);
  ASSERT_FALSE(r.ok()) << out.str();
  EXPECT_EQ(r.status().code(), StatusCode::kInvalidArgument);
  EXPECT_NE(r.status().message().find("the training diverged (Train-Loss is"),
            std::string::npos)
      << r.status().message();
  EXPECT_EQ(out.str().find("Best-Genotype"), std::string::npos) << out.str();
}

TEST(RunDarts, BadInputsAreStatusesNotCrashes) {
  std::ostringstream out, log;
  DartsJob job = TinyJob();
  DataSplit empty;
  EXPECT_EQ(RunDarts(job, empty, out, log).status().code(),
            StatusCode::kInvalidArgument);
  DataSplit data{Synthetic(64, 1), Synthetic(8, 2)};
  job.primitives = {"conv_7x7"};
  EXPECT_EQ(RunDarts(job, data, out, log).status().code(),
            StatusCode::kInvalidArgument);
  job = TinyJob();
  job.settings.device = "tpu";
  EXPECT_EQ(RunDarts(job, data, out, log).status().code(),
            StatusCode::kInvalidArgument);
  // A genotype whose ops the evaluation cannot build.
  Genotype g = RandomGenotype({"conv_7x7"}, 2, 1);
  job = TinyJob();
  job.settings.eval_epochs = 1;
  EXPECT_EQ(EvaluateGenotype(g, job, data, 1, out, log).status().code(),
            StatusCode::kInvalidArgument);
}

TEST(EvaluateGenotype, TrainsARandomGenotype) {
  DataSplit data{Synthetic(48, 5), Synthetic(24, 6)};
  DartsJob job = TinyJob();
  job.settings.eval_epochs = 2;
  const Genotype g = RandomGenotype(job.primitives, 2, 3);
  std::ostringstream out, log;
  StatusOr<double> acc = EvaluateGenotype(g, job, data, 5, out, log);
  ASSERT_TRUE(acc.ok()) << acc.status().message();
  EXPECT_GE(*acc, 0.0);
  EXPECT_LE(*acc, 1.0);
  EXPECT_NE(out.str().find("step=5 Eval-Train-Loss="), std::string::npos);
  EXPECT_NE(out.str().find("step=6 Eval-Train-Loss="), std::string::npos);
}

TEST(EvaluateGenotype, DataParallelCopiesOnTwoThreadsAreReproducible) {
  DataSplit data{Synthetic(128, 5), Synthetic(48, 6)};
  DartsJob job = TinyJob();
  job.settings.eval_epochs = 2;
  job.settings.eval_batch_size = 64;  // two shards of 32
  job.settings.threads = 2;
  const Genotype g = RandomGenotype(job.primitives, 2, 3);
  auto run = [&](bool data_parallel) {
    job.settings.data_parallel = data_parallel;
    std::ostringstream out, log;
    StatusOr<double> acc = EvaluateGenotype(g, job, data, 1, out, log);
    EXPECT_TRUE(acc.ok()) << acc.status().message();
    return std::make_pair(out.str(), log.str());
  };
  const auto [first, first_log] = run(true);
  const auto [second, second_log] = run(true);
  EXPECT_EQ(first, second);
  EXPECT_NE(first_log.find("2 data-parallel copies"), std::string::npos)
      << first_log;
  const auto [single, single_log] = run(false);
  EXPECT_EQ(single_log.find("data-parallel"), std::string::npos);
  EXPECT_NE(single.find("step=2 Eval-Train-Loss="), std::string::npos);
}

}  // namespace
}  // namespace hpt::nas
