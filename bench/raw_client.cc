#include "bench/raw_client.h"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <strings.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cstdlib>

namespace hpt::bench {
namespace {

class RawClient : public hpt::client::ApiClient {
 public:
  explicit RawClient(const std::string& url) {
    std::string rest = url.substr(url.find("//") + 2);
    size_t colon = rest.find(':');
    host_ = rest.substr(0, colon);
    port_ = std::atoi(rest.substr(colon + 1).c_str());
  }
  ~RawClient() override { Disconnect(); }

  StatusOr<hpt::client::HttpResult> Call(const std::string& method, const std::string& path,
                                    const std::string& body,
                                    const std::string& content_type) override {
    if (fd_ < 0) HPT_RETURN_IF_ERROR(Connect());
    std::string request = method + " " + path + " HTTP/1.1\r\nHost: " + host_ +
                          "\r\nContent-Type: " + content_type +
                          "\r\nContent-Length: " + std::to_string(body.size()) +
                          "\r\n\r\n" + body;
    auto result = RoundTrip(request);
    if (!result.ok()) Disconnect();
    return result;
  }

 private:
  Status Connect() {
    fd_ = ::socket(AF_INET, SOCK_STREAM, 0);
    sockaddr_in addr{};
    addr.sin_family = AF_INET;
    addr.sin_port = htons(port_);
    inet_pton(AF_INET, host_.c_str(), &addr.sin_addr);
    int one = 1;
    setsockopt(fd_, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
    if (fd_ < 0 || ::connect(fd_, reinterpret_cast<sockaddr*>(&addr), sizeof(addr)) != 0) {
      Disconnect();
      return Unavailable("cannot connect to " + host_ + ":" + std::to_string(port_));
    }
    return Status::Ok();
  }

  void Disconnect() {
    if (fd_ >= 0) ::close(fd_);
    fd_ = -1;
    buffer_.clear();
  }

  StatusOr<hpt::client::HttpResult> RoundTrip(const std::string& request) {
    for (size_t sent = 0; sent < request.size();) {
      ssize_t n = ::send(fd_, request.data() + sent, request.size() - sent, MSG_NOSIGNAL);
      if (n <= 0) return Unavailable("send failed");
      sent += n;
    }
    size_t header_end;
    while ((header_end = buffer_.find("\r\n\r\n")) == std::string::npos) {
      HPT_RETURN_IF_ERROR(ReadMore());
    }
    hpt::client::HttpResult result;
    result.status = std::atoi(buffer_.c_str() + buffer_.find(' ') + 1);
    size_t length = 0;
    bool has_length = false;
    for (size_t line = buffer_.find("\r\n") + 2; line < header_end;) {
      size_t eol = buffer_.find("\r\n", line);
      if (strncasecmp(buffer_.c_str() + line, "content-length:", 15) == 0) {
        length = std::strtoul(buffer_.c_str() + line + 15, nullptr, 10);
        has_length = true;
      }
      line = eol + 2;
    }
    if (!has_length) return Unavailable("answer without Content-Length");
    while (buffer_.size() < header_end + 4 + length) HPT_RETURN_IF_ERROR(ReadMore());
    result.body = buffer_.substr(header_end + 4, length);
    buffer_.erase(0, header_end + 4 + length);
    return result;
  }

  Status ReadMore() {
    char chunk[16384];
    ssize_t n = ::recv(fd_, chunk, sizeof(chunk), 0);
    if (n <= 0) return Unavailable("connection closed");
    buffer_.append(chunk, n);
    return Status::Ok();
  }

  std::string host_;
  int port_ = 0;
  int fd_ = -1;
  std::string buffer_;
};

}  // namespace

std::unique_ptr<hpt::client::ApiClient> NewRawClient(const std::string& url) {
  return std::make_unique<RawClient>(url);
}

}  // namespace hpt::bench
