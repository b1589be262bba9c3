#include "api/metrics_format.h"

#include <regex>

namespace hpt::api {

std::string NormalizeMetricsRegex(const std::string& pattern) {
  static const std::regex kRepetition(R"(^\{\d+(,\d*)?\})");
  std::string out;
  out.reserve(pattern.size() + 8);
  bool in_class = false;
  for (size_t i = 0; i < pattern.size(); ++i) {
    char c = pattern[i];
    if (c == '\\' && i + 1 < pattern.size()) {
      out += c;
      out += pattern[++i];
      continue;
    }
    if (c == '[') in_class = true;
    if (c == ']') in_class = false;
    if (!in_class && c == '{' &&
        !std::regex_search(pattern.substr(i, 24), kRepetition)) {
      // A literal brace; its partner '}' is escaped below.
      out += "\\{";
      size_t close = pattern.find('}', i);
      if (close != std::string::npos) {
        std::string inner = NormalizeMetricsRegex(pattern.substr(i + 1, close - i - 1));
        out += inner + "\\}";
        i = close;
      }
      continue;
    }
    out += c;
  }
  return out;
}

}  // namespace hpt::api
