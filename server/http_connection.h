#pragma once
// One accepted connection of HttpListener (http_listener.h states the
// guarantees): reads each request within its deadlines, hands it to the
// handler pool, writes the answer and reads the next one, until the client
// closes, a deadline passes, a request is refused, or the listener closes.
// Internal to server/: only http_listener.cc creates connections.

#include <atomic>
#include <chrono>
#include <memory>
#include <mutex>
#include <optional>
#include <vector>

#include <boost/asio/ip/tcp.hpp>
#include <boost/asio/thread_pool.hpp>

#include "server/http_listener.h"

namespace hpt::server::internal {

// What the listener may ask of a live connection. Thread-safe.
class ConnectionHandle {
 public:
  virtual ~ConnectionHandle() = default;
  // Since when it has waited for a request (idle, or the head still
  // arriving); nullopt while a request is read, handled or answered.
  virtual std::optional<std::chrono::steady_clock::time_point> WaitingSince() const = 0;
  // Closes it if it is still waiting for a request (on its own strand).
  virtual void CloseIfWaiting() = 0;
};

// The live connections, so that a full house can make room: the one that
// has waited longest for a request gives way to a new one.
class ConnectionRegistry {
 public:
  void Add(std::weak_ptr<ConnectionHandle> connection);
  // Asks the connection that has waited longest to close; false when none
  // is waiting (every one is busy with a request).
  bool EvictLongestWaiting();

 private:
  std::mutex mu_;
  std::vector<std::weak_ptr<ConnectionHandle>> connections_;  // guarded by mu_
};

// What every connection of one listener shares; outlives them all.
struct ConnectionContext {
  const ListenerOptions* options = nullptr;
  const RequestHandler* handler = nullptr;
  const HeadCheck* check_head = nullptr;  // may hold no function
  boost::asio::thread_pool* handlers = nullptr;  // where `handler` runs
  ConnectionRegistry* registry = nullptr;
  std::atomic<int>* open = nullptr;  // connections alive; each one's end decrements it
  // Requests handed to the handler whose answer is not written yet.
  std::atomic<int>* answering = nullptr;
  // Connections between their look at `closing` and their post to the
  // handler pool (Close() waits for them before it joins the pool).
  std::atomic<int>* dispatching = nullptr;
  // Body bytes being read by every connection (declared lengths, or the
  // limit for a chunked body), against options->max_body_bytes_in_flight.
  std::atomic<int64_t>* body_bytes = nullptr;
  const std::atomic<bool>* closing = nullptr;  // no new request is handled once set
};

// Serves `socket` (already counted in *context.open) until it ends.
void ServeConnection(boost::asio::ip::tcp::socket socket, const ConnectionContext& context);

// The answer to a request the handler never saw: refused here.
HttpResponse RefusalResponse(int status, const char* code, const std::string& message);

}  // namespace hpt::server::internal
