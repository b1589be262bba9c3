#pragma once
// One accepted connection of HttpListener (http_listener.h states the
// guarantees): reads each request within its deadlines, hands it to the
// handler pool, writes the answer and reads the next one, until the client
// closes, a deadline passes, a request is refused, or the listener closes.
// Internal to server/: only http_listener.cc creates connections.

#include <atomic>

#include <boost/asio/ip/tcp.hpp>
#include <boost/asio/thread_pool.hpp>

#include "server/http_listener.h"

namespace hpt::server::internal {

// What every connection of one listener shares; outlives them all.
struct ConnectionContext {
  const ListenerOptions* options = nullptr;
  const RequestHandler* handler = nullptr;
  boost::asio::thread_pool* handlers = nullptr;  // where `handler` runs
  std::atomic<int>* open = nullptr;  // connections alive; each one's end decrements it
  // Requests handed to the handler whose answer is not written yet.
  std::atomic<int>* answering = nullptr;
  const std::atomic<bool>* closing = nullptr;  // no new request is handled once set
};

// Serves `socket` (already counted in *context.open) until it ends.
void ServeConnection(boost::asio::ip::tcp::socket socket, const ConnectionContext& context);

// The answer to an HttpRequest the handler never saw: refused here.
HttpResponse RefusalResponse(int status, const char* code, const std::string& message);

}  // namespace hpt::server::internal
