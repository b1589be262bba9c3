#include "trial-runner/metrics_parser.h"

#include <gtest/gtest.h>

#include <map>
#include <string>

namespace hpt::runner {
namespace {

MetricsParser MakeParser(const api::MetricsCollector& collector,
                         std::vector<std::string> names) {
  StatusOr<MetricsParser> parser = MetricsParser::Create(collector, names);
  EXPECT_TRUE(parser.ok()) << parser.status().ToString();
  return std::move(parser).value();
}

TEST(MetricsParserTest, DefaultFormatFindsPairsAnywhereInALine) {
  MetricsParser parser = MakeParser({}, {"loss", "acc"});
  auto obs = parser.ParseLine("epoch 3: loss=0.41 acc = 0.9, lr=1e-3");
  ASSERT_TRUE(obs.has_value());
  EXPECT_EQ(obs->metrics,
            (std::map<std::string, double>{{"loss", 0.41}, {"acc", 0.9}}));
  EXPECT_EQ(obs->step, 0);
  EXPECT_GT(obs->timestamp_ms, 0);
}

TEST(MetricsParserTest, HptsStartFailureLineIsNoMetric) {
  MetricsParser parser = MakeParser({}, {"loss", "acc"});
  EXPECT_FALSE(parser.ParseLine(std::string(kStartFailedPrefix) +
                                "exec echo loss=0.027 acc=1: No such file or directory")
                   .has_value());
  EXPECT_TRUE(parser.ParseLine("echo: loss=0.027").has_value());
}

TEST(MetricsParserTest, ParsesSignsAndExponents) {
  MetricsParser parser = MakeParser({}, {"a", "b", "c"});
  auto obs = parser.ParseLine("a=-1.5 b=+2E3 c=.25");
  ASSERT_TRUE(obs.has_value());
  EXPECT_DOUBLE_EQ(obs->metrics.at("a"), -1.5);
  EXPECT_DOUBLE_EQ(obs->metrics.at("b"), 2000);
  EXPECT_DOUBLE_EQ(obs->metrics.at("c"), 0.25);
}

TEST(MetricsParserTest, StepsCountUpUnlessTheLineGivesOne) {
  MetricsParser parser = MakeParser({}, {"loss"});
  EXPECT_EQ(parser.ParseLine("loss=1")->step, 0);
  EXPECT_EQ(parser.ParseLine("loss=0.9")->step, 1);
  EXPECT_EQ(parser.ParseLine("step=10 loss=0.8")->step, 10);
  EXPECT_EQ(parser.ParseLine("loss=0.7")->step, 11);
}

TEST(MetricsParserTest, CustomStepKey) {
  api::MetricsCollector collector;
  collector.step_key = "epoch";
  MetricsParser parser = MakeParser(collector, {"loss"});
  auto obs = parser.ParseLine("epoch=4 step=99 loss=0.5");
  ASSERT_TRUE(obs.has_value());
  EXPECT_EQ(obs->step, 4);
  EXPECT_EQ(obs->metrics.size(), 1u);
}

TEST(MetricsParserTest, StepKeyAloneIsNoObservation) {
  MetricsParser parser = MakeParser({}, {"loss"});
  EXPECT_FALSE(parser.ParseLine("step=5").has_value());
  EXPECT_EQ(parser.ParseLine("loss=1")->step, 0);
}

TEST(MetricsParserTest, CustomRegexReplacesTheDefault) {
  api::MetricsCollector collector;
  collector.metrics_format = {R"(([\w-]+):\s*([\d.]+))"};
  MetricsParser parser = MakeParser(collector, {"loss", "acc"});
  auto obs = parser.ParseLine("loss: 0.3 acc: 0.8");
  ASSERT_TRUE(obs.has_value());
  EXPECT_EQ(obs->metrics,
            (std::map<std::string, double>{{"loss", 0.3}, {"acc", 0.8}}));
  EXPECT_FALSE(parser.ParseLine("loss=0.2").has_value());
  EXPECT_FALSE(parser.ParseLine(R"({"loss": 0.2})").has_value());
}

TEST(MetricsParserTest, BadRegexIsInvalidArgumentNamingIt) {
  api::MetricsCollector collector;
  collector.metrics_format = {"(unclosed"};
  StatusOr<MetricsParser> parser = MetricsParser::Create(collector, {"loss"});
  ASSERT_FALSE(parser.ok());
  EXPECT_EQ(parser.status().code(), StatusCode::kInvalidArgument);
  EXPECT_NE(parser.status().message().find("(unclosed"), std::string::npos)
      << parser.status().message();
}

TEST(MetricsParserTest, RegexNeedsTwoGroups) {
  api::MetricsCollector collector;
  collector.metrics_format = {R"(loss=([\d.]+))"};
  StatusOr<MetricsParser> parser = MetricsParser::Create(collector, {"loss"});
  ASSERT_FALSE(parser.ok());
  EXPECT_EQ(parser.status().code(), StatusCode::kInvalidArgument);
}

TEST(MetricsParserTest, JsonLines) {
  MetricsParser parser = MakeParser({}, {"loss", "acc"});
  auto obs = parser.ParseLine(
      R"(  {"loss": 0.3, "step": 2, "acc": "0.75", "note": "x"})");
  ASSERT_TRUE(obs.has_value());
  EXPECT_EQ(obs->step, 2);
  EXPECT_EQ(obs->metrics,
            (std::map<std::string, double>{{"loss", 0.3}, {"acc", 0.75}}));
  EXPECT_EQ(parser.ParseLine(R"({"loss": 0.2})")->step, 3);
}

TEST(MetricsParserTest, BrokenJsonFallsBackToPairs) {
  MetricsParser parser = MakeParser({}, {"loss"});
  auto obs = parser.ParseLine("{loss=0.5}");
  ASSERT_TRUE(obs.has_value());
  EXPECT_DOUBLE_EQ(obs->metrics.at("loss"), 0.5);
}

TEST(MetricsParserTest, IgnoresUnknownMetricsAndNonFiniteValues) {
  MetricsParser parser = MakeParser({}, {"loss"});
  EXPECT_FALSE(parser.ParseLine("acc=0.9 other=1").has_value());
  EXPECT_FALSE(parser.ParseLine("loss=nan").has_value());
  EXPECT_FALSE(parser.ParseLine("loss=1e999").has_value());
  EXPECT_FALSE(parser.ParseLine("no metrics here").has_value());
  EXPECT_FALSE(parser.ParseLine("").has_value());

  api::MetricsCollector collector;
  collector.metrics_format = {R"((\w+)=(\S+))"};
  MetricsParser custom = MakeParser(collector, {"loss"});
  EXPECT_FALSE(custom.ParseLine("loss=nan").has_value());
  EXPECT_FALSE(custom.ParseLine("loss=inf").has_value());
  EXPECT_DOUBLE_EQ(custom.ParseLine("loss=0.5")->metrics.at("loss"), 0.5);
}

TEST(MetricsParserTest, HugeLineDoesNotCrash) {
  MetricsParser parser = MakeParser({}, {"loss"});
  std::string line = "loss=" + std::string(200000, '1');
  EXPECT_FALSE(parser.ParseLine(line).has_value());
}

TEST(MetricsParserTest, NamesNotCollectedAreNotedForTheMessage) {
  api::MetricsCollector c;
  auto parser = MetricsParser::Create(c, {"accuracy"});
  ASSERT_TRUE(parser.ok());
  EXPECT_FALSE(parser->ParseLine("epoch 1: acc=0.5 lr=0.1 note=fast"));
  EXPECT_FALSE(parser->ParseLine(R"({"val_acc": 0.4, "tag": "x"})"));
  EXPECT_TRUE(parser->ParseLine("accuracy=0.7 step=3"));
  EXPECT_EQ(parser->OtherNames(), (std::vector<std::string>{"acc", "lr", "val_acc"}));
}

}  // namespace
}  // namespace hpt::runner

