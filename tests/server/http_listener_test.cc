// The HTTP layer on a real socket (port 0): deadlines, caps and the
// answers it gives without the handler (http_listener.h).
#include "server/http_listener.h"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <gtest/gtest.h>

#include <chrono>
#include <stdexcept>
#include <thread>

#include "tests/testing/raw_http.h"

namespace hpt::server {
namespace {

using std::chrono::milliseconds;
using Clock = std::chrono::steady_clock;

int Connect(int port) {
  int fd = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_port = htons(static_cast<uint16_t>(port));
  ::inet_pton(AF_INET, "127.0.0.1", &addr.sin_addr);
  EXPECT_EQ(::connect(fd, reinterpret_cast<sockaddr*>(&addr), sizeof addr), 0);
  return fd;
}

void Send(int fd, const std::string& data) {
  ASSERT_EQ(::send(fd, data.data(), data.size(), MSG_NOSIGNAL), static_cast<ssize_t>(data.size()));
}

// What arrives within `timeout`, until the peer closes (closed = true) or
// the time is up.
std::string Receive(int fd, milliseconds timeout, bool* closed = nullptr,
                    size_t enough = std::string::npos) {
  std::string out;
  const auto deadline = Clock::now() + timeout;
  if (closed) *closed = false;
  while (Clock::now() < deadline && out.size() < enough) {
    pollfd p{fd, POLLIN, 0};
    const int left = static_cast<int>(
        std::chrono::duration_cast<milliseconds>(deadline - Clock::now()).count());
    if (::poll(&p, 1, std::max(left, 1)) <= 0) continue;
    char buffer[4096];
    ssize_t n = ::recv(fd, buffer, sizeof buffer, 0);
    if (n <= 0) {
      if (closed) *closed = true;
      break;
    }
    out.append(buffer, static_cast<size_t>(n));
  }
  return out;
}

// What arrives until `needle` is in it, the peer closes or `timeout` passes.
std::string ReceiveUntil(int fd, const std::string& needle, milliseconds timeout) {
  std::string out;
  const auto deadline = Clock::now() + timeout;
  while (out.find(needle) == std::string::npos && Clock::now() < deadline) {
    bool closed = false;
    out += Receive(fd, milliseconds(50), &closed);
    if (closed) break;
  }
  return out;
}

class HttpListenerTest : public ::testing::Test {
 protected:
  void Open(ListenerOptions options = {}) {
    auto listener = OpenHttpListener(options, [](HttpRequest& request) -> HttpResponse {
      if (request.raw_path == "/throw") throw std::runtime_error("a bug in a handler");
      if (request.raw_path == "/slow") std::this_thread::sleep_for(milliseconds(1500));
      HttpResponse response;
      response.content_type = "text/plain";
      response.body = request.method + " " + request.raw_path + " " + request.body;
      return response;
    });
    ASSERT_TRUE(listener.ok()) << listener.status().ToString();
    listener_ = std::move(*listener);
    url_ = "http://127.0.0.1:" + std::to_string(listener_->port());
  }
  void TearDown() override {
    for (int fd : fds_) ::close(fd);
  }
  int NewConnection() {
    fds_.push_back(Connect(listener_->port()));
    return fds_.back();
  }

