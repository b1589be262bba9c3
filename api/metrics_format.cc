#include "api/metrics_format.h"

#include <re2/re2.h>

namespace hpt::api {

std::string MetricsRegexProblem(const std::string& pattern) {
  if (pattern.size() > kMaxMetricsRegexBytes) {
    return "longer than " + std::to_string(kMaxMetricsRegexBytes) + " bytes";
  }
  re2::RE2::Options options;
  options.set_log_errors(false);
  re2::RE2 re(pattern, options);
  if (!re.ok()) return "invalid regular expression: " + re.error();
  if (re.NumberOfCapturingGroups() < 2) {
    return "needs two groups (name, then value), not " +
           std::to_string(re.NumberOfCapturingGroups());
  }
  return "";
}

}  // namespace hpt::api