namespace hpt::runner {
namespace {

// DARTS prints its genotype as Best-Genotype=Genotype(...): text, kept
// whole as the trial's output, and no step of the curve.
TEST(MetricsParserTextTest, DefaultFormatKeepsACollectedNamesTextToTheEndOfTheLine) {
  auto parser = MetricsParser::Create({}, {"Validation-Accuracy", "Best-Genotype"});
  ASSERT_TRUE(parser.ok());
  auto first = parser->ParseLine("step=1 Train-Loss=0.8 Validation-Accuracy=0.71");
  ASSERT_TRUE(first.has_value());
  EXPECT_EQ(first->step, 1);
  const std::string genotype =
      "Genotype(normal=[[('max_pooling_3x3', 0), ('skip_connection', 1)]], "
      "normal_concat=range(2, 3), reduce=[[('max_pooling_3x3', 0)]], reduce_concat=range(2, 3))";
  auto text = parser->ParseLine("Best-Genotype=" + genotype);
  ASSERT_TRUE(text.has_value());
  EXPECT_TRUE(text->metrics.empty());
  EXPECT_EQ(text->texts.at("Best-Genotype"), genotype);
  EXPECT_EQ(text->step, 1);
  EXPECT_EQ(parser->ParseLine("Validation-Accuracy=0.8")->step, 2);
  // Text of a name nobody collects is not kept; nor is a number mistaken
  // for text when the line holds more pairs.
  EXPECT_FALSE(parser->ParseLine("Other=Genotype(x)").has_value());
  auto pairs = parser->ParseLine("Validation-Accuracy=0.9 Train-Loss=0.1");
  ASSERT_TRUE(pairs.has_value());
  EXPECT_TRUE(pairs->texts.empty());
}

TEST(MetricsParserTextTest, KatibsGenotypeRegexYieldsText) {
  api::MetricsCollector collector;
  collector.metrics_format = {R"(([\w-]+)=(Genotype.*))"};
  auto parser = MetricsParser::Create(collector, {"Best-Genotype"});
  ASSERT_TRUE(parser.ok());
  auto obs = parser->ParseLine("Best-Genotype=Genotype(normal=[], reduce=[])");
  ASSERT_TRUE(obs.has_value());
  EXPECT_EQ(obs->texts.at("Best-Genotype"), "Genotype(normal=[], reduce=[])");
}

}  // namespace
}  // namespace hpt::runner
