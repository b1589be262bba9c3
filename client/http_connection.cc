#include "client/http_connection.h"

#include <netdb.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <strings.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cctype>
#include <cerrno>
#include <cstring>

namespace hpt::client {
namespace {

constexpr size_t kMaxHead = 64 << 10;
constexpr size_t kMaxBody = size_t{1} << 30;

std::string Lower(std::string s) {
  for (char& c : s) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return s;
}

std::string Trim(const std::string& s) {
  size_t b = s.find_first_not_of(" \t"), e = s.find_last_not_of(" \t");
  return b == std::string::npos ? "" : s.substr(b, e - b + 1);
}

std::string TimeoutText(std::chrono::milliseconds timeout) {
  if (timeout.count() % 1000 == 0) return std::to_string(timeout.count() / 1000) + " s";
  return std::to_string(timeout.count()) + " ms";
}

// Ok once `fd` is ready for `events`; Unavailable when it is not within
// `timeout` (`what` says what did not come).
Status Await(int fd, short events, std::chrono::milliseconds timeout, const char* what) {
  const auto until = std::chrono::steady_clock::now() + timeout;
  for (;;) {
    auto left = std::chrono::duration_cast<std::chrono::milliseconds>(
        until - std::chrono::steady_clock::now());
    pollfd p{fd, events, 0};
    int n = ::poll(&p, 1, left.count() > 0 ? static_cast<int>(left.count()) : 0);
    if (n > 0) return Status::Ok();
    if (n == 0) return Unavailable(std::string(what) + " for " + TimeoutText(timeout));
    if (errno != EINTR) return Unavailable(std::string("poll: ") + std::strerror(errno));
  }
}

struct Head {
  int status = 0;
  bool keep_alive = true;
  bool chunked = false;
  bool has_length = false;
  size_t length = 0;
  std::string content_type;
};

// The status line and headers in `text` (without the blank line).
StatusOr<Head> ParseHead(const std::string& text) {
  Head head;
  size_t eol = text.find("\r\n");
  std::string status_line = text.substr(0, eol);
  if (status_line.rfind("HTTP/1.", 0) != 0 || status_line.size() < 12 || status_line[8] != ' ' ||
      !std::isdigit(static_cast<unsigned char>(status_line[9])) ||
      !std::isdigit(static_cast<unsigned char>(status_line[10])) ||
      !std::isdigit(static_cast<unsigned char>(status_line[11]))) {
    return Unavailable("the answer is not HTTP/1.x: '" + status_line.substr(0, 40) + "'");
  }
  head.status = std::stoi(status_line.substr(9, 3));
  head.keep_alive = status_line[7] != '0';
  for (size_t line = eol == std::string::npos ? text.size() : eol + 2; line < text.size();) {
    size_t end = text.find("\r\n", line);
    if (end == std::string::npos) end = text.size();
    size_t colon = text.find(':', line);
    if (colon != std::string::npos && colon < end) {
      std::string name = Lower(text.substr(line, colon - line));
      std::string value = Trim(text.substr(colon + 1, end - colon - 1));
      if (name == "content-length") {
        if (value.empty() || value.find_first_not_of("0123456789") != std::string::npos ||
            value.size() > 12) {
          return Unavailable("the answer's Content-Length '" + value.substr(0, 20) +
                             "' is not a number");
        }
        head.has_length = true;
        head.length = std::stoull(value);
      } else if (name == "transfer-encoding") {
        head.chunked = Lower(value).find("chunked") != std::string::npos;
      } else if (name == "connection") {
        std::string v = Lower(value);
        if (v.find("close") != std::string::npos) head.keep_alive = false;
        if (v.find("keep-alive") != std::string::npos) head.keep_alive = true;
      } else if (name == "content-type") {
        head.content_type = value;
      }
    }
    line = end + 2;
  }
  if (head.has_length && head.length > kMaxBody) {
    return Unavailable("the answer's body is over 1 GiB");
  }
  return head;
}

}  // namespace

HttpConnection::HttpConnection(std::string host, int port, std::chrono::milliseconds timeout)
    : host_(std::move(host)), port_(port), timeout_(timeout) {}

HttpConnection::~HttpConnection() { Close(); }

void HttpConnection::Close() {
  if (fd_ >= 0) ::close(fd_);
  fd_ = -1;
  buffer_.clear();
}

bool HttpConnection::IdleAndOpen() const {
  if (fd_ < 0 || !buffer_.empty()) return false;
  pollfd p{fd_, POLLIN, 0};
  // Readable while idle: the server closed it (or sent what nobody asked).
  return ::poll(&p, 1, 0) == 0;
}

Status HttpConnection::Connect() {
  Close();
  addrinfo hints{};
  hints.ai_family = AF_UNSPEC;
  hints.ai_socktype = SOCK_STREAM;
  addrinfo* found = nullptr;
  const std::string where = host_ + ":" + std::to_string(port_);
  int rc = ::getaddrinfo(host_.c_str(), std::to_string(port_).c_str(), &hints, &found);
  if (rc != 0) return Unavailable("cannot resolve " + host_ + ": " + ::gai_strerror(rc));
  std::string why = "no address";
  for (addrinfo* a = found; a != nullptr && fd_ < 0; a = a->ai_next) {
    int fd = ::socket(a->ai_family, a->ai_socktype | SOCK_NONBLOCK | SOCK_CLOEXEC, a->ai_protocol);
    if (fd < 0) {
      why = std::strerror(errno);
      continue;
    }
    Status connected = Status::Ok();
    if (::connect(fd, a->ai_addr, a->ai_addrlen) != 0) {
      if (errno != EINPROGRESS) {
        connected = Unavailable(std::strerror(errno));
      } else {
        connected = Await(fd, POLLOUT, timeout_, "no connection");
        int error = 0;
        socklen_t size = sizeof(error);
        if (connected.ok() && ::getsockopt(fd, SOL_SOCKET, SO_ERROR, &error, &size) == 0 &&
            error != 0) {
          connected = Unavailable(std::strerror(error));
        }
      }
    }
    if (!connected.ok()) {
      why = connected.message();
      ::close(fd);
      continue;
    }
    int one = 1;
    ::setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
    fd_ = fd;
  }
  ::freeaddrinfo(found);
  if (fd_ < 0) return Unavailable("connect to " + where + ": " + why);
  return Status::Ok();
}

Status HttpConnection::SendAll(const std::string& data) {
  for (size_t sent = 0; sent < data.size();) {
    ssize_t n = ::send(fd_, data.data() + sent, data.size() - sent, MSG_NOSIGNAL);
    if (n > 0) {
      sent += static_cast<size_t>(n);
    } else if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) {
      HPT_RETURN_IF_ERROR(Await(fd_, POLLOUT, timeout_, "the server took nothing"));
    } else if (n < 0 && errno == EINTR) {
      continue;
    } else {
      return Unavailable(std::string("send: ") + std::strerror(errno));
    }
  }
  return Status::Ok();
}

