#pragma once
// Router: matches "METHOD /path" against patterns such as
// "/api/v1/experiments/{name}/trials/{trial}:complete". A `{var}` matches
// one path segment without '/' or ':'; a trailing ":verb" is literal.
//
// Each route says who may call it (Access); a route added without one needs
// the admin token: deny by default. Paths reach the router already
// normalised (server/request_path.h).

#include <functional>
#include <string>
#include <vector>

#include "server/http_types.h"

namespace hpt::server {

using Handler = std::function<HttpResponse(const HttpRequest&)>;

// Who may call a route (server/principal.h). The namespace is the path's
// {ns}, else `default`; an admin may call every route.
enum class Access {
  kAdmin,      // admins only
  kRead,       // who may read the namespace (viewer, member)
  kWrite,      // who may change it (member)
  kTrialRead,  // kRead, or the per-trial token of {name}/{trial}
  kTrialWrite, // kWrite, or the per-trial token of {name}/{trial}
  kSignedIn,   // any user; the handler shows only what the caller may see
  kPublic,     // anyone
};

class Router {
 public:
  void Add(const std::string& method, const std::string& pattern, Handler handler,
           Access access = Access::kAdmin);

  // What a request would reach: the route matching path and method, with its
  // variables. `found` is false for no route; `method_allowed` false when the
  // path matches only with other methods (listed in `allowed`).
  struct Resolution {
    bool found = false;
    bool method_allowed = false;
    Access access = Access::kAdmin;
    std::map<std::string, std::string> vars;
    std::string allowed;
  };
  Resolution Resolve(const std::string& method, const std::string& path) const;

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
    Access access;
  };
  const Route* Find(const std::string& method, const std::vector<std::string>& segments,
                    std::map<std::string, std::string>* vars, std::string* allowed) const;
  static bool Match(const Route& route, const std::vector<std::string>& segments,
                    std::map<std::string, std::string>* vars);
  std::vector<Route> routes_;
};

}  // namespace hpt::server
