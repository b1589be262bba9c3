#pragma once
// HttpConnection: one kept-alive HTTP/1.1 connection over a plain socket,
// for ApiClient's http:// URLs. One blocking request at a time, each with a
// deadline; no task scheduler or thread hand-off between the caller and the
// socket, so that a client costs the machine little next to the server it
// talks to. Not thread-safe.
//
// Answers may carry a Content-Length, a chunked body, or a body that ends
// when the server closes. A connection the server closed while it sat idle
// is opened again, and a request that found it closed before any answer
// came is sent once more on the new one.

#include <chrono>
#include <string>

#include "api/status.h"
#include "client/api_client.h"

namespace hpt::client {

class HttpConnection {
 public:
  // `host` a name or an address (IPv6 without brackets); `timeout` bounds
  // each Exchange, connecting included.
  HttpConnection(std::string host, int port, std::chrono::milliseconds timeout);
  ~HttpConnection();
  HttpConnection(const HttpConnection&) = delete;
  HttpConnection& operator=(const HttpConnection&) = delete;

  // Sends `request` (head and body, as sent) and reads its answer.
  // `no_body`: the answer has none whatever its headers say (HEAD).
  // Unavailable, with the reason, when the server cannot be reached or
  // answers what is not HTTP.
  StatusOr<HttpResult> Exchange(const std::string& request, bool no_body);

 private:
  using Clock = std::chrono::steady_clock;

  Status Connect(Clock::time_point deadline);
  void Close();
  // The kept connection is open and the server has sent nothing unasked.
  bool IdleAndOpen() const;
  Status SendAll(const std::string& data, Clock::time_point deadline);
  // Reads at least one more byte into buffer_; `eof` set (and Ok) when the
  // server closed instead.
  Status ReadMore(Clock::time_point deadline, bool* eof);
  StatusOr<HttpResult> ReadAnswer(bool no_body, Clock::time_point deadline);
  // Until buffer_ holds `size` bytes past `from`.
  Status ReadUntil(size_t size, Clock::time_point deadline);
  StatusOr<std::string> ReadChunked(size_t from, Clock::time_point deadline,
                                    size_t* end);

  std::string host_;
  int port_;
  std::chrono::milliseconds timeout_;
  int fd_ = -1;
  std::string buffer_;   // read but not yet taken by an answer
  size_t received_ = 0;  // bytes read for the answer in progress
};

}  // namespace hpt::client