Status HttpConnection::ReadMore(bool* eof) {
  *eof = false;
  char chunk[16384];
  for (;;) {
    ssize_t n = ::recv(fd_, chunk, sizeof(chunk), 0);
    if (n > 0) {
      buffer_.append(chunk, static_cast<size_t>(n));
      received_ += static_cast<size_t>(n);
      return Status::Ok();
    }
    if (n == 0) {
      *eof = true;
      return Status::Ok();
    }
    if (errno == EAGAIN || errno == EWOULDBLOCK) {
      HPT_RETURN_IF_ERROR(Await(fd_, POLLIN, timeout_, "no answer"));
    } else if (errno != EINTR) {
      return Unavailable(std::string("recv: ") + std::strerror(errno));
    }
  }
}

Status HttpConnection::ReadUntil(size_t size) {
  while (buffer_.size() < size) {
    bool eof = false;
    HPT_RETURN_IF_ERROR(ReadMore(&eof));
    if (eof) return Unavailable("the server closed the connection in the middle of its answer");
  }
  return Status::Ok();
}

StatusOr<std::string> HttpConnection::ReadChunked(size_t from, size_t* end) {
  std::string body;
  size_t at = from;
  for (;;) {
    size_t eol;
    while ((eol = buffer_.find("\r\n", at)) == std::string::npos) {
      if (buffer_.size() - at > 1024) return Unavailable("a chunk size line over 1 KiB");
      HPT_RETURN_IF_ERROR(ReadUntil(buffer_.size() + 1));
    }
    std::string size_text = Trim(buffer_.substr(at, buffer_.find_first_of(";\r", at) - at));
    if (size_text.empty() || size_text.size() > 8 ||
        size_text.find_first_not_of("0123456789abcdefABCDEF") != std::string::npos) {
      return Unavailable("a chunk size '" + size_text.substr(0, 20) + "' is not hexadecimal");
    }
    size_t size = std::stoul(size_text, nullptr, 16);
    at = eol + 2;
    if (size == 0) break;
    if (body.size() + size > kMaxBody) return Unavailable("the answer's body is over 1 GiB");
    HPT_RETURN_IF_ERROR(ReadUntil(at + size + 2));
    body.append(buffer_, at, size);
    at += size + 2;
  }
  // Trailers, if any, up to the blank line.
  for (;;) {
    size_t eol;
    while ((eol = buffer_.find("\r\n", at)) == std::string::npos) {
      if (buffer_.size() - at > kMaxHead) return Unavailable("trailers over 64 KiB");
      HPT_RETURN_IF_ERROR(ReadUntil(buffer_.size() + 1));
    }
    bool blank = eol == at;
    at = eol + 2;
    if (blank) break;
  }
  *end = at;
  return body;
}

