// Trial output through runner::MetricsParser. The first byte picks the
// mode: bit 0 clear, Katib's default format plus JSON lines; set, a custom
// metricsFormat given as the first line of the rest. Bits 1-2 pick the
// step key. Bit 3 stretches the last line to 64 KiB (repeating it), the
// length of a line the parser searches. The remaining lines are fed to one
// parser in order, as a trial's stdout would be.
//
// Besides what the parser returns, its time: a line's work is bounded
// (metrics_parser.h), so each ParseLine() must take at most kLineFloor plus
// kPerByte per byte of the line. A parse that searches again from each
// match to the line's end, or a pattern that makes RE2's NFA search a whole
// long line, takes seconds on a stretched line and fails this.

#include <chrono>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <set>
#include <string>
#include <string_view>
#include <vector>

#include "api/metrics_format.h"
#include "api/types.h"
#include "fuzz/fuzz_check.h"
#include "trial-runner/metrics_parser.h"

namespace {

const std::vector<std::string> kMetricNames = {
    "loss", "acc", "accuracy", "val-loss", "train/loss", "Validation-accuracy",
    "a|b"};
const char* const kStepKeys[] = {"", "step", "epoch", "loss"};

// Generous for ASan + UBSan on a busy machine: the parser's own bound is
// 20 ms of CPU per line plus one search (~50 ms uninstrumented at worst).
constexpr std::chrono::microseconds kLineFloor(400'000);
constexpr std::chrono::nanoseconds kPerByte(2'000);
constexpr size_t kStretchedLine = 64 * 1024;

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size == 0) return 0;
  const uint8_t mode = data[0];
  std::string_view rest(reinterpret_cast<const char*>(data) + 1, size - 1);

  hpt::api::MetricsCollector collector;
  collector.step_key = kStepKeys[(mode >> 1) & 3];
  if (mode & 1) {
    size_t eol = rest.find('\n');
    collector.metrics_format.emplace_back(rest.substr(0, eol));
    rest = eol == std::string_view::npos ? std::string_view()
                                         : rest.substr(eol + 1);
  }
  auto parser = hpt::runner::MetricsParser::Create(collector, kMetricNames);
  if (mode & 1) {
    const std::string problem =
        hpt::api::MetricsRegexProblem(collector.metrics_format[0]);
    FUZZ_CHECK(parser.ok() == problem.empty(),
               "format '" + collector.metrics_format[0] + "': problem '" +
                   problem + "', Create: " + parser.status().ToString());
  } else {
    FUZZ_CHECK(parser.ok(), parser.status().ToString());
  }
  if (!parser.ok()) {
    FUZZ_CHECK(parser.status().code() == hpt::StatusCode::kInvalidArgument,
               parser.status().ToString());
    return 0;
  }

  std::string stretched;
  if (mode & 8) {
    size_t last = rest.rfind('\n');
    std::string_view tail = last == std::string_view::npos ? rest : rest.substr(last + 1);
    if (!tail.empty()) {
      while (stretched.size() < kStretchedLine) stretched.append(tail);
      stretched.resize(kStretchedLine);
      rest = rest.substr(0, rest.size() - tail.size());
    }
  }

  const std::set<std::string> wanted(kMetricNames.begin(), kMetricNames.end());
  while (true) {
    size_t eol = rest.find('\n');
    std::string_view line = rest.substr(0, eol);
    if (eol == std::string_view::npos && !stretched.empty()) line = stretched;
    const auto start = std::chrono::steady_clock::now();
    auto parsed = parser->ParseLine(line);
    const auto took = std::chrono::steady_clock::now() - start;
    FUZZ_CHECK(took <= kLineFloor + kPerByte * static_cast<int64_t>(line.size()),
               std::to_string(std::chrono::duration_cast<std::chrono::milliseconds>(took).count()) +
                   " ms for a line of " + std::to_string(line.size()) + " bytes: " +
                   std::string(line.substr(0, 80)));
    if (auto obs = std::move(parsed)) {
      FUZZ_CHECK(!obs->metrics.empty() || !obs->texts.empty(), std::string(line));
      for (const auto& [name, value] : obs->metrics) {
        FUZZ_CHECK(wanted.count(name), "unwanted metric '" + name + "'");
        FUZZ_CHECK(std::isfinite(value), name + " is not finite");
      }
      // Text values (a DARTS genotype): collected names only, never empty,
      // capped in size.
      for (const auto& [name, text] : obs->texts) {
        FUZZ_CHECK(wanted.count(name), "unwanted text '" + name + "'");
        FUZZ_CHECK(!text.empty() && text.size() <= 16 * 1024, name + ": bad text size");
      }
    }
    if (eol == std::string_view::npos) break;
    rest.remove_prefix(eol + 1);
  }
  return 0;
}
