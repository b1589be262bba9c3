#include "server/router.h"

namespace hpt::server {
namespace {

// Empty segments are kept (and then match no route); paths normally come
// normalised, without any.
std::vector<std::string> Split(const std::string& path) {
  std::vector<std::string> out;
  size_t pos = path.empty() || path[0] != '/' ? 0 : 1;
  while (pos <= path.size()) {
    size_t next = path.find('/', pos);
    if (next == std::string::npos) next = path.size();
    out.push_back(path.substr(pos, next - pos));
    pos = next + 1;
  }
  return out;
}

// Matches one segment: "literal", "{var}", "{var}:verb" or "literal:verb".
bool MatchSegment(const std::string& pattern, const std::string& actual,
                  std::map<std::string, std::string>* vars) {
  if (pattern.empty() || pattern[0] != '{') return pattern == actual;
  size_t close = pattern.find('}');
  std::string var = pattern.substr(1, close - 1);
  std::string suffix = pattern.substr(close + 1);  // "" or ":verb"
  if (actual.size() <= suffix.size()) return false;
  if (actual.compare(actual.size() - suffix.size(), suffix.size(), suffix) != 0) {
    return false;
  }
  std::string value = actual.substr(0, actual.size() - suffix.size());
  if (value.find(':') != std::string::npos) return false;
  (*vars)[var] = value;
  return true;
}

}  // namespace

void Router::Add(const std::string& method, const std::string& pattern,
                 Handler handler, Access access) {
  routes_.push_back({method, pattern, Split(pattern), std::move(handler), access});
}

bool Router::Match(const Route& route, const std::vector<std::string>& segments,
                   std::map<std::string, std::string>* vars) {
  if (route.segments.size() != segments.size()) return false;
  for (size_t i = 0; i < segments.size(); ++i) {
    if (!MatchSegment(route.segments[i], segments[i], vars)) return false;
  }
  return true;
}

const Router::Route* Router::Find(const std::string& method,
                                  const std::vector<std::string>& segments,
                                  std::map<std::string, std::string>* vars,
                                  std::string* allowed) const {
  for (const auto& route : routes_) {
    std::map<std::string, std::string> matched;
    if (!Match(route, segments, &matched)) continue;
    if (route.method != method) {
      *allowed += (allowed->empty() ? "" : ", ") + route.method;
      continue;
    }
    *vars = std::move(matched);
    return &route;
  }
  return nullptr;
}

Router::Resolution Router::Resolve(const std::string& method,
                                   const std::string& path) const {
  Resolution out;
  const Route* route = Find(method, Split(path), &out.vars, &out.allowed);
  out.found = route != nullptr || !out.allowed.empty();
  out.method_allowed = route != nullptr;
  if (route) out.access = route->access;
  return out;
}

HttpResponse Router::Dispatch(HttpRequest& request) const {
  std::string allowed;
  std::map<std::string, std::string> vars;
  if (const Route* route = Find(request.method, Split(request.path), &vars, &allowed)) {
    request.vars = std::move(vars);
    return route->handler(request);
  }
  if (!allowed.empty()) {
    return JsonResponse(405, {{"error",
                               {{"code", 405},
                                {"status", "METHOD_NOT_ALLOWED"},
                                {"message", request.method + " is not allowed on " +
                                                request.path + " (allowed: " +
                                                allowed + ")"}}}});
  }
  return ErrorResponse(NotFound("no route for " + request.method + " " + request.path));
}

std::vector<Router::RouteInfo> Router::Routes() const {
  std::vector<RouteInfo> out;
  for (const auto& r : routes_) out.push_back({r.method, r.pattern});
  return out;
}

}  // namespace hpt::server
