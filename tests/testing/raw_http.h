#pragma once
// RawHttp: one HTTP/1.1 request written byte for byte on a plain socket, so
// that security tests can send what a real client library would normalise
// away (encoded slashes, empty segments, odd methods).

#include <map>
#include <string>

namespace hpt::testing {

struct RawResponse {
  int status = 0;  // 0: no answer (connection refused, closed or timed out)
  std::map<std::string, std::string> headers;  // keys lower-case
  std::string body;
};

// Sends `method target` with the headers and body to the server at `url`
// ("http://127.0.0.1:PORT"). `target` goes on the request line as given;
// a "Host" in `headers` replaces the one taken from `url`; with a
// "Transfer-Encoding" header, `body` is sent as given (already chunked).
RawResponse RawHttp(const std::string& url, const std::string& method,
                    const std::string& target,
                    const std::map<std::string, std::string>& headers = {},
                    const std::string& body = "", int timeout_seconds = 10);

}  // namespace hpt::testing
