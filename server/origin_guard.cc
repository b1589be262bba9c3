#include "server/origin_guard.h"

#include <arpa/inet.h>
#include <unistd.h>

#include <algorithm>
#include <cctype>

namespace hpt::server {
namespace {

std::string Lower(std::string s) {
  std::transform(s.begin(), s.end(), s.begin(),
                 [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  return s;
}

bool IsIpLiteral(const std::string& host) {
  unsigned char buf[sizeof(in6_addr)];
  return inet_pton(AF_INET, host.c_str(), buf) == 1 ||
         inet_pton(AF_INET6, host.c_str(), buf) == 1;
}

bool AllDigits(const std::string& s) {
  return !s.empty() && s.size() <= 5 &&
         std::all_of(s.begin(), s.end(), [](unsigned char c) { return std::isdigit(c); });
}

// Splits "host[:port]" / "[v6][:port]" into lower-case host and port
// ("" when absent); false when malformed.
bool SplitAuthority(const std::string& authority, std::string* host, std::string* port) {
  std::string a = Lower(authority);
  std::string rest;
  if (!a.empty() && a[0] == '[') {
    size_t close = a.find(']');
    if (close == std::string::npos) return false;
    *host = a.substr(1, close - 1);
    rest = a.substr(close + 1);
    if (!IsIpLiteral(*host)) return false;
  } else {
    size_t colon = a.find(':');
    *host = a.substr(0, colon);
    rest = colon == std::string::npos ? "" : a.substr(colon);
    bool name_chars = std::all_of(host->begin(), host->end(), [](unsigned char c) {
      return std::isalnum(c) || c == '-' || c == '.' || c == '_';
    });
    if (!name_chars) return false;
  }
  if (host->empty()) return false;
  *port = "";
  if (rest.empty()) return true;
  if (rest[0] != ':' || !AllDigits(rest.substr(1))) return false;
  *port = rest.substr(1);
  return true;
}

// "scheme://host:port" of a URL or an Origin, lower-case, the default port
// made explicit; "" when it is not an http(s) URL.
std::string NormalOrigin(const std::string& url, std::string* host = nullptr) {
  size_t at = url.find("://");
  if (at == std::string::npos) return "";
  std::string scheme = Lower(url.substr(0, at));
  if (scheme != "http" && scheme != "https") return "";
  std::string rest = url.substr(at + 3);
  std::string name, port;
  if (!SplitAuthority(rest.substr(0, rest.find_first_of("/?#")), &name, &port)) return "";
  if (port.empty()) port = scheme == "https" ? "443" : "80";
  if (host) *host = name;
  return scheme + "://" + (name.find(':') != std::string::npos ? "[" + name + "]" : name) +
         ":" + port;
}

}  // namespace

std::string HostOfAuthority(const std::string& authority) {
  std::string host, port;
  return SplitAuthority(authority, &host, &port) ? host : "";
}

OriginPolicy MakeOriginPolicy(const std::string& bind_host,
                              const std::string& advertise_url, bool has_token) {
  OriginPolicy policy;
  policy.check = !has_token;
  auto add = [&](const std::string& name) {
    if (!name.empty() && !IsIpLiteral(name)) policy.host_names.push_back(Lower(name));
  };
  add(HostOfAuthority(bind_host));
  std::string advertised_host;
  std::string advertised = NormalOrigin(advertise_url, &advertised_host);
  if (!advertised.empty()) policy.origins.push_back(advertised);
  add(advertised_host);
  char name[256] = {};
  if (gethostname(name, sizeof(name) - 1) == 0) add(name);
  return policy;
}

Status CheckOrigin(const OriginPolicy& policy, const std::string& host,
                   const std::string& origin) {
  if (!policy.check) return Status::Ok();
  std::string host_name, host_port;
  if (!host.empty()) {
    if (!SplitAuthority(host, &host_name, &host_port)) {
      return PermissionDenied("Host: '" + host.substr(0, 200) + "' is not a host name");
    }
    bool known = IsIpLiteral(host_name) || host_name == "localhost" ||
                 std::find(policy.host_names.begin(), policy.host_names.end(), host_name) !=
                     policy.host_names.end();
    if (!known) {
      return PermissionDenied(
          "Host: '" + host_name +
          "' is not a name of this server (refused against DNS rebinding): reach it by "
          "IP address or localhost, name it in --advertise-url, or set --token-file");
    }
  }
  if (origin.empty()) return Status::Ok();
  // A browser's request from another site (or a sandboxed page: "null").
  const std::string refused = "Origin: '" + origin.substr(0, 200) +
                              "' is another site; cross-site requests are refused";
  const std::string given = NormalOrigin(origin);
  if (given.empty()) return PermissionDenied(refused);
  if (std::find(policy.origins.begin(), policy.origins.end(), given) != policy.origins.end()) {
    return Status::Ok();
  }
  // Same origin: the page came from the server this request reached.
  const std::string scheme = given.substr(0, given.find("://"));
  if (host.empty() || NormalOrigin(scheme + "://" + host) != given) {
    return PermissionDenied(refused);
  }
  return Status::Ok();
}

}  // namespace hpt::server
