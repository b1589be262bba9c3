#pragma once
// Guards against other web sites driving this server through a browser.
// hpt runs user commands, so a page that can POST an experiment here can
// run code on this machine:
// - Cross-site requests (CSRF): a browser always sends Origin on a
//   cross-origin POST, PUT, PATCH or DELETE, also for text/plain bodies
//   that need no CORS preflight. A request whose Origin is not the server
//   it reached (the Host header) is refused.
//   --advertise-url's origin is accepted too (a reverse proxy that passes
//   its own Host on).
// - DNS rebinding: a hostile name that resolves to 127.0.0.1 makes a page
//   same-origin with this server, Origin and Host then agree. A Host must
//   therefore be an IP literal, localhost, this machine's name, the bound
//   host or --advertise-url's host.
// Both guard a server without a token. With one, the token is the guard: a
// browser never sends it by itself and another site cannot learn it, so
// any Host and Origin are accepted (clusters and proxies may use any name).

#include <string>
#include <vector>

#include "api/status.h"

namespace hpt::server {

struct OriginPolicy {
  // Names (lower-case, no port) a Host header may carry besides IP
  // literals and "localhost".
  std::vector<std::string> host_names;
  // Origins ("https://name:443", lower-case, port explicit) accepted
  // besides the request's own Host.
  std::vector<std::string> origins;
  bool check = true;  // false when a token is configured
};

// The policy for a server bound to `bind_host`, advertised at
// `advertise_url` (may be ""), with or without a token.
OriginPolicy MakeOriginPolicy(const std::string& bind_host,
                              const std::string& advertise_url, bool has_token);

// PermissionDenied naming the header when the request's Host or Origin
// (lower-case header values, "" when absent) is not allowed.
Status CheckOrigin(const OriginPolicy& policy, const std::string& host,
                   const std::string& origin);

// "Host:port" -> host, "[::1]:80" -> "::1"; lower-case. "" when malformed.
std::string HostOfAuthority(const std::string& authority);

}  // namespace hpt::server
