#pragma once
// Katib writes metricsFormat regexes for Go's RE2, where a '{' that does not
// start a repetition ({n}, {n,}, {n,m}) is a literal brace; ECMAScript
// (std::regex) rejects it. This turns such braces into escaped ones so the
// same regexes work here.

#include <string>

namespace hpt::api {

std::string NormalizeMetricsRegex(const std::string& pattern);

}  // namespace hpt::api
