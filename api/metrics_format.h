#pragma once
// Katib's metricsFormat regexes are Go RE2 regexes; hpt reads them with RE2
// too, so a '{' that does not start a repetition ({n}, {n,}, {n,m}) is a
// literal brace, as in Katib, and matching takes linear time whatever the
// pattern.

#include <string>

namespace hpt::api {

inline constexpr size_t kMaxMetricsRegexBytes = 4096;

// "" when `pattern` is a usable metricsFormat regex (valid RE2, at least two
// groups: the name, then the value); otherwise what is wrong with it.
std::string MetricsRegexProblem(const std::string& pattern);

}  // namespace hpt::api
