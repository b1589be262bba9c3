#pragma once
// HttpListener: serves a handler over HTTP/1.1 with cpprestsdk (the only
// file that includes it on the server side). Bodies over max_body_bytes get
// 413 without reaching the handler.

#include <functional>
#include <memory>
#include <string>

#include "api/status.h"
#include "server/http_types.h"

namespace hpt::server {

using RequestHandler = std::function<HttpResponse(HttpRequest&)>;

class HttpListener {
 public:
  virtual ~HttpListener() = default;
  // The port it listens on (the chosen one when asked for port 0).
  virtual int port() const = 0;
  virtual void Close() = 0;
};

struct ListenerOptions {
  std::string host = "127.0.0.1";
  int port = 0;  // 0: any free port
  size_t max_body_bytes = 4u << 20;
};

// Unavailable when the address cannot be bound.
StatusOr<std::unique_ptr<HttpListener>> OpenHttpListener(const ListenerOptions& options,
                                                         RequestHandler handler);

}  // namespace hpt::server
