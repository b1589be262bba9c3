#pragma once
// HttpListener: serves a handler over HTTP/1.1 (Boost.Beast on Boost.Asio;
// http_listener.cc and http_connection.cc are the only server files that
// see a socket). What it guarantees whoever calls it:
// - Bodies over max_body_bytes get 413 without reaching the handler,
//   chunked ones too (read up to the limit, never held whole).
// - A connection must deliver a whole request head within header_timeout
//   of its first byte, and its body within body_timeout; one that sends
//   nothing for idle_timeout (before a request, or between keep-alive
//   requests) is closed. A slow or silent client holds a connection for a
//   bounded time, never for ever.
// - At most max_connections are open at once; the next ones get a short
//   503 and are closed. Running out of descriptors slows accepting down
//   instead of spinning.
// - The handler runs on a pool of handler_threads, never on the threads
//   that read and write sockets, so a slow handler delays only its own
//   connection. A handler that throws answers 500 and is logged: a server
//   bug is never blamed on the client.
// - TRACE is answered 405 here (it would echo headers); every other method
//   reaches the handler, OPTIONS included.
// Close() stops accepting, waits for the handlers in flight and closes
// every connection.

#include <chrono>
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
  size_t max_header_bytes = 64u << 10;  // request line and headers; beyond: 431
  std::chrono::milliseconds header_timeout{10'000};
  std::chrono::milliseconds body_timeout{60'000};
  std::chrono::milliseconds idle_timeout{30'000};
  std::chrono::milliseconds write_timeout{60'000};
  // 0: 1024, or fewer where the open-file limit is lower (half of what it
  // leaves after the server's own descriptors).
  int max_connections = 0;
  int handler_threads = 40;
  int io_threads = 2;
};

// Unavailable when the address cannot be bound.
StatusOr<std::unique_ptr<HttpListener>> OpenHttpListener(const ListenerOptions& options,
                                                         RequestHandler handler);

// Raises this process's soft RLIMIT_NOFILE to its hard limit (a server
// holds a descriptor per connection, trial and log). The soft limit in
// effect afterwards.
int64_t RaiseOpenFileLimit();

}  // namespace hpt::server