StatusOr<HttpResult> HttpConnection::ReadAnswer(bool no_body) {
  for (;;) {
    size_t head_end;
    while ((head_end = buffer_.find("\r\n\r\n")) == std::string::npos) {
      if (buffer_.size() > kMaxHead) return Unavailable("the answer's headers are over 64 KiB");
      bool eof = false;
      HPT_RETURN_IF_ERROR(ReadMore(&eof));
      if (eof) {
        return Unavailable(buffer_.empty()
                               ? "the server closed the connection without answering"
                               : "the server closed the connection in the middle of its "
                                 "answer");
      }
    }
    HPT_ASSIGN_OR_RETURN(Head head, ParseHead(buffer_.substr(0, head_end)));
    size_t body_at = head_end + 4;
    if (head.status / 100 == 1) {  // 100 Continue and the like: the answer follows
      buffer_.erase(0, body_at);
      continue;
    }
    HttpResult result;
    result.status = head.status;
    result.content_type = head.content_type;
    size_t end = body_at;
    if (no_body || head.status == 204 || head.status == 304) {
      // No body.
    } else if (head.chunked) {
      HPT_ASSIGN_OR_RETURN(result.body, ReadChunked(body_at, &end));
    } else if (head.has_length) {
      HPT_RETURN_IF_ERROR(ReadUntil(body_at + head.length));
      result.body = buffer_.substr(body_at, head.length);
      end = body_at + head.length;
    } else {  // the body ends where the connection does
      for (bool eof = false; !eof;) {
        if (buffer_.size() - body_at > kMaxBody) {
          return Unavailable("the answer's body is over 1 GiB");
        }
        HPT_RETURN_IF_ERROR(ReadMore(&eof));
      }
      result.body = buffer_.substr(body_at);
      end = buffer_.size();
      head.keep_alive = false;
    }
    buffer_.erase(0, end);
    if (!head.keep_alive) Close();
    return result;
  }
}

StatusOr<HttpResult> HttpConnection::Exchange(const std::string& request, bool no_body) {
  for (int attempt = 0;; ++attempt) {
    const bool reused = attempt == 0 && IdleAndOpen();
    if (!reused) HPT_RETURN_IF_ERROR(Connect());
    received_ = 0;
    Status sent = SendAll(request);
    StatusOr<HttpResult> answer = sent.ok() ? ReadAnswer(no_body) : StatusOr<HttpResult>(sent);
    if (answer.ok()) return answer;
    Close();
    // A kept connection the server closed just as this request went out:
    // nothing of an answer came, so the request goes once more on a new one.
    if (!reused || received_ > 0) return answer.status();
  }
}

}  // namespace hpt::client
