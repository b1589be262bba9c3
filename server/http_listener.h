#pragma once
// HttpListener: serves a handler over HTTP/1.1 (Boost.Beast on Boost.Asio;
// http_listener.cc and http_connection.cc are the only server files that
// see a socket). What it guarantees whoever calls it:
// - Bodies over max_body_bytes get 413 without reaching the handler,
//   chunked ones too (read up to the limit, never held whole). A request
//   with a body is first shown, head only, to the HeadCheck: what it
//   refuses (no token, say) has its body drained, never held. Bodies being
//   read by all connections together are held to max_body_bytes_in_flight
//   (503 beyond).
// - A connection must deliver a whole request head within header_timeout
//   of its first byte, and its body within body_timeout; one that sends
//   nothing for idle_timeout (before a request, or between keep-alive
//   requests) is closed. A slow or silent client holds a connection for a
//   bounded time, never for ever.
// - At most max_connections are open at once. A new one then takes the
//   place of the connection that has waited longest for a request (idle,
//   or its head still arriving); when every one is busy with a request,
//   the new one gets a short 503 and is closed (while many that were
//   asked to give way are still closing, it waits for them, up to a
//   second, before that). Running out of
//   descriptors slows accepting down instead of spinning. Listening and
//   accepted sockets are close-on-exec.
// - The handler runs on a pool of handler_threads, never on the threads
//   that read and write sockets, so a slow handler delays only its own
//   connection. A handler that throws answers 500 and is logged: a server
//   bug is never blamed on the client.
// - TRACE is answered 405 here (it would echo headers); every other method
//   reaches the handler, OPTIONS included. A Transfer-Encoding other than
//   a final "chunked" is a 400 (no framing a proxy could read otherwise).
//   An answer to HEAD carries no body.
// Close() stops accepting, waits for the handlers in flight and closes
// every connection.

#include <chrono>
#include <functional>
#include <memory>
#include <optional>
#include <string>

#include "api/status.h"
#include "server/http_types.h"

namespace hpt::server {

using RequestHandler = std::function<HttpResponse(HttpRequest&)>;
// Sees a request's head (no body) before its body is read; an answer
// refuses the request. Runs on the socket threads: it must not block.
using HeadCheck = std::function<std::optional<HttpResponse>(HttpRequest&)>;

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
  int64_t max_body_bytes_in_flight = 64ll << 20;
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
                                                         RequestHandler handler,
                                                         HeadCheck check_head = nullptr);

// Raises this process's soft RLIMIT_NOFILE to its hard limit (a server
// holds a descriptor per connection, trial and log). The soft limit before,
// which trials get back (their supervisor restores it).
int64_t RaiseOpenFileLimit();

}  // namespace hpt::server
