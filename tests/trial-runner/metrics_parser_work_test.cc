// Issue 30, finding 6: a hostile metricsFormat stalled every experiment.
// The work on a line is bounded whatever the pattern, and the bound leaves
// real metric lines whole.
#include <gtest/gtest.h>

#include <chrono>
#include <string>

#include "trial-runner/metrics_parser.h"
#include "trial-runner/trial_log.h"

namespace hpt::runner {
namespace {

double SecondsToParse(MetricsParser& parser, const std::string& line, int times) {
  const auto start = std::chrono::steady_clock::now();
  for (int i = 0; i < times; ++i) parser.ParseLine(line);
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

// Every match of (a)((?:a*b)?) in a line of a's is one "a", known only once
// a search to the line's end finds no "b": one search per match, each to
// the end, was quadratic (three 65,000-character lines: 12 s here, 22 s in
// the finding).
TEST(MetricsParserWorkTest, MatchesThatScanToTheLineEndStayCheap) {
  api::MetricsCollector collector;
  collector.metrics_format = {"(a)((?:a*b)?)"};
  auto parser = MetricsParser::Create(collector, {"a"});
  ASSERT_TRUE(parser.ok());
  EXPECT_LT(SecondsToParse(*parser, std::string(65000, 'a'), 3), 1.0);
}

// A pattern that compiles to thousands of RE2 instructions makes RE2 fall
// back to its NFA, which costs bytes x instructions: one search of a 64 KiB
// line took seconds.
TEST(MetricsParserWorkTest, AComplexPatternSearchesLessOfALongLine) {
  std::string pattern = "(a)((?:.*";
  for (int i = 0; i < 3; ++i) pattern += "[a-z]{1000}";
  pattern += "b)?)";
  api::MetricsCollector collector;
  collector.metrics_format = {pattern};
  auto parser = MetricsParser::Create(collector, {"a"});
  ASSERT_TRUE(parser.ok()) << parser.status().ToString();
  EXPECT_LT(SecondsToParse(*parser, std::string(65000, 'a'), 3), 1.0);
}

// The bound is no limit on real output: a line of 1,000 pairs (per-class
// accuracies) with the objective last, and a 60,000-byte line with it at
// the end, are read whole.
TEST(MetricsParserWorkTest, LongLinesOfManyPairsAreReadWhole) {
  auto parser = MetricsParser::Create({}, {"loss"});
  ASSERT_TRUE(parser.ok());
  std::string pairs;
  for (int i = 0; i < 1000; ++i) pairs += "class_" + std::to_string(i) + "=0.5 ";
  auto obs = parser->ParseLine(pairs + "loss=0.25");
  ASSERT_TRUE(obs.has_value());
  EXPECT_DOUBLE_EQ(obs->metrics.at("loss"), 0.25);
  EXPECT_EQ(parser->OtherNames().size(), 20u);

  auto last = parser->ParseLine(std::string(60000, ' ') + "loss=0.125");
  ASSERT_TRUE(last.has_value());
  EXPECT_DOUBLE_EQ(last->metrics.at("loss"), 0.125);
}

// Where a full disk cut a line short, the log's marker follows its start on
// the same line: "loss=0.0" there may have been "loss=0.0731".
TEST(MetricsParserWorkTest, ALineCutShortByLostOutputIsNoMetric) {
  auto parser = MetricsParser::Create({}, {"loss"});
  ASSERT_TRUE(parser.ok());
  EXPECT_FALSE(parser->ParseLine(std::string("step=3 loss=0.0") + kLostOutputMarker +
                                 "4096 bytes (No space left on device)]"));
  EXPECT_TRUE(parser->ParseLine("step=4 loss=0.0731"));
}

}  // namespace
}  // namespace hpt::runner
