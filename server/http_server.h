#pragma once
// HttpServer: the REST API and the dashboard's files over HTTP. Every
// request passes, in this order: the server is ready; its Host and Origin
// (origin_guard.h); one normalised path (request_path.h); the route it
// would reach, or a dashboard file (the only thing served without a
// route); the access that route needs (the admin token, or a trial's own
// token for a trial's routes); then the handler (api_handlers.h).
//
// Listening comes before serving, because whoever assembles the process
// needs the URL (trials get it) before it can build the controller the
// routes call: Listen() binds and answers every request 503 "the server is
// starting" until Serve() hands over the routes' context.
//
// Thread safety: Serve() and Close() are called by the owner, once each;
// requests are handled on the listener's threads (http_listener.h).

#include <atomic>
#include <memory>
#include <optional>
#include <string>

#include "api/status.h"
#include "server/api_handlers.h"
#include "server/http_listener.h"
#include "server/origin_guard.h"
#include "server/router.h"
#include "server/static_files.h"

namespace hpt::server {

struct HttpServerOptions {
  std::string host = "127.0.0.1";
  int port = 8750;  // 0: any free port
  // When set, every /api/ call and /metrics needs "Authorization: Bearer".
  std::string token;
  // The URL clients and trials reach the server at, when it is not the
  // one it listens on: also accepted as Host and Origin.
  std::string advertise_url;
  // Folder of the web dashboard; "": the API only.
  std::string ui_dir;
};

class HttpServer {
 public:
  // Binds options.host:options.port. Unavailable when the address cannot
  // be bound (a port in use).
  static StatusOr<std::unique_ptr<HttpServer>> Listen(const HttpServerOptions& options);
  ~HttpServer();

  int port() const { return listener_->port(); }
  std::string url() const;  // "http://127.0.0.1:8750"

  // Adds the API routes over `context` (which must outlive this server)
  // and starts answering them.
  void Serve(const ApiContext& context);
  // Stops accepting, waits for the handlers in flight and closes every
  // connection. Idempotent.
  void Close();

 private:
  explicit HttpServer(const HttpServerOptions& options);

  HttpResponse Handle(HttpRequest& request);
  std::optional<HttpResponse> CheckHead(HttpRequest head);
  std::optional<HttpResponse> Prepare(HttpRequest& request, Router::Resolution* route);
  Status Authorize(HttpRequest& request, const Router::Resolution& route) const;
  void Audit(const HttpRequest& request, const HttpResponse& response);
  // A write for an experiment another live server drives (several servers
  // on one database): that server's answer (server/forward.h); nullopt
  // when this server answers it.
  std::optional<HttpResponse> ForwardToOwner(const HttpRequest& request,
                                             const Router::Resolution& route);

  const HttpServerOptions options_;
  const OriginPolicy origin_policy_;
  controller::Controller* controller_ = nullptr;  // set by Serve(), before ready_
  const Accounts* accounts_ = nullptr;            // likewise; null: the token only
  AuditLog* audit_ = nullptr;                     // likewise; null: no audit
  Router router_;
  std::unique_ptr<StaticFiles> static_files_;
  std::atomic<int64_t> requests_total_{0};
  std::atomic<bool> ready_{false};
  std::unique_ptr<HttpListener> listener_;  // last: closed first
};

}  // namespace hpt::server
