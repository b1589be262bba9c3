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
      req.set_request_uri(path);
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

}  // namespace

Status StatusFromHttp(const HttpResult& result) {
  if (result.status < 400) return Status::Ok();
  std::string message = "HTTP " + std::to_string(result.status);
  auto j = nlohmann::json::parse(result.body, nullptr, false);
  if (!j.is_discarded() && j.contains("error") && j["error"].contains("message")) {
    message = j["error"]["message"].get<std::string>();
  } else if (!result.body.empty()) {
    message += ": " + result.body.substr(0, 200);
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
  return std::make_unique<CpprestClient>(url, token, timeout_seconds);
}

}  // namespace hpt::client
