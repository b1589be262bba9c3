#include "api/quantity.h"

#include <cmath>

#include "api/text.h"

namespace hpt::api {
namespace {

struct Suffix {
  const char* text;
  double factor;
};

// Longest first: "Ki" before "K".
constexpr Suffix kByteSuffixes[] = {
    {"Ki", 1024.0}, {"Mi", 1048576.0}, {"Gi", 1073741824.0}, {"Ti", 1099511627776.0},
    {"Pi", 1125899906842624.0}, {"Ei", 1152921504606846976.0},
    {"k", 1e3}, {"K", 1e3}, {"M", 1e6}, {"G", 1e9}, {"T", 1e12}, {"P", 1e15}, {"E", 1e18},
};

bool EndsWith(std::string_view text, std::string_view suffix) {
  return text.size() > suffix.size() &&
         text.compare(text.size() - suffix.size(), suffix.size(), suffix) == 0;
}

}  // namespace

std::optional<int64_t> ParseBytes(std::string_view text) {
  text = Trim(text);
  double factor = 1;
  for (const Suffix& s : kByteSuffixes) {
    if (EndsWith(text, s.text)) {
      factor = s.factor;
      text.remove_suffix(std::string_view(s.text).size());
      break;
    }
  }
  std::optional<double> n = ParseNumber(text);
  if (!n || *n < 0) return std::nullopt;
  double bytes = std::ceil(*n * factor);
  if (!(bytes <= 4611686018427387904.0)) return std::nullopt;  // 2^62
  return static_cast<int64_t>(bytes);
}

std::optional<double> ParseCpus(std::string_view text) {
  text = Trim(text);
  if (EndsWith(text, "m")) {
    text.remove_suffix(1);
    std::optional<int64_t> milli = ParseInt(text);
    if (!milli || *milli < 0 || *milli > 1'000'000'000) return std::nullopt;
    return *milli / 1000.0;
  }
  std::optional<double> n = ParseNumber(text);
  if (!n || *n < 0 || *n > 1e6) return std::nullopt;
  return *n;
}

std::string FormatBytes(int64_t bytes) {
  static constexpr const char* kUnits[] = {"Ei", "Pi", "Ti", "Gi", "Mi", "Ki"};
  for (int i = 0; i < 6; ++i) {
    const int64_t unit = int64_t{1} << (10 * (6 - i));
    if (bytes > 0 && bytes % unit == 0) return std::to_string(bytes / unit) + kUnits[i];
  }
  return std::to_string(bytes);
}

}  // namespace hpt::api
