#pragma once
// Transport-neutral HTTP request/response values. The socket side
// (http_listener.cc) converts to and from them, so routing and handlers are
// plain functions that tests can call without a socket.

#include <map>
#include <string>

#include <nlohmann/json.hpp>

#include "api/status.h"
#include "server/principal.h"

namespace hpt::server {

struct HttpRequest {
  std::string method;  // "GET", "POST", ...
  std::string path;  // normalised and decoded (server/request_path.h)
  std::map<std::string, std::string> query;
  std::map<std::string, std::string> headers;  // keys lower-case
  std::string body;
  // Path variables filled by the router ("name", "trial").
  std::map<std::string, std::string> vars;
  // The path as on the request line (percent-encoded, no query); the server
  // normalises it into `path`.
  std::string raw_path;
  // Who sends it, once the server authenticated it (http_server.h).
  Principal principal;

  const std::string& Var(const std::string& key) const { return vars.at(key); }
  std::string Header(const std::string& lower_key) const;
};

struct HttpResponse {
  int status = 200;
  std::string content_type = "application/json";
  std::string body;
  std::map<std::string, std::string> headers;  // besides Content-Type
};

HttpResponse JsonResponse(int status, const nlohmann::json& body);
// {"error": {"code", "status", "message"}} with the status's HTTP code.
HttpResponse ErrorResponse(const Status& status);

}  // namespace hpt::server
