// ApiClient's own HTTP/1.1 client (client/http_connection.h) against a peer
// on a real socket that answers as a script says: the framings an HTTP
// server may choose, kept and dropped connections, a silent server and one
// that is not HTTP. (Every other test talks to a real hpt server through
// the same client.)
#include <arpa/inet.h>
#include <gtest/gtest.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <functional>
#include <mutex>
#include <thread>
#include <vector>

#include "client/api_client.h"

namespace hpt::client {
namespace {

// A listener on 127.0.0.1:0 that hands each connection it accepts, with
// its number (0, 1, ...), to `serve` on its own thread.
class ScriptedPeer {
 public:
  using Serve = std::function<void(int fd, int connection)>;
  explicit ScriptedPeer(Serve serve) : serve_(std::move(serve)) {
    listener_ = ::socket(AF_INET, SOCK_STREAM, 0);
    sockaddr_in addr{};
    addr.sin_family = AF_INET;
    addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    EXPECT_EQ(::bind(listener_, reinterpret_cast<sockaddr*>(&addr), sizeof(addr)), 0);
    EXPECT_EQ(::listen(listener_, 16), 0);
    socklen_t size = sizeof(addr);
    ::getsockname(listener_, reinterpret_cast<sockaddr*>(&addr), &size);
    port_ = ntohs(addr.sin_port);
    acceptor_ = std::thread([this] {
      for (int n = 0;; ++n) {
        int fd = ::accept(listener_, nullptr, nullptr);
        if (fd < 0 || stopping_) {
          if (fd >= 0) ::close(fd);
          return;
        }
        accepted_++;
        std::lock_guard<std::mutex> lock(mu_);
        workers_.emplace_back([this, fd, n] {
          serve_(fd, n);
          ::close(fd);
        });
      }
    });
  }
  ~ScriptedPeer() {
    stopping_ = true;
    ::shutdown(listener_, SHUT_RDWR);
    ::close(listener_);
    acceptor_.join();
    std::lock_guard<std::mutex> lock(mu_);
    for (auto& w : workers_) w.join();
  }
  std::string url() const { return "http://127.0.0.1:" + std::to_string(port_); }
  int accepted() const { return accepted_; }

