#include "server/http_server.h"

#include "api/types.h"
#include "controller/trial_token.h"
#include "server/api_handlers.h"
#include "server/forward.h"
#include "server/request_path.h"

namespace hpt::server {
namespace {

// A forwarded write's whole exchange: room for a :suggest that waits for a
// slot, yet an owner that is paused (its lease not yet expired) holds the
// caller no longer than this.
constexpr int kForwardTimeoutMs = 30000;

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
  accounts_ = c.accounts;
  audit_ = c.audit;
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
  const bool mutating = request.method != "GET" && request.method != "HEAD";
  Router::Resolution route;
  if (std::optional<HttpResponse> refused = Prepare(request, &route)) return *refused;
  if (!route.found && static_files_ && request.method == "GET") {
    if (auto file = static_files_->Serve(request.path)) return *file;
  }
  // Before authorising: a trial's own token is known to its server only.
  if (mutating && route.found) {
    if (std::optional<HttpResponse> forwarded = ForwardToOwner(request, route)) {
      return *forwarded;
    }
  }
  HttpResponse response;
  if (Status allowed = Authorize(request, route); !allowed.ok()) {
    response = ErrorResponse(allowed);
  } else {
    response = router_.Dispatch(request);
  }
  if (mutating && audit_ != nullptr) Audit(request, response);
  if (head) response.body.clear();
  return response;
}

std::optional<HttpResponse> HttpServer::ForwardToOwner(const HttpRequest& request,
                                                       const Router::Resolution& route) {
  if (controller_ == nullptr || !route.vars.count("name") ||
      !request.Header(kForwardedHeader).empty()) {
    return std::nullopt;
  }
  HttpRequest named;
  named.vars = route.vars;
  named.query = request.query;
  named.headers = request.headers;
  const std::string owner = controller_->OwnerUrl(ExperimentKeyOf(named));
  if (owner.empty()) return std::nullopt;
  StatusOr<HttpResponse> answer = Forward(request, owner, kForwardTimeoutMs);
  return answer.ok() ? *answer : ErrorResponse(answer.status());
}

void HttpServer::Audit(const HttpRequest& request, const HttpResponse& response) {
  storage::AuditEntry entry;
  entry.time_ms = api::NowMillis();
  entry.actor = request.principal.Actor();
  entry.method = request.method;
  entry.path = request.path;
  entry.status = response.status;
  if (response.status >= 400) {
    auto body = nlohmann::json::parse(response.body, nullptr, false);
    if (body.is_object() && body.contains("error") && body["error"].is_object()) {
      entry.detail = body["error"].value("message", "");
    }
  }
  audit_->Record(std::move(entry));
}

// The listener's look at the head of a request with a body, before the
// body is read: nothing is held for a request that would be refused.
std::optional<HttpResponse> HttpServer::CheckHead(HttpRequest head) {
  Router::Resolution route;
  if (std::optional<HttpResponse> refused = Prepare(head, &route)) return refused;
  if (Status allowed = Authorize(head, route); !allowed.ok()) {
    HttpResponse refused = ErrorResponse(allowed);
    // Refused before its body was read: audited here, as Handle() never sees it.
    if (head.method != "GET" && head.method != "HEAD" && audit_ != nullptr) Audit(head, refused);
    return refused;
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

// Who sends the request (into request.principal), and whether the route
// is open to them. A route in a namespace the caller may not read answers
// as if nothing were there (404, the words a missing experiment or
// namespace gets), so that existence is not revealed.
Status HttpServer::Authorize(HttpRequest& request, const Router::Resolution& route) const {
  if (options_.token.empty()) {
    request.principal = Principal::Admin();
    return Status::Ok();
  }
  const std::string auth = request.Header("authorization");
  const std::string prefix = "Bearer ";
  const std::string given = auth.rfind(prefix, 0) == 0 ? auth.substr(prefix.size()) : "";
  Principal& who = request.principal;
  if (!given.empty()) {
    who = accounts_ ? accounts_->Authenticate(given)
                    : (controller::SameToken(given, options_.token) ? Principal::Admin()
                                                                   : Principal());
  }
  const bool trial_route =
      route.access == Access::kTrialRead || route.access == Access::kTrialWrite;
  auto var = [&](const char* key) {
    auto it = route.vars.find(key);
    return it == route.vars.end() ? std::string() : it->second;
  };
  const std::string ns = route.vars.count("ns") ? var("ns") : api::kDefaultNamespace;
  const std::string key = api::ExperimentKey(ns, var("name"));
  if (who.kind == Principal::Kind::kAnonymous && !given.empty() && route.method_allowed &&
      trial_route && !var("name").empty() && !var("trial").empty()) {
    const std::string expected = controller_->TrialTokenFor(key, var("trial"));
    if (!expected.empty() && controller::SameToken(given, expected)) {
      who.kind = Principal::Kind::kTrial;
      who.experiment = key;
      who.trial = var("trial");
      return Status::Ok();
    }
  }
  if (route.method_allowed && route.access == Access::kPublic) return Status::Ok();
  if (who.kind == Principal::Kind::kAnonymous || who.kind == Principal::Kind::kTrial) {
    return Status(StatusCode::kUnauthenticated, kUnauthenticated);
  }
  if (who.admin() || !route.method_allowed) return Status::Ok();  // the router's 404/405
  const bool reads = who.CanRead(ns);
  auto hidden = [&] {
    return var("name").empty() ? NotFound("namespace '" + ns + "' not found")
                               : NotFound("experiment '" + key + "' not found");
  };
  switch (route.access) {
    case Access::kPublic:
    case Access::kSignedIn:
      return Status::Ok();
    case Access::kRead:
    case Access::kTrialRead:
      return reads ? Status::Ok() : hidden();
    case Access::kWrite:
    case Access::kTrialWrite:
      if (who.CanWrite(ns)) return Status::Ok();
      if (!reads) return hidden();
      return PermissionDenied("user '" + who.name + "' is a viewer in namespace '" + ns +
                              "': it may read, not change");
    case Access::kAdmin:
      break;
  }
  return PermissionDenied("only an admin may call " + request.method + " " + request.path);
}

}  // namespace hpt::server
