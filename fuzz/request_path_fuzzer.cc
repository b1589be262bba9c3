// Request paths as on the request line through server::NormalizeRequestPath
// and a Router holding the server's routes (server/api_handlers.cc
// AddApiRoutes; keep the table below in step with it). Beyond crashes it
// checks what auth and routing rely on:
// - a normalised path starts with '/', has no empty, "." or ".." segment,
//   no trailing '/', no NUL or other control character;
// - normalising the re-encoded result gives the result again (when that
//   fits in kMaxRequestPath), and a path without escapes normalises to
//   itself;
// - a path reaches a route only as that route's pattern with its variables
//   filled in (non-empty, without '/' or ':'), and only /healthz is public;
// - Dispatch answers 200/405/404 exactly as Resolve predicts.

#include <cstddef>
#include <cstdint>
#include <map>
#include <string>
#include <string_view>
#include <vector>

#include "fuzz/fuzz_check.h"
#include "server/http_types.h"
#include "server/request_path.h"
#include "server/router.h"

namespace {

using hpt::server::Access;
using hpt::server::HttpRequest;
using hpt::server::HttpResponse;
using hpt::server::Router;

struct Reached {
  std::string pattern;
  std::map<std::string, std::string> vars;
};
Reached g_reached;

struct Route {
  const char* method;
  std::string pattern;
  Access access;
};

std::vector<Route> ServerRoutes() {
  const std::string e = "/api/v1/experiments";
  const std::string t = e + "/{name}/trials";
  return {
      {"POST", e, Access::kAdmin},
      {"GET", e, Access::kAdmin},
      {"GET", e + "/{name}", Access::kAdmin},
      {"DELETE", e + "/{name}", Access::kAdmin},
      {"POST", e + "/{name}:stop", Access::kAdmin},
      {"GET", t, Access::kAdmin},
      {"POST", e + "/{name}/trials:suggest", Access::kAdmin},
      {"GET", t + "/{trial}", Access::kTrialRead},
      {"POST", t + "/{trial}:complete", Access::kTrialWrite},
      {"POST", t + "/{trial}:stop", Access::kAdmin},
      {"POST", t + "/{trial}/observations", Access::kTrialWrite},
      {"GET", t + "/{trial}/observations", Access::kAdmin},
      {"GET", t + "/{trial}:shouldStop", Access::kTrialRead},
      {"GET", t + "/{trial}/logs", Access::kAdmin},
      {"GET", "/api/v1/algorithms", Access::kAdmin},
      {"GET", "/api/v1/openapi.json", Access::kAdmin},
      {"GET", "/healthz", Access::kPublic},
      {"GET", "/metrics", Access::kAdmin},
  };
}

const Router& ServerRouter() {
  static const Router* router = [] {
    auto* r = new Router;
    for (const Route& route : ServerRoutes()) {
      std::string pattern = route.pattern;
      r->Add(
          route.method, pattern,
          [pattern](const HttpRequest& q) {
            g_reached = {pattern, q.vars};
            return HttpResponse{};
          },
          route.access);
    }
    return r;
  }();
  return *router;
}

// The pattern with each "{var}" replaced by its value.
std::string Fill(const std::string& pattern,
                 const std::map<std::string, std::string>& vars) {
  std::string out;
  for (size_t i = 0; i < pattern.size();) {
    if (pattern[i] != '{') {
      out += pattern[i++];
      continue;
    }
    size_t close = pattern.find('}', i);
    auto it = vars.find(pattern.substr(i + 1, close - i - 1));
    out += it == vars.end() ? "{?}" : it->second;
    i = close + 1;
  }
  return out;
}

// Percent-encodes what must be encoded to come back unchanged: '%', and
// bytes outside printable ASCII. '\' stays raw: encoded, it is rejected.
std::string Encode(std::string_view path) {
  static const char kHex[] = "0123456789ABCDEF";
  std::string out;
  for (char c : path) {
    unsigned char u = static_cast<unsigned char>(c);
    if (c == '%' || u <= 0x20 || u >= 0x7f) {
      out += '%';
      out += kHex[u >> 4];
      out += kHex[u & 15];
    } else {
      out += c;
    }
  }
  return out;
}

void CheckNormalised(std::string_view raw, const std::string& path) {
  const std::string where = "raw '" + std::string(raw) + "' -> '" + path + "'";
  FUZZ_CHECK(!path.empty() && path[0] == '/', where);
  FUZZ_CHECK(path.size() <= raw.size(), where);
  FUZZ_CHECK(path.find("//") == std::string::npos, where);
  FUZZ_CHECK(path == "/" || path.back() != '/', where);
  for (char c : path) {
    unsigned char u = static_cast<unsigned char>(c);
    FUZZ_CHECK(u >= 0x20 && u != 0x7f, where + ": control character");
  }
  if (path != "/") {
    for (size_t pos = 1; pos <= path.size();) {
      size_t next = path.find('/', pos);
      if (next == std::string::npos) next = path.size();
      std::string_view segment(path.data() + pos, next - pos);
      FUZZ_CHECK(segment != "." && segment != "..", where + ": dot segment");
      pos = next + 1;
    }
  }
  const std::string encoded = Encode(path);
  if (encoded.size() <= hpt::server::kMaxRequestPath) {
    auto again = hpt::server::NormalizeRequestPath(encoded);
    FUZZ_CHECK(
        again.ok() && *again == path,
        where + ": re-encoded as '" + encoded + "' gives " +
            (again.ok() ? "'" + *again + "'" : again.status().ToString()));
  }
  if (raw.find('%') == std::string_view::npos) FUZZ_CHECK(path == raw, where);
}

void CheckRouting(const std::string& path) {
  const Router& router = ServerRouter();
  for (const char* method : {"GET", "POST", "DELETE", "PUT", "HEAD"}) {
    const std::string where = std::string(method) + " '" + path + "'";
    Router::Resolution r = router.Resolve(method, path);
    FUZZ_CHECK(!r.method_allowed || r.found, where);
    if (r.method_allowed) {
      if (r.access == Access::kPublic) {
        FUZZ_CHECK(path == "/healthz" && std::string(method) == "GET",
                   where + " is public");
      }
      if (r.access == Access::kTrialRead || r.access == Access::kTrialWrite) {
        FUZZ_CHECK(r.vars.count("name") && r.vars.count("trial"), where);
      }
      for (const auto& [var, value] : r.vars) {
        FUZZ_CHECK(
            !value.empty() && value.find_first_of("/:") == std::string::npos,
            where + ": {" + var + "} = '" + value + "'");
      }
    }

    HttpRequest request;
    request.method = method;
    request.path = path;
    request.raw_path = path;
    g_reached = {};
    HttpResponse response = router.Dispatch(request);
    const int expected = r.method_allowed ? 200 : r.found ? 405 : 404;
    FUZZ_CHECK(response.status == expected,
               where + ": Dispatch " + std::to_string(response.status) +
                   ", Resolve " + std::to_string(expected));
    if (r.method_allowed) {
      FUZZ_CHECK(g_reached.vars == r.vars, where);
      FUZZ_CHECK(Fill(g_reached.pattern, g_reached.vars) == path,
                 where + " reached " + g_reached.pattern);
    }
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::string_view raw(reinterpret_cast<const char*>(data), size);
  auto path = hpt::server::NormalizeRequestPath(raw);
  if (path.ok()) {
    CheckNormalised(raw, *path);
    CheckRouting(*path);
  } else {
    FUZZ_CHECK(path.status().code() == hpt::StatusCode::kInvalidArgument,
               path.status().ToString());
  }
  // The router itself must also take anything without crashing.
  (void)ServerRouter().Resolve("GET", std::string(raw));
  return 0;
}
