#pragma once
// HttpConnection: one kept-alive HTTP/1.1 connection over a plain socket,
// for ApiClient's http:// URLs. One blocking request at a time; no task
// scheduler or thread hand-off between the caller and the socket, so that a
// client costs the machine little next to the server it talks to. Not
// thread-safe.
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
  // `host` a name or an address (IPv6 without brackets). `timeout` bounds
  // each wait: to connect, to send, and for each next part of an answer
  // (as cpprestsdk's client does, so that a long answer that keeps coming
  // is not cut off).
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
  Status Connect();
  void Close();
  // The kept connection is open and the server has sent nothing unasked.
  bool IdleAndOpen() const;
  Status SendAll(const std::string& data);
  // Reads at least one more byte into buffer_; `eof` set (and Ok) when the
  // server closed instead.
  Status ReadMore(bool* eof);
  StatusOr<HttpResult> ReadAnswer(bool no_body);
  // Until buffer_ holds `size` bytes.
  Status ReadUntil(size_t size);
  // The chunked body that starts at buffer_[from]; `end` set past it.
  StatusOr<std::string> ReadChunked(size_t from, size_t* end);

  std::string host_;
  int port_;
  std::chrono::milliseconds timeout_;
  int fd_ = -1;
  std::string buffer_;   // read but not yet taken by an answer
  size_t received_ = 0;  // bytes read for the answer in progress
};

}  // namespace hpt::client
