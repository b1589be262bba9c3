#define _TURN_OFF_PLATFORM_STRING  // cpprest's U() macro breaks other headers
#include "server/http_listener.h"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <functional>
#include <memory>
#include <stdexcept>
#include <cpprest/containerstream.h>
#include <cpprest/http_listener.h>
#include <cpprest/uri.h>

namespace hpt::server {
namespace {

using web::http::http_request;
using web::http::experimental::listener::http_listener;

// cpprestsdk cannot report the port it bound, so for port 0 we ask the
// kernel for a free one first and retry if someone takes it meanwhile.
int FreePort(const std::string& host) {
  int fd = ::socket(AF_INET, SOCK_STREAM, 0);
  if (fd < 0) return 0;
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_port = 0;
  if (::inet_pton(AF_INET, host.c_str(), &addr.sin_addr) != 1) {
    addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  }
  int port = 0;
  socklen_t len = sizeof(addr);
  if (::bind(fd, reinterpret_cast<sockaddr*>(&addr), sizeof(addr)) == 0 &&
      ::getsockname(fd, reinterpret_cast<sockaddr*>(&addr), &len) == 0) {
    port = ntohs(addr.sin_port);
  }
  ::close(fd);
  return port;
}

HttpRequest Convert(const http_request& req) {
  HttpRequest out;
  out.method = req.method();
  const web::uri& uri = req.request_uri();
  out.raw_path = uri.path();  // decoded once, by NormalizeRequestPath
  // cpprestsdk reads a target such as "//metrics" as host "metrics": keep
  // the empty segment in sight so that it is refused like "/a//b".
  if (uri.scheme().empty() && !uri.host().empty()) {
    out.raw_path = "//" + uri.host() + uri.path();
  }
  try {
    for (const auto& [k, v] : web::uri::split_query(uri.query())) {
      out.query[web::uri::decode(k)] = web::uri::decode(v);
    }
  } catch (const std::exception& e) {
    // Ignoring it would answer a different question (offset 0, the
    // default reference point) than the one asked.
    throw std::invalid_argument(std::string("malformed query string: ") + e.what());
  }
  for (const auto& [k, v] : req.headers()) {
    std::string key = k;
    std::transform(key.begin(), key.end(), key.begin(), ::tolower);
    out.headers[key] = v;
  }
  return out;
}

// Reads a request's body in pieces and stops at the first byte over
// `limit`: a chunked body (no Content-Length to refuse up front) is never
// held whole when it is too large.
class BodyReader : public std::enable_shared_from_this<BodyReader> {
 public:
  using Done = std::function<void(StatusOr<std::string>)>;
  // `discard`: read to the end keeping nothing (a body already refused),
  // so that the connection does not hold it while the answer waits.
  BodyReader(http_request req, size_t limit, Done done, bool discard = false)
      : req_(std::move(req)), limit_(limit), done_(std::move(done)), discard_(discard) {}

  void Next() {
    auto self = shared_from_this();
    req_.body().read(buffer_, kPiece).then([self](pplx::task<size_t> t) {
      size_t n = 0;
      try {
        n = t.get();
      } catch (const std::exception& e) {
        self->done_(InvalidArgument(std::string("bad request body: ") + e.what()));
        return;
      }
      self->size_ += n;
      if (self->discard_) {
        self->buffer_ = concurrency::streams::container_buffer<std::string>();
        if (n == 0) {
          self->done_(std::string());
        } else {
          self->Next();
        }
        return;
      }
      if (self->size_ > self->limit_) {
        // Only a chunked body gets here (a Content-Length over the limit is
        // refused before): closed for writing too, the connection stops
        // buffering it. (Closing a Content-Length body would make cpprest
        // spin, which is why those are drained instead.)
        self->req_.body().streambuf().close().wait();
        self->done_(Status(StatusCode::kResourceExhausted,
                           "request body is over the limit of " +
                               std::to_string(self->limit_) + " bytes"));
        return;
      }
      if (n == 0) {
        // The buffer grows by a whole piece per read: only size_ bytes hold data.
        std::string body = std::move(self->buffer_.collection());
        body.resize(self->size_);
        self->done_(std::move(body));
        return;
      }
      self->Next();
    });
  }

