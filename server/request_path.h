#pragma once
// NormalizeRequestPath: the one decoding of a request's path. Routing,
// authorisation and static files all see its result and nothing else, so a
// path cannot mean one thing to the auth check and another to the router.
//
// The input is the path as it came on the request line (percent-encoded,
// without the query). Rejected (InvalidArgument, answered 400):
// - not starting with '/', or longer than kMaxRequestPath bytes;
// - empty segments ("//", a trailing '/' other than the root "/");
// - "." and ".." segments, encoded or not;
// - an encoded '/' or '\' (%2F, %5C) or NUL (%00), other control
//   characters (encoded or raw), and malformed escapes ("%G1", "%4").
// The result is the decoded path: segments joined by '/', "/" for the root.

#include <map>
#include <string>
#include <string_view>

#include "api/status.h"

namespace hpt::server {

inline constexpr size_t kMaxRequestPath = 2048;

StatusOr<std::string> NormalizeRequestPath(std::string_view raw);

// The query string's parameters ("a=1&b=%41" -> {a: 1, b: A}), each key and
// value percent-decoded once ('+' stays '+'); a key without '=' has the
// value "", empty pieces are skipped and a later duplicate wins.
// InvalidArgument ("malformed query string: ...") on a malformed escape:
// ignoring it would answer a different question than the one asked.
StatusOr<std::map<std::string, std::string>> ParseQueryString(std::string_view query);

}  // namespace hpt::server
