#define _TURN_OFF_PLATFORM_STRING  // cpprest's U() macro breaks other headers
#include "client/api_client.h"

#include <cpprest/http_client.h>

#include <algorithm>
#include <chrono>

#include "client/http_connection.h"

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

// Names typed by users may hold spaces or '%': sent encoded, so that the
// server answers about the name, not the client about its URI.
std::string EncodedPath(const std::string& path) {
  return web::uri::encode_uri(path, web::uri::components::full_uri);
}

// http:// URLs: one kept-alive socket of its own (client/http_connection.h),
// which costs a busy machine a fraction of what cpprestsdk's client does.
class PlainHttpClient : public ApiClient {
 public:
  PlainHttpClient(const std::string& url, const std::string& token, int timeout_seconds)
      : PlainHttpClient(web::uri(url), url, token, timeout_seconds) {}

  StatusOr<HttpResult> Call(const std::string& method, const std::string& path,
                            const std::string& body,
                            const std::string& content_type) override {
    std::string request;
    request.reserve(256 + body.size());
    request += method + " " + base_path_ + EncodedPath(path) + " HTTP/1.1\r\nHost: " +
               host_header_ + "\r\n" + authorization_;
    if (!body.empty()) request += "Content-Type: " + content_type + "\r\n";
    if (!body.empty() || method == "POST" || method == "PUT" || method == "PATCH") {
      request += "Content-Length: " + std::to_string(body.size()) + "\r\n";
    }
    request += "\r\n";
    request += body;
    auto answer = connection_.Exchange(request, method == "HEAD");
    if (!answer.ok()) {
      return Unavailable("cannot reach the hpt server at " + url_ + ": " +
                         answer.status().message());
    }
    return answer;
  }

 private:
  PlainHttpClient(const web::uri& uri, const std::string& url, const std::string& token,
                  int timeout_seconds)
      : url_(url),
        connection_(Host(uri), uri.port() > 0 ? uri.port() : 80,
                    std::chrono::seconds(timeout_seconds)),
        host_header_(uri.host() + (uri.port() > 0 ? ":" + std::to_string(uri.port()) : "")),
        base_path_(uri.path()),
        authorization_(token.empty() ? "" : "Authorization: Bearer " + token + "\r\n") {
    while (!base_path_.empty() && base_path_.back() == '/') base_path_.pop_back();
  }

  // The host to connect to: an IPv6 address without its brackets.
  static std::string Host(const web::uri& uri) {
    const std::string& host = uri.host();
    if (host.size() > 2 && host.front() == '[' && host.back() == ']') {
      return host.substr(1, host.size() - 2);
    }
    return host;
  }

  std::string url_;
  HttpConnection connection_;
  std::string host_header_;
  std::string base_path_;
  std::string authorization_;
};

// https:// URLs: cpprestsdk's client, for its TLS.
class CpprestClient : public ApiClient {
 public:
  CpprestClient(const std::string& url, const std::string& token, int timeout_seconds)
      : url_(url), token_(token), client_(url, Config(timeout_seconds)) {}

  StatusOr<HttpResult> Call(const std::string& method, const std::string& path,
                            const std::string& body,
                            const std::string& content_type) override {
    try {
      web::http::http_request req(method);
      req.set_request_uri(EncodedPath(path));
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
  if (std::any_of(token.begin(), token.end(),
                  [](char c) { return static_cast<unsigned char>(c) < 0x20; })) {
    return std::make_unique<BadUrlClient>("the API token holds a control character");
  }
  try {
    if (url.rfind("http://", 0) == 0) {
      return std::make_unique<PlainHttpClient>(url, token, timeout_seconds);
    }
    return std::make_unique<CpprestClient>(url, token, timeout_seconds);
  } catch (const std::exception& e) {
    return std::make_unique<BadUrlClient>("server URL '" + url + "': " + e.what());
  }
}

}  // namespace hpt::client
