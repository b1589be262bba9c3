#include "trial-runner/metrics_parser.h"

#include <time.h>

#include <algorithm>
#include <cctype>
#include <charconv>
#include <cmath>
#include <map>
#include <nlohmann/json.hpp>
#include <re2/re2.h>
#include <utility>

#include "api/metrics_format.h"
#include "api/nas.h"
#include "trial-runner/trial_log.h"

namespace hpt::runner {
namespace {

// Katib's default StdOut format (pkg/metricscollector/v1beta1/common).
constexpr const char* kKatibFormat = api::kKatibNumericFormat;

// A line this long holds no metric worth a search.
constexpr size_t kMaxRegexLine = 64 * 1024;
// The most one search with a metricsFormat may cost, in bytes times
// program size: ~10-30 ms in RE2's NFA, the worst case (where its DFA gives
// up). A pattern of up to 16 instructions searches the whole 64 KiB, a more
// complex one less of a long line. Katib's default format is ours, and as
// cheap as a DFA search: it searches 64 KiB.
constexpr int64_t kMaxSearchUnits = 1 << 20;
// How often (in such units) a line's CPU time is looked at, and its bound.
constexpr int64_t kCheckUnits = 1 << 20;
constexpr int64_t kMaxLineCpuNanos = 20'000'000;

int64_t ThreadCpuNanos() {
  timespec ts{};
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
  return static_cast<int64_t>(ts.tv_sec) * 1'000'000'000 + ts.tv_nsec;
}

}  // namespace

MetricsParser::Format MetricsParser::Compile(const std::string& pattern) {
  re2::RE2::Options options;
  options.set_log_errors(false);
  MetricsParser::Format format;
  format.re = std::make_shared<const re2::RE2>(pattern, options);
  format.program_size = std::max(1, format.re->ProgramSize());
  format.max_line = std::min<size_t>(
      kMaxRegexLine, static_cast<size_t>(kMaxSearchUnits / format.program_size));
  return format;
}

namespace {

// from_chars rather than strtod: the server's locale must not change what
// "0.5" means.
std::optional<double> ParseNumber(std::string_view text) {
  while (!text.empty() &&
         std::isspace(static_cast<unsigned char>(text.front()))) {
    text.remove_prefix(1);
  }
  while (!text.empty() &&
         std::isspace(static_cast<unsigned char>(text.back()))) {
    text.remove_suffix(1);
  }
  if (!text.empty() && text.front() == '+') text.remove_prefix(1);
  if (text.empty()) return std::nullopt;
  double value = 0;
  auto [end, ec] =
      std::from_chars(text.data(), text.data() + text.size(), value);
  if (ec != std::errc() || end != text.data() + text.size()) {
    return std::nullopt;
  }
  return value;
}

// A text value is kept up to this many bytes (a genotype is ~1 KiB).
constexpr size_t kMaxText = 16 * 1024;

// Text, not a number that failed to parse ("1e999", 100k digits): the
// first character is none of a number's.
bool IsText(std::string_view text) {
  size_t first = text.find_first_not_of(" \t\r");
  if (first == std::string_view::npos) return false;
  char c = text[first];
  return !(std::isdigit(static_cast<unsigned char>(c)) || c == '+' || c == '-' || c == '.');
}

// "name=rest of the line" at the start of a line, as (name, rest); empty
// name otherwise.
std::pair<std::string, std::string> LeadingText(std::string_view line) {
  size_t eq = line.find('=');
  if (eq == std::string_view::npos || eq == 0 || eq > 256) return {};
  for (size_t i = 0; i < eq; ++i) {
    char c = line[i];
    if (!std::isalnum(static_cast<unsigned char>(c)) && c != '_' && c != '-') return {};
  }
  std::string_view rest = line.substr(eq + 1);
  while (!rest.empty() && (rest.back() == '\r' || rest.back() == ' ')) rest.remove_suffix(1);
  return {std::string(line.substr(0, eq)), std::string(rest)};
}

bool LooksLikeJsonObject(std::string_view line) {
  size_t first = line.find_first_not_of(" \t");
  size_t last = line.find_last_not_of(" \t\r");
  return first != std::string_view::npos && line[first] == '{' &&
         line[last] == '}';
}

}  // namespace

StatusOr<MetricsParser> MetricsParser::Create(
    const api::MetricsCollector& collector,
    std::vector<std::string> metric_names) {
  MetricsParser parser;
  parser.step_key_ = collector.step_key.empty() ? "step" : collector.step_key;
  parser.wanted_.insert(metric_names.begin(), metric_names.end());
  if (collector.metrics_format.empty()) {
    parser.formats_.push_back(Compile(kKatibFormat));
    HPT_CHECK(parser.formats_.back().re->ok());
    parser.formats_.back().max_line = kMaxRegexLine;
    parser.json_lines_ = true;
    return parser;
  }
  for (size_t i = 0; i < collector.metrics_format.size(); ++i) {
    const std::string& format = collector.metrics_format[i];
    std::string where = "metricsCollector.metricsFormat[" + std::to_string(i) +
                        "] '" + format + "'";
    std::string problem = api::MetricsRegexProblem(format);
    if (!problem.empty()) return InvalidArgument(where + ": " + problem);
    parser.formats_.push_back(Compile(format));
  }
  return parser;
}

void MetricsParser::MatchRegexes(
    std::string_view line,
    const std::function<void(const std::string&, const std::string&)>& take)
    const {
  // Bytes handed to RE2 times the pattern's program size: what a search
  // costs at worst (RE2's NFA, where its DFA gives up).
  int64_t units = 0;
  int64_t next_check = kCheckUnits;
  std::optional<int64_t> started_ns;  // this thread's CPU clock, once read
  for (const Format& format : formats_) {
    const std::string_view searched = line.substr(0, format.max_line);
    const re2::StringPiece text(searched.data(), searched.size());
    re2::StringPiece groups[3];
    size_t pos = 0;
    while (pos <= text.size()) {
      const int64_t cost = static_cast<int64_t>(text.size() - pos + 1) * format.program_size;
      if (units + cost > next_check) {
        // Each search from `pos` may scan to the line's end before it
        // knows its match (with (a)((?:a*b)?) every match is one "a", known
        // only once no "b" follows): many such matches are quadratic, so
        // past a few searches' worth, the line's CPU time bounds it.
        const int64_t now = ThreadCpuNanos();
        if (!started_ns) started_ns = now;
        if (now - *started_ns > kMaxLineCpuNanos) return;
        next_check = units + cost + kCheckUnits;
      }
      units += cost;
      if (!format.re->Match(text, pos, text.size(), re2::RE2::UNANCHORED, groups, 3)) break;
      take(std::string(groups[1].data() ? groups[1] : re2::StringPiece()),
           std::string(groups[2].data() ? groups[2] : re2::StringPiece()));
      size_t end = static_cast<size_t>(groups[0].data() - text.data()) + groups[0].size();
      pos = end > pos ? end : pos + 1;  // an empty match moves on by one
    }
  }
}

std::optional<api::Observation> MetricsParser::ParseLine(
    std::string_view line) {
  if (line.substr(0, sizeof(kStartFailedPrefix) - 1) == kStartFailedPrefix) return std::nullopt;
  // What precedes the marker on its line is the start of a line whose rest
  // was lost: "loss=0.0" may have been "loss=0.0731".
  if (line.find(kLostOutputMarker) != std::string_view::npos) return std::nullopt;
  std::map<std::string, double> metrics;
  std::optional<int64_t> step;
  auto take_number = [&](const std::string& name, double value) {
    if (!std::isfinite(value)) return;
    if (name == step_key_ && std::fabs(value) < 9e18)
      step = std::llround(value);
    if (wanted_.count(name)) metrics[name] = value;
  };
  // Names that look like metrics but are not collected, for the message of
  // a trial that never reports its objective (a misspelt name).
  auto note_other = [&](const std::string& name) {
    if (others_.size() < kMaxOthers && name.size() <= 64) others_.insert(name);
  };
  std::map<std::string, std::string> texts;
  auto take_text = [&](const std::string& name, const std::string& text) {
    if (!wanted_.count(name) && name != step_key_) {
      if (ParseNumber(text)) note_other(name);
      return;
    }
    if (auto value = ParseNumber(text)) {
      take_number(name, *value);
    } else if (name != step_key_ && IsText(text)) {
      texts[name] = text.substr(0, kMaxText);
    }
  };

  bool parsed_json = false;
  if (json_lines_ && LooksLikeJsonObject(line)) {
    auto json = nlohmann::json::parse(line.begin(), line.end(), nullptr,
                                      /*allow_exceptions=*/false);
    if (json.is_object()) {
      parsed_json = true;
      for (const auto& [name, value] : json.items()) {
        if (value.is_number()) {
          if (!wanted_.count(name) && name != step_key_) note_other(name);
          take_number(name, value.get<double>());
        } else if (value.is_string()) {
          take_text(name, value.get<std::string>());
        }
      }
    }
  }
  if (!parsed_json) {
    MatchRegexes(line, take_text);
    // Katib's default format reads numbers only: a collected name that
    // starts the line with text after '=' (Best-Genotype=Genotype(...))
    // is that text, to the end of the line.
    if (json_lines_) {
      if (auto [name, text] = LeadingText(line); wanted_.count(name) && !metrics.count(name)) {
        take_text(name, text);
      }
    }
  }

  if (metrics.empty() && texts.empty()) return std::nullopt;
  api::Observation observation;
  observation.timestamp_ms = api::NowMillis();
  observation.texts = std::move(texts);
  if (metrics.empty()) {  // text alone is no point of a curve
    observation.step = step ? *step : std::max<int64_t>(last_step_, 0);
    return observation;
  }
  observation.step = step ? *step : last_step_ + 1;
  observation.metrics = std::move(metrics);
  last_step_ = observation.step;
  return observation;
}

}  // namespace hpt::runner
