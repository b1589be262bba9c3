#pragma once
// ApiClient: a small blocking client of the REST API v1, used by the CLI.
// Keeps one connection alive between calls. Not thread-safe.

#include <memory>
#include <string>

#include <nlohmann/json.hpp>

#include "api/status.h"

namespace hpt::client {

struct HttpResult {
  int status = 0;
  std::string body;
  std::string content_type;
};

class ApiClient {
 public:
  virtual ~ApiClient() = default;
  // Raw call. Unavailable when the server cannot be reached.
  virtual StatusOr<HttpResult> Call(const std::string& method, const std::string& path,
                                    const std::string& body = "",
                                    const std::string& content_type = "application/json") = 0;
  // Calls and decodes a JSON answer; a 4xx/5xx becomes a Status carrying the
  // server's error message.
  StatusOr<nlohmann::json> Json(const std::string& method, const std::string& path,
                                const nlohmann::json& body = nullptr);
};

// `url` like "http://127.0.0.1:8750"; `token` may be empty. http:// URLs
// go through client/http_connection.h, https:// through cpprestsdk (TLS).
std::unique_ptr<ApiClient> NewApiClient(const std::string& url, const std::string& token,
                                        int timeout_seconds = 30);

// The Status an HTTP error answer stands for (code from the HTTP status,
// message from the body's error.message).
Status StatusFromHttp(const HttpResult& result);

}  // namespace hpt::client
