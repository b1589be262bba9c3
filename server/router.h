#pragma once
// Router: matches "METHOD /path" against patterns such as
// "/api/v1/experiments/{name}/trials/{trial}:complete". A `{var}` matches
// one path segment without '/' or ':'; a trailing ":verb" is literal.

#include <functional>
#include <string>
#include <vector>

#include "server/http_types.h"

namespace hpt::server {

using Handler = std::function<HttpResponse(const HttpRequest&)>;

class Router {
 public:
  void Add(const std::string& method, const std::string& pattern, Handler handler);

  // Runs the matching handler. 404 when no pattern matches the path, 405
  // (naming the allowed methods) when the path matches with another method.
  HttpResponse Dispatch(HttpRequest& request) const;

  struct RouteInfo {
    std::string method;
    std::string pattern;
  };
  std::vector<RouteInfo> Routes() const;

 private:
  struct Route {
    std::string method;
    std::string pattern;
    std::vector<std::string> segments;
    Handler handler;
  };
  static bool Match(const Route& route, const std::vector<std::string>& segments,
                    std::map<std::string, std::string>* vars);
  std::vector<Route> routes_;
};

}  // namespace hpt::server
