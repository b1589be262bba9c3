#include "tests/testing/raw_http.h"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdlib>

namespace hpt::testing {
namespace {

int Connect(const std::string& url) {
  // "http://HOST:PORT"
  std::string rest = url.substr(url.find("//") + 2);
  std::string host = rest.substr(0, rest.find(':'));
  int port = std::atoi(rest.substr(rest.find(':') + 1).c_str());
  int fd = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
  if (fd < 0) return -1;
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_port = htons(static_cast<uint16_t>(port));
  if (::inet_pton(AF_INET, host == "localhost" ? "127.0.0.1" : host.c_str(),
                  &addr.sin_addr) != 1 ||
      ::connect(fd, reinterpret_cast<sockaddr*>(&addr), sizeof addr) != 0) {
    ::close(fd);
    return -1;
  }
  return fd;
}

bool SendAll(int fd, const std::string& data) {
  size_t sent = 0;
  while (sent < data.size()) {
    ssize_t n = ::send(fd, data.data() + sent, data.size() - sent, MSG_NOSIGNAL);
    if (n <= 0) return false;
    sent += static_cast<size_t>(n);
  }
  return true;
}

// Parses a complete response out of `raw`; false while more is needed.
bool Parse(const std::string& raw, bool closed, RawResponse* out) {
  size_t head_end = raw.find("\r\n\r\n");
  if (head_end == std::string::npos) return false;
  RawResponse r;
  size_t line_end = raw.find("\r\n");
  std::string status_line = raw.substr(0, line_end);
  size_t sp = status_line.find(' ');
  if (sp == std::string::npos) return false;
  r.status = std::atoi(status_line.c_str() + sp + 1);
  size_t pos = line_end + 2;
  while (pos < head_end) {
    size_t end = raw.find("\r\n", pos);
    std::string line = raw.substr(pos, end - pos);
    size_t colon = line.find(':');
    if (colon != std::string::npos) {
      std::string key = line.substr(0, colon);
      std::transform(key.begin(), key.end(), key.begin(), ::tolower);
      std::string value = line.substr(colon + 1);
      value.erase(0, value.find_first_not_of(' '));
      r.headers[key] = value;
    }
    pos = end + 2;
  }
  std::string body = raw.substr(head_end + 4);
  auto length = r.headers.find("content-length");
  if (length != r.headers.end()) {
    size_t want = std::strtoull(length->second.c_str(), nullptr, 10);
    if (body.size() < want) return false;
    body.resize(want);
  } else if (!closed) {
    return false;
  }
  r.body = std::move(body);
  *out = std::move(r);
  return true;
}

}  // namespace

RawResponse RawHttp(const std::string& url, const std::string& method,
                    const std::string& target,
                    const std::map<std::string, std::string>& headers,
                    const std::string& body, int timeout_seconds) {
  RawResponse response;
  int fd = Connect(url);
  if (fd < 0) return response;
  std::string request = method + " " + target + " HTTP/1.1\r\n";
  if (!headers.count("Host")) request += "Host: " + url.substr(url.find("//") + 2) + "\r\n";
  request += "Connection: close\r\n";
  for (const auto& [k, v] : headers) request += k + ": " + v + "\r\n";
  if ((!body.empty() || method == "POST" || method == "PUT") &&
      !headers.count("Transfer-Encoding")) {
    request += "Content-Length: " + std::to_string(body.size()) + "\r\n";
  }
  request += "\r\n" + body;
  if (!SendAll(fd, request)) {
    ::close(fd);
    return response;
  }
  auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(timeout_seconds);
  std::string raw;
  char buffer[65536];
  while (true) {
    auto left = std::chrono::duration_cast<std::chrono::milliseconds>(
                    deadline - std::chrono::steady_clock::now())
                    .count();
    if (left <= 0) break;
    pollfd p{fd, POLLIN, 0};
    if (::poll(&p, 1, static_cast<int>(left)) <= 0) break;
    ssize_t n = ::recv(fd, buffer, sizeof buffer, 0);
    if (n <= 0) {
      Parse(raw, true, &response);
      break;
    }
    raw.append(buffer, static_cast<size_t>(n));
    if (Parse(raw, false, &response)) break;
  }
  ::close(fd);
  return response;
}

}  // namespace hpt::testing