 private:
  Serve serve_;
  int listener_ = -1;
  int port_ = 0;
  std::atomic<bool> stopping_{false};
  std::atomic<int> accepted_{0};
  std::thread acceptor_;
  std::mutex mu_;
  std::vector<std::thread> workers_;
};

// One request's head and body off `fd` ("" when the client closed).
// `pending` keeps what was read past it.
std::string ReadRequest(int fd, std::string* pending) {
  size_t head_end;
  char chunk[4096];
  while ((head_end = pending->find("\r\n\r\n")) == std::string::npos) {
    ssize_t n = ::recv(fd, chunk, sizeof(chunk), 0);
    if (n <= 0) return "";
    pending->append(chunk, n);
  }
  size_t length = 0;
  size_t at = pending->find("Content-Length: ");
  if (at != std::string::npos && at < head_end) length = std::stoul(pending->substr(at + 16));
  while (pending->size() < head_end + 4 + length) {
    ssize_t n = ::recv(fd, chunk, sizeof(chunk), 0);
    if (n <= 0) return "";
    pending->append(chunk, n);
  }
  std::string request = pending->substr(0, head_end + 4 + length);
  pending->erase(0, request.size());
  return request;
}

void Send(int fd, const std::string& text) {
  for (size_t sent = 0; sent < text.size();) {
    ssize_t n = ::send(fd, text.data() + sent, text.size() - sent, MSG_NOSIGNAL);
    if (n <= 0) return;
    sent += n;
  }
}

std::string Ok(const std::string& body) {
  return "HTTP/1.1 200 OK\r\nContent-Type: "
         "application/json\r\nContent-Length: " +
         std::to_string(body.size()) + "\r\n\r\n" + body;
}

TEST(HttpConnectionTest, KeepsOneConnectionAndSendsTheTokenAndAnEncodedPath) {
  std::mutex mu;
  std::vector<std::string> requests;
  ScriptedPeer peer([&](int fd, int) {
    std::string pending;
    for (std::string r; !(r = ReadRequest(fd, &pending)).empty();) {
      {
        std::lock_guard<std::mutex> lock(mu);
        requests.push_back(r);
      }
      Send(fd, Ok("{\"n\":" + std::to_string(requests.size()) + "}"));
    }
  });
  auto client = NewApiClient(peer.url(), "s3cret");
  for (int i = 1; i <= 3; ++i) {
    auto j = client->Json("POST", "/api/v1/a b/100%", {{"x", i}});
    ASSERT_TRUE(j.ok()) << j.status().ToString();
    EXPECT_EQ((*j)["n"], i);
  }
  EXPECT_EQ(peer.accepted(), 1);
  std::lock_guard<std::mutex> lock(mu);
  ASSERT_EQ(requests.size(), 3u);
  EXPECT_EQ(requests[0].rfind("POST /api/v1/a%20b/100%25 HTTP/1.1\r\n", 0), 0u) << requests[0];
  EXPECT_NE(requests[0].find("\r\nAuthorization: Bearer s3cret\r\n"), std::string::npos);
  EXPECT_NE(requests[0].find("\r\n\r\n{\"x\":1}"), std::string::npos) << requests[0];
}

TEST(HttpConnectionTest, ReadsChunkedAnswersAfterAContinue) {
  ScriptedPeer peer([](int fd, int) {
    std::string pending;
    while (!ReadRequest(fd, &pending).empty()) {
      Send(fd, "HTTP/1.1 100 Continue\r\n\r\n");
      Send(fd,
           "HTTP/1.1 404 Not Found\r\nTransfer-Encoding: chunked\r\n"
           "content-type: application/json\r\n\r\n"
           "7;ext=1\r\n{\"error\r\n");
      Send(fd,
           "16\r\n\":{\"message\":\"no exp\"}\r\n1\r\n}\r\n0\r\nX-Trailer: "
           "1\r\n\r\n");
    }
  });
  auto client = NewApiClient(peer.url(), "");
  for (int i = 0; i < 2; ++i) {
    auto r = client->Call("GET", "/x");
    ASSERT_TRUE(r.ok()) << r.status().ToString();
    EXPECT_EQ(r->status, 404);
    EXPECT_EQ(r->content_type, "application/json");
    EXPECT_EQ(r->body, "{\"error\":{\"message\":\"no exp\"}}");
    EXPECT_EQ(StatusFromHttp(*r).message(), "no exp");
  }
  EXPECT_EQ(peer.accepted(), 1);
}

TEST(HttpConnectionTest, ABodyThatEndsWithTheConnectionAndAServerThatClosesIdleOnes) {
  ScriptedPeer peer([](int fd, int connection) {
    std::string pending;
    if (ReadRequest(fd, &pending).empty()) return;
    if (connection == 0) {
      Send(fd, "HTTP/1.0 200 OK\r\n\r\nuntil the end");  // closes: no length
    } else {
      Send(fd, Ok("kept"));  // then closes the kept connection while idle
    }
  });
  auto client = NewApiClient(peer.url(), "");
  auto first = client->Call("GET", "/a");
  ASSERT_TRUE(first.ok()) << first.status().ToString();
  EXPECT_EQ(first->body, "until the end");
  for (int i = 0; i < 3; ++i) {
    auto next = client->Call("GET", "/b");
    ASSERT_TRUE(next.ok()) << i << ": " << next.status().ToString();
    EXPECT_EQ(next->body, "kept");
    std::this_thread::sleep_for(std::chrono::milliseconds(50));  // the peer closes meanwhile
  }
  EXPECT_EQ(peer.accepted(), 4);
}

// The server dropped the kept connection just as a request went out: no
// answer began, so the request goes once more, on a new connection. On a
// new connection the same is an error, and the request went only once.
TEST(HttpConnectionTest, ARequestALostKeptConnectionDroppedGoesOnceMore) {
  std::atomic<int> requests{0};
  ScriptedPeer peer([&](int fd, int connection) {
    std::string pending;
    if (ReadRequest(fd, &pending).empty()) return;
    requests++;
    if (connection == 2) return;  // reads the request, then closes unanswered
    Send(fd, Ok("one"));
    if (connection == 0 && !ReadRequest(fd, &pending).empty()) requests++;  // and drops it
  });
  auto client = NewApiClient(peer.url(), "");
  ASSERT_TRUE(client->Call("POST", "/first", "{}").ok());
  auto retried = client->Call("POST", "/second", "{}");
  ASSERT_TRUE(retried.ok()) << retried.status().ToString();
  EXPECT_EQ(retried->body, "one");
  EXPECT_EQ(requests, 3);
  EXPECT_EQ(peer.accepted(), 2);

  auto other = NewApiClient(peer.url(), "");
  auto dropped = other->Call("POST", "/third", "{}");
  ASSERT_FALSE(dropped.ok());
  EXPECT_EQ(dropped.status().code(), StatusCode::kUnavailable);
  EXPECT_NE(dropped.status().message().find("closed the connection without answering"),
            std::string::npos)
      << dropped.status().message();
  EXPECT_EQ(requests, 4);
}

TEST(HttpConnectionTest, ASilentServerIsUnavailableAtTheTimeout) {
  std::atomic<bool> done{false};
  ScriptedPeer peer([&](int fd, int) {
    std::string pending;
    ReadRequest(fd, &pending);
    while (!done) std::this_thread::sleep_for(std::chrono::milliseconds(10));
  });
  auto client = NewApiClient(peer.url(), "", 1);
  auto start = std::chrono::steady_clock::now();
  auto r = client->Call("GET", "/slow");
  auto took = std::chrono::steady_clock::now() - start;
  done = true;
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.status().message().find("cannot reach the hpt server at " + peer.url()),
            std::string::npos);
  EXPECT_NE(r.status().message().find("no answer for 1 s"), std::string::npos)
      << r.status().message();
  EXPECT_GE(took, std::chrono::milliseconds(900));
  EXPECT_LT(took, std::chrono::seconds(20));  // a bound, not a speed target
}

// The timeout bounds each wait, not the whole answer: a long answer that
// keeps coming is read to its end.
TEST(HttpConnectionTest, AnAnswerLongerThanTheTimeoutThatKeepsComingIsReadWhole) {
  ScriptedPeer peer([](int fd, int) {
    std::string pending;
    ReadRequest(fd, &pending);
    Send(fd, "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n");
    for (int i = 0; i < 5; ++i) {
      std::this_thread::sleep_for(std::chrono::milliseconds(400));
      Send(fd, "1\r\n" + std::to_string(i) + "\r\n");
    }
    Send(fd, "0\r\n\r\n");
  });
  auto start = std::chrono::steady_clock::now();
  auto r = NewApiClient(peer.url(), "", 1)->Call("GET", "/export");
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  EXPECT_EQ(r->body, "01234");
  EXPECT_GE(std::chrono::steady_clock::now() - start, std::chrono::milliseconds(1900));
}

TEST(HttpConnectionTest, WhatIsNotHttpOrCannotBeReachedIsUnavailableWithTheReason) {
  ScriptedPeer peer([](int fd, int) {
    std::string pending;
    ReadRequest(fd, &pending);
    Send(fd, "SSH-2.0-OpenSSH_9.2\r\n\r\n");
  });
  auto r = NewApiClient(peer.url(), "")->Call("GET", "/");
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.status().message().find("not HTTP/1.x: 'SSH-2.0-OpenSSH_9.2'"), std::string::npos)
      << r.status().message();

  ScriptedPeer bad_length([](int fd, int) {
    std::string pending;
    ReadRequest(fd, &pending);
    Send(fd, "HTTP/1.1 200 OK\r\nContent-Length: -5\r\n\r\n");
  });
  r = NewApiClient(bad_length.url(), "")->Call("GET", "/");
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.status().message().find("Content-Length '-5' is not a number"), std::string::npos)
      << r.status().message();

  int port;
  {
    ScriptedPeer gone([](int, int) {});
    port = std::stoi(gone.url().substr(gone.url().rfind(':') + 1));
  }
  r = NewApiClient("http://127.0.0.1:" + std::to_string(port), "")->Call("GET", "/");
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().code(), StatusCode::kUnavailable);
  EXPECT_NE(r.status().message().find("Connection refused"), std::string::npos)
      << r.status().message();
  EXPECT_EQ(NewApiClient("http://localhost:1", "a\nb")->Call("GET", "/").status().message(),
            "the API token holds a control character");
}

}  // namespace
}  // namespace hpt::client