  std::unique_ptr<HttpListener> listener_;
  std::string url_;
  std::vector<int> fds_;
};

// A server bug is a logged 500, never a 400 that blames the client.
TEST_F(HttpListenerTest, AHandlerThatThrowsIsA500) {
  Open();
  auto r = testing::RawHttp(url_, "GET", "/throw");
  EXPECT_EQ(r.status, 500) << r.body;
  EXPECT_NE(r.body.find("INTERNAL"), std::string::npos) << r.body;
  EXPECT_EQ(r.body.find("a bug in a handler"), std::string::npos) << r.body;
  EXPECT_EQ(testing::RawHttp(url_, "GET", "/fine").status, 200);
}

TEST_F(HttpListenerTest, ASilentConnectionIsClosedAfterTheIdleTimeout) {
  ListenerOptions options;
  options.idle_timeout = milliseconds(300);
  Open(options);
  const int fd = NewConnection();
  bool closed = false;
  const auto start = Clock::now();
  Receive(fd, milliseconds(5000), &closed);
  EXPECT_TRUE(closed);
  EXPECT_LT(Clock::now() - start, milliseconds(3000));
}

// Slowloris: a head that trickles in a byte at a time is cut off at the
// header deadline, however long it keeps trickling.
TEST_F(HttpListenerTest, ATricklingHeadIsCutOffAtTheHeaderDeadline) {
  ListenerOptions options;
  options.header_timeout = milliseconds(500);
  Open(options);
  const int fd = NewConnection();
  Send(fd, "GET /x HTTP/1.1\r\nHost: a\r\n");
  const auto start = Clock::now();
  bool closed = false;
  while (!closed && Clock::now() - start < milliseconds(5000)) {
    if (::send(fd, "X", 1, MSG_NOSIGNAL) != 1) break;
    Receive(fd, milliseconds(100), &closed);
  }
  EXPECT_LT(Clock::now() - start, milliseconds(3000));
  // A new connection is served meanwhile and after.
  EXPECT_EQ(testing::RawHttp(url_, "GET", "/after").status, 200);
}

// A full house of connections that hold their slots without asking
// anything: the one that has waited longest gives way to a new one.
TEST_F(HttpListenerTest, AtTheCapTheLongestWaitingConnectionGivesWay) {
  ListenerOptions options;
  options.max_connections = 3;
  Open(options);
  const int first = NewConnection();
  std::this_thread::sleep_for(milliseconds(50));
  NewConnection();
  Send(fds_.back(), "GET /half HTTP/1.1\r\n");  // a head still arriving waits too
  NewConnection();
  std::this_thread::sleep_for(milliseconds(100));  // accepted
  EXPECT_EQ(testing::RawHttp(url_, "GET", "/served").status, 200);
  bool closed = false;
  Receive(first, milliseconds(2000), &closed);
  EXPECT_TRUE(closed) << "the oldest idle connection was not closed";
}

// When every connection is busy with a request, a new one is refused at
// once (503, Retry-After) rather than left waiting.
TEST_F(HttpListenerTest, ConnectionsOverTheCapWhenAllAreBusyGetA503AtOnce) {
  ListenerOptions options;
  options.max_connections = 2;
  Open(options);
  for (int i = 0; i < 2; ++i) {
    Send(NewConnection(), "GET /slow HTTP/1.1\r\nHost: a\r\n\r\n");
  }
  std::this_thread::sleep_for(milliseconds(200));  // both being handled
  const auto start = Clock::now();
  const int over = NewConnection();
  bool closed = false;
  std::string answer = Receive(over, milliseconds(1000), &closed);
  EXPECT_EQ(answer.rfind("HTTP/1.1 503", 0), 0u) << answer;
  EXPECT_NE(answer.find("Retry-After"), std::string::npos) << answer;
  EXPECT_TRUE(closed);
  EXPECT_LT(Clock::now() - start, milliseconds(1000));
  // The busy ones are answered.
  EXPECT_NE(ReceiveUntil(fds_[0], "GET /slow", milliseconds(3000)).find("GET /slow"),
            std::string::npos);
}

TEST_F(HttpListenerTest, AnOversizedHeadIsA431) {
  Open();
  auto r = testing::RawHttp(url_, "GET", "/big", {{"X-Big", std::string(100 << 10, 'a')}});
  EXPECT_EQ(r.status, 431) << r.body;
}

TEST_F(HttpListenerTest, BodiesOverTheLimitAreA413) {
  ListenerOptions options;
  options.max_body_bytes = 1000;
  Open(options);
  EXPECT_EQ(testing::RawHttp(url_, "POST", "/declared", {}, std::string(5000, 'a')).status, 413);
  std::string chunks;
  for (int i = 0; i < 10; ++i) chunks += "c8\r\n" + std::string(200, 'b') + "\r\n";
  chunks += "0\r\n\r\n";
  EXPECT_EQ(
      testing::RawHttp(url_, "POST", "/chunked", {{"Transfer-Encoding", "chunked"}}, chunks).status,
      413);
  auto fits = testing::RawHttp(url_, "POST", "/fits", {}, "hello");
  EXPECT_EQ(fits.status, 200);
  EXPECT_EQ(fits.body, "POST /fits hello");
}

TEST_F(HttpListenerTest, KeepAliveAndPipelinedRequestsAreAnsweredInOrder) {
  Open();
  const int fd = NewConnection();
  Send(fd,
       "GET /one HTTP/1.1\r\nHost: a\r\n\r\n"
       "POST /two HTTP/1.1\r\nHost: a\r\nContent-Length: 3\r\n\r\nabc");
  std::string answers = ReceiveUntil(fd, "POST /two abc", milliseconds(3000));
  const size_t one = answers.find("GET /one");
  const size_t two = answers.find("POST /two abc");
  ASSERT_NE(one, std::string::npos) << answers;
  ASSERT_NE(two, std::string::npos) << answers;
  EXPECT_LT(one, two);
}

TEST_F(HttpListenerTest, ExpectContinueGetsA100ThenTheAnswer) {
  Open();
  const int fd = NewConnection();
  Send(fd, "POST /e HTTP/1.1\r\nHost: a\r\nExpect: 100-continue\r\nContent-Length: 4\r\n\r\n");
  std::string interim = ReceiveUntil(fd, "\r\n\r\n", milliseconds(2000));
  EXPECT_EQ(interim.rfind("HTTP/1.1 100", 0), 0u) << interim;
  Send(fd, "body");
  std::string answer = ReceiveUntil(fd, "POST /e body", milliseconds(2000));
  EXPECT_NE(answer.find("POST /e body"), std::string::npos) << answer;
}

// Handlers run apart from the threads that read sockets: a slow one
// delays only its own connection.
TEST_F(HttpListenerTest, ASlowHandlerDoesNotDelayOtherConnections) {
  Open();
  std::thread slow([&] { testing::RawHttp(url_, "GET", "/slow"); });
  std::this_thread::sleep_for(milliseconds(100));
  const auto start = Clock::now();
  EXPECT_EQ(testing::RawHttp(url_, "GET", "/quick").status, 200);
  EXPECT_LT(Clock::now() - start, milliseconds(1000));
  slow.join();
}

// A body is read only for a request the head check lets through, and
// only while all the bodies being read fit their budget.
TEST_F(HttpListenerTest, BodiesAreReadOnlyForRequestsThatMayBeMade) {
  ListenerOptions options;
  options.max_body_bytes_in_flight = 5000;
  auto listener = OpenHttpListener(
      options,
      [](HttpRequest& request) {
        HttpResponse response;
        response.body = "read " + std::to_string(request.body.size());
        return response;
      },
      [](HttpRequest& head) -> std::optional<HttpResponse> {
        if (head.Header("authorization") == "yes") return std::nullopt;
        return JsonResponse(401, {{"error", "no"}});
      });
  ASSERT_TRUE(listener.ok());
  listener_ = std::move(*listener);
  url_ = "http://127.0.0.1:" + std::to_string(listener_->port());
  // Refused at its head: answered before a byte of its 4 MB body is sent.
  const int refused = NewConnection();
  Send(refused, "POST /x HTTP/1.1\r\nHost: a\r\nContent-Length: 4000000\r\n\r\n");
  std::string answer = ReceiveUntil(refused, "\r\n\r\n", milliseconds(2000));
  EXPECT_EQ(answer.rfind("HTTP/1.1 401", 0), 0u) << answer;
  // Allowed: its 4,000 bytes take most of the budget while they arrive...
  const int slow = NewConnection();
  Send(slow, "POST /x HTTP/1.1\r\nHost: a\r\nAuthorization: yes\r\nContent-Length: 4000\r\n\r\nab");
  std::this_thread::sleep_for(milliseconds(100));
  // ... so a second body of 4,000 is turned away for now.
  const int second = NewConnection();
  Send(second, "POST /x HTTP/1.1\r\nHost: a\r\nAuthorization: yes\r\nContent-Length: 4000\r\n\r\n");
  answer = ReceiveUntil(second, "\r\n\r\n", milliseconds(2000));
  EXPECT_EQ(answer.rfind("HTTP/1.1 503", 0), 0u) << answer;
  Send(slow, std::string(3998, 'c'));
  EXPECT_NE(ReceiveUntil(slow, "read 4000", milliseconds(2000)).find("read 4000"),
            std::string::npos);
  // The budget is back.
  auto fits = testing::RawHttp(url_, "POST", "/x", {{"Authorization", "yes"}},
                               std::string(4000, 'd'));
  EXPECT_EQ(fits.body, "read 4000");
}

TEST_F(HttpListenerTest, OnlyAFinalChunkedTransferEncodingIsRead) {
  Open();
  for (const char* encoding : {"gzip", "chunked, gzip"}) {
    const int fd = NewConnection();
    Send(fd, std::string("POST /x HTTP/1.1\r\nHost: a\r\nTransfer-Encoding: ") + encoding +
                 "\r\nContent-Length: 3\r\n\r\nabc");
    std::string answer = ReceiveUntil(fd, "\r\n\r\n", milliseconds(2000));
    EXPECT_EQ(answer.rfind("HTTP/1.1 400", 0), 0u) << encoding << ": " << answer;
  }
}

// A HEAD answer is a head alone, whatever answers it, so the next answer
// on the connection is not read from the middle of a body.
TEST_F(HttpListenerTest, HeadAnswersCarryNoBody) {
  Open();
  const int fd = NewConnection();
  Send(fd,
       "HEAD /x?q=%zz HTTP/1.1\r\nHost: a\r\n\r\n"
       "HEAD /fine HTTP/1.1\r\nHost: a\r\n\r\n"
       "GET /last HTTP/1.1\r\nHost: a\r\n\r\n");
  std::string answers = ReceiveUntil(fd, "GET /last", milliseconds(3000));
  EXPECT_EQ(answers.find("malformed"), std::string::npos) << answers;
  EXPECT_EQ(answers.find("HEAD /fine"), std::string::npos) << answers;
  EXPECT_NE(answers.find("HTTP/1.1 400"), std::string::npos) << answers;
  EXPECT_NE(answers.find("GET /last"), std::string::npos) << answers;
}

TEST_F(HttpListenerTest, TraceIsA405AndAMalformedRequestA400) {
  Open();
  EXPECT_EQ(testing::RawHttp(url_, "TRACE", "/x").status, 405);
  const int fd = NewConnection();
  Send(fd, "GET /x HTTP/1.1\r\nHost: a\r\nContent-Length: nope\r\n\r\n");
  std::string answer = Receive(fd, milliseconds(2000), nullptr, 12);
  EXPECT_EQ(answer.rfind("HTTP/1.1 400", 0), 0u) << answer;
}

TEST_F(HttpListenerTest, ClosingWaitsForTheHandlersInFlight) {
  Open();
  testing::RawResponse slow;
  std::thread client([&] { slow = testing::RawHttp(url_, "GET", "/slow"); });
  std::this_thread::sleep_for(milliseconds(300));
  listener_->Close();
  client.join();
  EXPECT_EQ(slow.status, 200);
}

}  // namespace
}  // namespace hpt::server
