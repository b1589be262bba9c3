#include "server/http_server.h"

#include "controller/trial_token.h"
#include "server/request_path.h"

namespace hpt::server {
namespace {

const char kUnauthenticated[] =
    "missing or wrong bearer token (send 'Authorization: Bearer <token>')";

}  // namespace

HttpServer::HttpServer(const HttpServerOptions& options)
    : options_(options),
      origin_policy_(
          MakeOriginPolicy(options.host, options.advertise_url, !options.token.empty())) {
  if (!options.ui_dir.empty()) static_files_ = std::make_unique<StaticFiles>(options.ui_dir);
}

HttpServer::~HttpServer() { Close(); }

StatusOr<std::unique_ptr<HttpServer>> HttpServer::Listen(const HttpServerOptions& options) {
  std::unique_ptr<HttpServer> server(new HttpServer(options));
  ListenerOptions listen;
  listen.host = options.host;
  listen.port = options.port;
  HttpServer* self = server.get();
  HPT_ASSIGN_OR_RETURN(
      server->listener_,
      OpenHttpListener(
          listen, [self](HttpRequest& r) { return self->Handle(r); },
          [self](HttpRequest& head) { return self->CheckHead(head); }));
  return server;
}

std::string HttpServer::url() const {
  std::string host = options_.host == "0.0.0.0" ? "127.0.0.1" : options_.host;
  return "http://" + host + ":" + std::to_string(port());
}

void HttpServer::Serve(const ApiContext& context) {
  ApiContext c = context;
  c.requests_total = &requests_total_;
  controller_ = c.controller;
  AddApiRoutes(c, router_);
  ready_ = true;  // publishes the routes and controller_ to the handlers
}

void HttpServer::Close() {
  if (listener_) listener_->Close();
}

HttpResponse HttpServer::Handle(HttpRequest& request) {
  requests_total_.fetch_add(1, std::memory_order_relaxed);
  // HEAD is GET without the body (RFC 9110), with GET's access rules.
  const bool head = request.method == "HEAD";
  Router::Resolution route;
  if (std::optional<HttpResponse> refused = Prepare(request, &route)) return *refused;
  if (!route.found && static_files_ && request.method == "GET") {
    if (auto file = static_files_->Serve(request.path)) return *file;
  }
  if (!Authorized(request, route)) {
    return ErrorResponse(Status(StatusCode::kUnauthenticated, kUnauthenticated));
  }
  HttpResponse response = router_.Dispatch(request);
  if (head) response.body.clear();
  return response;
}

// The listener's look at the head of a request with a body, before the
// body is read: nothing is held for a request that would be refused.
std::optional<HttpResponse> HttpServer::CheckHead(HttpRequest head) {
  Router::Resolution route;
  if (std::optional<HttpResponse> refused = Prepare(head, &route)) return refused;
  if (!Authorized(head, route)) {
    return ErrorResponse(Status(StatusCode::kUnauthenticated, kUnauthenticated));
  }
  return std::nullopt;
}

// What every request passes first: the server is ready, its Host and
// Origin, one normalised path and the route it would reach. The answer
// that refuses it, or nullopt (request.path set, HEAD read as GET, *route
// resolved).
std::optional<HttpResponse> HttpServer::Prepare(HttpRequest& request,
                                                Router::Resolution* route) {
  if (!ready_) return ErrorResponse(Unavailable("the server is starting"));
  Status origin = CheckOrigin(origin_policy_, request.Header("host"), request.Header("origin"));
  if (!origin.ok()) return ErrorResponse(origin);
  StatusOr<std::string> path = NormalizeRequestPath(request.raw_path);
  if (!path.ok()) return ErrorResponse(path.status());
  request.path = *path;
  if (request.method == "HEAD") request.method = "GET";
  *route = router_.Resolve(request.method, request.path);
  return std::nullopt;
}

bool HttpServer::Authorized(const HttpRequest& request, const Router::Resolution& route) const {
  if (options_.token.empty()) return true;
  if (route.method_allowed && route.access == Access::kPublic) return true;
  const std::string auth = request.Header("authorization");
  const std::string prefix = "Bearer ";
  if (auth.rfind(prefix, 0) != 0) return false;
  const std::string given = auth.substr(prefix.size());
  if (controller::SameToken(given, options_.token)) return true;
  if (!route.method_allowed || route.access != Access::kTrial) return false;
  auto name = route.vars.find("name");
  auto trial = route.vars.find("trial");
  if (name == route.vars.end() || trial == route.vars.end()) return false;
  const std::string expected = controller_->TrialTokenFor(name->second, trial->second);
  return !expected.empty() && controller::SameToken(given, expected);
}

}  // namespace hpt::server