 private:
  static constexpr size_t kPiece = 64 * 1024;
  http_request req_;
  size_t limit_;
  size_t size_ = 0;  // bytes read so far
  Done done_;
  bool discard_;
  concurrency::streams::container_buffer<std::string> buffer_;
};

void Reply(http_request req, const HttpResponse& response) {
  web::http::http_response r(static_cast<web::http::status_code>(response.status));
  r.set_body(response.body, response.content_type);
  for (const auto& [name, value] : response.headers) r.headers().add(name, value);
  // Trial logs and names are user text: no browser may sniff them as HTML.
  r.headers()["X-Content-Type-Options"] = "nosniff";
  req.reply(r).then([](pplx::task<void> t) {
    try {
      t.get();
    } catch (...) {
      // The client went away; nothing to do.
    }
  });
}

class CpprestListener : public HttpListener {
 public:
  CpprestListener(std::unique_ptr<http_listener> listener, int port)
      : listener_(std::move(listener)), port_(port) {}
  ~CpprestListener() override { Close(); }
  int port() const override { return port_; }
  void Close() override {
    if (!listener_) return;
    try {
      listener_->close().wait();
    } catch (...) {
    }
    listener_.reset();
  }

 private:
  std::unique_ptr<http_listener> listener_;
  int port_;
};

}  // namespace

StatusOr<std::unique_ptr<HttpListener>> OpenHttpListener(const ListenerOptions& options,
                                                         RequestHandler handler) {
  auto shared = std::make_shared<RequestHandler>(std::move(handler));
  size_t limit = options.max_body_bytes;
  std::string last_error;
  for (int attempt = 0; attempt < (options.port == 0 ? 10 : 1); ++attempt) {
    int port = options.port == 0 ? FreePort(options.host) : options.port;
    std::string url = "http://" + options.host + ":" + std::to_string(port);
    try {
      auto listener = std::make_unique<http_listener>(url);
      auto handle = [shared, limit](http_request req) {
        auto length = req.headers().content_length();
        if (length > limit) {
          Reply(req, ErrorResponse(Status(StatusCode::kResourceExhausted,
                                          "request body of " + std::to_string(length) +
                                              " bytes is over the limit of " +
                                              std::to_string(limit))));
          // cpprest sends the answer once the body is in: read it away.
          std::make_shared<BodyReader>(req, limit, [](StatusOr<std::string>) {}, true)->Next();
          return;
        }
        auto reader = std::make_shared<BodyReader>(
            req, limit, [req, shared](StatusOr<std::string> body) {
              HttpResponse response;
              try {
                if (!body.ok()) {
                  response = ErrorResponse(body.status());
                } else {
                  HttpRequest r = Convert(req);
                  r.body = std::move(*body);
                  response = (*shared)(r);
                }
              } catch (const std::exception& e) {
                response = ErrorResponse(InvalidArgument(std::string("bad request: ") + e.what()));
              }
              Reply(req, response);
            });
        reader->Next();
      };
      listener->support(handle);
      // cpprestsdk answers OPTIONS itself, before any token check.
      listener->support(web::http::methods::OPTIONS, handle);
      // cpprestsdk answers TRACE itself, echoing the request's headers
      // (Authorization included) before any handler or token check.
      listener->support(web::http::methods::TRCE, [](http_request req) {
        Reply(req, JsonResponse(405, {{"error",
                                       {{"code", 405},
                                        {"status", "METHOD_NOT_ALLOWED"},
                                        {"message", "TRACE is not supported"}}}}));
      });
      listener->open().wait();
      return std::unique_ptr<HttpListener>(
          std::make_unique<CpprestListener>(std::move(listener), port));
    } catch (const std::exception& e) {
      last_error = e.what();
    }
  }
  return Unavailable("cannot listen on " + options.host + ":" +
                     std::to_string(options.port) + ": " + last_error);
}

}  // namespace hpt::server
