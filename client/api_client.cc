#define _TURN_OFF_PLATFORM_STRING  // cpprest's U() macro breaks other headers
#include "client/api_client.h"

#include <cpprest/http_client.h>

namespace hpt::client {
namespace {

using web::http::client::http_client;
using web::http::client::http_client_config;

StatusCode CodeForHttp(int status) {
  switch (status) {
    case 400: return StatusCode::kInvalidArgument;
    case 401: return StatusCode::kUnauthenticated;
    case 403: return StatusCode::kPermissionDenied;
    case 404: return StatusCode::kNotFound;
    case 409: return StatusCode::kFailedPrecondition;
    case 413: return StatusCode::kResourceExhausted;
    case 503: return StatusCode::kUnavailable;
    default: return status >= 500 ? StatusCode::kInternal : StatusCode::kInvalidArgument;
  }
}

class CpprestClient : public ApiClient {
 public:
  CpprestClient(const std::string& url, const std::string& token, int timeout_seconds)
      : url_(url), token_(token), client_(url, Config(timeout_seconds)) {}

  StatusOr<HttpResult> Call(const std::string& method, const std::string& path,
                            const std::string& body,
                            const std::string& content_type) override {
    try {
      web::http::http_request req(method);
      // Names typed by users may hold spaces or '%': sent encoded, so that
      // the server answers about the name, not the client about its URI.
      req.set_request_uri(web::uri::encode_uri(path, web::uri::components::full_uri));
      if (!token_.empty()) req.headers().add("Authorization", "Bearer " + token_);
      if (!body.empty()) req.set_body(body, content_type);
      web::http::http_response resp = client_.request(req).get();
      HttpResult out;
      out.status = resp.status_code();
      out.content_type = resp.headers().content_type();
      out.body = resp.extract_utf8string(true).get();
      return out;
    } catch (const std::exception& e) {
      return Unavailable("cannot reach the hpt server at " + url_ + ": " + e.what());
    }
  }

 private:
  static http_client_config Config(int timeout_seconds) {
    http_client_config config;
    config.set_timeout(std::chrono::seconds(timeout_seconds));
    return config;
  }

  std::string url_;
  std::string token_;
  http_client client_;
};

// Every call fails with the reason the URL cannot be used.
class BadUrlClient : public ApiClient {
 public:
  explicit BadUrlClient(std::string problem) : problem_(std::move(problem)) {}
  StatusOr<HttpResult> Call(const std::string&, const std::string&, const std::string&,
                            const std::string&) override {
    return InvalidArgument(problem_);
  }

 private:
  std::string problem_;
};

// "" when `url` is an http(s) URL with a host; else why not.
std::string UrlProblem(const std::string& url) {
  const std::string quoted = "server URL '" + url.substr(0, 200) + "'";
  if (url.rfind("http://", 0) != 0 && url.rfind("https://", 0) != 0) {
    return quoted + " is not an http:// or https:// URL (set --server or HPT_SERVER)";
  }
  if (!web::uri::validate(url) || web::uri(url).host().empty()) {
    return quoted + " is not a valid URL with a host (e.g. http://127.0.0.1:8750)";
  }
  return "";
}

// A body for a one-line message: its first line, control characters
// dropped, at most 200 bytes.
std::string OneLine(const std::string& body) {
  std::string out;
  for (char c : body.substr(0, body.find('\n'))) {
    if (static_cast<unsigned char>(c) >= 0x20) out += c;
    if (out.size() >= 200) break;
  }
  return out;
}

}  // namespace

Status StatusFromHttp(const HttpResult& result) {
  if (result.status < 400) return Status::Ok();
  std::string message = "HTTP " + std::to_string(result.status);
  auto j = nlohmann::json::parse(result.body, nullptr, false);
  if (!j.is_discarded() && j.contains("error") && j["error"].contains("message")) {
    message = j["error"]["message"].get<std::string>();
  } else if (result.content_type.find("html") != std::string::npos) {
    message += " with an HTML page, not hpt's JSON: is this an hpt server?";
  } else if (!result.body.empty()) {
    message += ": " + OneLine(result.body);
  }
  return Status(CodeForHttp(result.status), message);
}

StatusOr<nlohmann::json> ApiClient::Json(const std::string& method,
                                         const std::string& path,
                                         const nlohmann::json& body) {
  HPT_ASSIGN_OR_RETURN(HttpResult r,
                       Call(method, path, body.is_null() ? "" : body.dump()));
  HPT_RETURN_IF_ERROR(StatusFromHttp(r));
  auto j = nlohmann::json::parse(r.body, nullptr, false);
  if (j.is_discarded()) return Internal("the server answered invalid JSON");
  return j;
}

std::unique_ptr<ApiClient> NewApiClient(const std::string& url, const std::string& token,
                                        int timeout_seconds) {
  std::string problem = UrlProblem(url);
  if (!problem.empty()) return std::make_unique<BadUrlClient>(problem);
  try {
    return std::make_unique<CpprestClient>(url, token, timeout_seconds);
  } catch (const std::exception& e) {
    return std::make_unique<BadUrlClient>("server URL '" + url + "': " + e.what());
  }
}

}  // namespace hpt::client
