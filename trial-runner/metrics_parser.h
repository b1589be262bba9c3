#pragma once
// MetricsParser: turns a trial's output lines into observations, the way
// Katib's StdOut and File metrics collectors read them.
//
// Formats: with no metrics_format, Katib's default `name=value` pairs
// anywhere in a line (`epoch 3: loss=0.41 acc=0.9`) and lines that are a JSON
// object (`{"loss": 0.3, "step": 2}`). With metrics_format, only those
// regexes are searched for (every match in a line); each one's first two
// groups are the name and the value. Regexes are RE2 (Katib's own dialect).
//
// Work per line is bounded, whatever the pattern and the output, so that no
// trial stalls the thread that parses every trial's lines: a search of a
// line is linear in RE2, but finding each next match searches again, and
// with a pattern such as (a)((?:a*b)?) every search scans to the line's end
// (quadratic). So a line's regex searches stop once they have taken 20 ms of
// CPU time (a Katib-style line takes microseconds: only such a pattern gets
// there), and a metricsFormat that compiles to more than 16 RE2
// instructions searches less than the first 64 KiB of a line (1M bytes x
// instructions: where RE2's DFA gives up, its NFA costs that).
//
// A line holding hpt's note that output was lost there (kLostOutputMarker,
// trial_log.h) holds no metric: what precedes the note was cut short.
//
// Only the configured metric names are collected; non-finite values (nan,
// inf) are ignored. The step is the value of collector.step_key found in the
// same line, else the previous observation's step + 1 (the first is 0).
//
// Not thread-safe: it remembers the last step. One parser per trial.

#include <cstdint>
#include <functional>
#include <optional>
#include <memory>
#include <set>
#include <string>
#include <string_view>
#include <vector>

#include "api/status.h"
#include "api/types.h"

namespace re2 {
class RE2;
}

namespace hpt::runner {

// The line hpt writes into a trial's log when the command cannot start; it
// quotes the command, whose `name=value` text is no metric of the trial.
inline constexpr char kStartFailedPrefix[] = "hpt: cannot start the trial: ";

class MetricsParser {
 public:
  // InvalidArgument naming the metrics_format entry that is not a valid
  // regex or has fewer than two groups.
  static StatusOr<MetricsParser> Create(const api::MetricsCollector& collector,
                                        std::vector<std::string> metric_names);

  // The observation a line carries (timestamp: now), or nullopt when it
  // holds none of the configured metrics. At most the first 64 KiB of a
  // line are searched with the regexes (see above).
  std::optional<api::Observation> ParseLine(std::string_view line);

  // Up to 20 names that appeared with a number but are not collected
  // (e.g. "acc" when the objective is "accuracy"), sorted.
  std::vector<std::string> OtherNames() const {
    return std::vector<std::string>(others_.begin(), others_.end());
  }

 private:
  MetricsParser() = default;

  struct Format {
    std::shared_ptr<const re2::RE2> re;
    int64_t program_size = 1;  // RE2's instructions
    size_t max_line = 0;       // bytes of a line searched
  };
  static Format Compile(const std::string& pattern);

  // Feeds every name/value pair the regexes find in `line` to `take`.
  void MatchRegexes(std::string_view line,
                    const std::function<void(const std::string&,
                                             const std::string&)>& take) const;

  std::vector<Format> formats_;
  bool json_lines_ = false;
  std::string step_key_;
  std::set<std::string> wanted_;
  int64_t last_step_ = -1;
  static constexpr size_t kMaxOthers = 20;
  std::set<std::string> others_;
};

}  // namespace hpt::runner
