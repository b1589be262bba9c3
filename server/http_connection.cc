#include "server/http_connection.h"

#include <fcntl.h>

#include <spdlog/spdlog.h>

#include <algorithm>
#include <memory>
#include <optional>
#include <string>

#include <boost/asio/post.hpp>
#include <boost/beast/core.hpp>
#include <boost/beast/http.hpp>

#include "server/request_path.h"

namespace hpt::server::internal {
namespace {

namespace beast = boost::beast;
namespace http = beast::http;
namespace net = boost::asio;
using tcp = net::ip::tcp;
using Clock = std::chrono::steady_clock;

// The most a refused request may still send while its answer goes out
// (read and dropped, so that closing does not reset the answer away).
constexpr size_t kMaxDrainBytes = 64u << 20;
constexpr std::chrono::seconds kDrainTime{5};
constexpr size_t kReadPiece = 16u << 10;

// A request the parser refused as bad HTTP (as opposed to a client that
// went away, or a deadline that passed).
bool Malformed(const beast::error_code& ec) {
  static const auto& category = http::make_error_code(http::error::end_of_stream).category();
  return ec.category() == category && ec != http::error::end_of_stream &&
         ec != http::error::partial_message;
}

std::string Text(beast::string_view s) { return std::string(s.data(), s.size()); }

// The head as the handler sees it; a malformed query is InvalidArgument.
StatusOr<HttpRequest> ConvertHead(const http::request_header<>& head) {
  HttpRequest out;
  out.method = Text(head.method_string());
  const std::string target = Text(head.target());
  const size_t question = target.find('?');
  out.raw_path = target.substr(0, question);
  if (question != std::string::npos) {
    HPT_ASSIGN_OR_RETURN(out.query, ParseQueryString(std::string_view(target).substr(question + 1)));
  }
  for (const auto& field : head) {
    std::string key = Text(field.name_string());
    std::transform(key.begin(), key.end(), key.begin(),
                   [](unsigned char c) { return std::tolower(c); });
    const std::string value = Text(field.value());
    auto [it, inserted] = out.headers.emplace(key, value);
    if (!inserted) it->second += ", " + value;
  }
  return out;
}

class Connection : public ConnectionHandle, public std::enable_shared_from_this<Connection> {
 public:
  Connection(tcp::socket socket, const ConnectionContext& context)
      : stream_(std::move(socket)), context_(context), options_(*context.options) {}
  ~Connection() override {
    Answered();
    ReleaseBody();
    context_.open->fetch_sub(1);
  }

  void Start() { WaitForRequest(); }

  std::optional<Clock::time_point> WaitingSince() const override {
    const int64_t since = waiting_since_.load();
    if (since == 0) return std::nullopt;
    return Clock::time_point(Clock::duration(since));
  }

  void CloseIfWaiting() override {
    net::post(stream_.get_executor(), [self = shared_from_this()] {
      if (self->waiting_since_.load() != 0) self->Close();
    });
  }

 private:
  // Idle until the first byte of the next request (or one already read
  // with the previous request).
  void WaitForRequest() {
    waiting_since_ = std::max<int64_t>(1, Clock::now().time_since_epoch().count());
    if (buffer_.size() > 0) return ReadHead();
    stream_.expires_after(options_.idle_timeout);
    stream_.async_read_some(buffer_.prepare(kReadPiece),
                            [self = shared_from_this()](beast::error_code ec, size_t n) {
                              if (ec) return self->Close();  // idle, closed or reset
                              self->buffer_.commit(n);
                              self->ReadHead();
                            });
  }

  void ReadHead() {
    parser_.emplace();
    parser_->header_limit(static_cast<uint32_t>(
        std::min<size_t>(options_.max_header_bytes, std::numeric_limits<uint32_t>::max())));
    parser_->body_limit(options_.max_body_bytes);
    stream_.expires_after(options_.header_timeout);
    http::async_read_header(stream_, buffer_, *parser_,
                            [self = shared_from_this()](beast::error_code ec, size_t) {
                              self->OnHead(ec);
                            });
  }

  void OnHead(beast::error_code ec) {
    if (ec == http::error::header_limit) {
      return Refuse(431, "REQUEST_HEADER_FIELDS_TOO_LARGE",
                    "the request line and headers are over the limit of " +
                        std::to_string(options_.max_header_bytes) + " bytes");
    }
    if (ec == http::error::body_limit) {  // a Content-Length over the limit
      const std::string length = Text(parser_->get()[http::field::content_length]);
      return Refuse(413, "RESOURCE_EXHAUSTED",
                    "request body of " + length + " bytes is over the limit of " +
                        std::to_string(options_.max_body_bytes));
    }
    if (Malformed(ec)) {
      return Refuse(400, "INVALID_ARGUMENT", "malformed HTTP request: " + ec.message());
    }
    if (ec) return Close();  // a deadline passed, or the client went away
    waiting_since_ = 0;  // a request is under way: no longer one to evict
    const auto& request = parser_->get();
    head_ = request.method() == http::verb::head;
    keep_alive_ = request.keep_alive();
    version_ = request.version();
    if (request.method() == http::verb::trace) {
      // It would echo the request's headers, Authorization included.
      return Refuse(405, "METHOD_NOT_ALLOWED", "TRACE is not supported");
    }
    // Beast frames a body by Content-Length when Transfer-Encoding does not
    // end in chunked; a proxy in front may frame it otherwise.
    if (request.count(http::field::transfer_encoding) > 0 && !parser_->chunked()) {
      return Refuse(400, "INVALID_ARGUMENT",
                    "Transfer-Encoding other than a final 'chunked' is not supported");
    }
    StatusOr<HttpRequest> head = ConvertHead(request);
    if (!head.ok()) {
      return parser_->is_done() ? Answer(ErrorResponse(head.status()))
                                : Refuse(ErrorResponse(head.status()));
    }
    request_ = std::move(*head);
    if (parser_->is_done()) return Dispatch();
    // A body is coming: only for a request that may be made at all, and
    // only while all the bodies being read fit the budget.
    if (*context_.check_head) {
      if (std::optional<HttpResponse> refused = (*context_.check_head)(request_)) {
        return Refuse(*refused);
      }
    }
    const int64_t size = static_cast<int64_t>(
        parser_->content_length().value_or(options_.max_body_bytes));
    if (context_.body_bytes->fetch_add(size) + size > options_.max_body_bytes_in_flight) {
      context_.body_bytes->fetch_sub(size);
      HttpResponse busy = RefusalResponse(503, "UNAVAILABLE",
                                          "the server is reading as many request bodies as it "
                                          "takes; retry shortly");
      busy.headers["Retry-After"] = "1";
      return Refuse(busy);
    }
    body_bytes_ = size;
    if (beast::iequals(request[http::field::expect], "100-continue")) {
      auto self = shared_from_this();
      static const std::string kContinue = "HTTP/1.1 100 Continue\r\n\r\n";
      stream_.expires_after(options_.write_timeout);
      net::async_write(stream_, net::buffer(kContinue), [self](beast::error_code ec, size_t) {
        if (ec) return self->Close();
        self->ReadBody();
      });
      return;
    }
    ReadBody();
  }

  void ReadBody() {
    stream_.expires_after(options_.body_timeout);
    http::async_read(stream_, buffer_, *parser_,
                     [self = shared_from_this()](beast::error_code ec, size_t) {
                       if (ec == http::error::body_limit) {
                         return self->Refuse(413, "RESOURCE_EXHAUSTED",
                                             "request body is over the limit of " +
                                                 std::to_string(self->options_.max_body_bytes) +
                                                 " bytes");
                       }
                       if (Malformed(ec)) {
                         return self->Refuse(400, "INVALID_ARGUMENT",
                                             "malformed request body: " + ec.message());
                       }
                       if (ec) return self->Close();
                       self->Dispatch();
                     });
  }

  // The request, complete: to the handler pool, whose answer comes back
  // to this connection's strand to be written.
  void Dispatch() {
    context_.dispatching->fetch_add(1);
    struct Done {
      std::atomic<int>* count;
      ~Done() { count->fetch_sub(1); }
    } done{context_.dispatching};
    if (context_.closing->load()) return Close();
    request_.body = std::move(parser_->get().body());
    parser_.reset();
    ReleaseBody();
    answering_ = true;
    context_.answering->fetch_add(1);
    net::post(*context_.handlers, [self = shared_from_this(),
                                   request = std::move(request_)]() mutable {
      HttpResponse response = self->Run(request);
      net::post(self->stream_.get_executor(),
                [self, response = std::move(response)]() mutable { self->Answer(response); });
    });
  }

  HttpResponse Run(HttpRequest& request) const {
    try {
      return (*context_.handler)(request);
    } catch (const std::exception& e) {
      spdlog::error("{} {}: the handler failed: {}", request.method, request.raw_path, e.what());
    } catch (...) {
      spdlog::error("{} {}: the handler failed with an unknown exception", request.method,
                    request.raw_path);
    }
    return ErrorResponse(Internal("internal server error (logged on the server)"));
  }

  // Writes `response`; then the next request, or (close_after) closing.
  void Answer(const HttpResponse& response, bool close_after = false) {
    const bool keep = keep_alive_ && !close_after;
    auto message = std::make_shared<http::response<http::string_body>>();
    try {
      message->version(version_);
      message->result(static_cast<unsigned>(response.status));
      message->set(http::field::content_type, response.content_type);
      for (const auto& [name, value] : response.headers) message->set(name, value);
      // Trial logs and names are user text: no browser may sniff them as HTML.
      message->set("X-Content-Type-Options", "nosniff");
      if (!head_) message->body() = response.body;  // HEAD: the head alone
      message->keep_alive(keep);
      message->prepare_payload();
    } catch (const std::exception& e) {
      spdlog::error("cannot write an answer ({}): {}", response.status, e.what());
      Answered();
      return Close();
    }
    stream_.expires_after(options_.write_timeout);
    http::async_write(stream_, *message,
                      [self = shared_from_this(), message, keep, close_after](
                          beast::error_code ec, size_t) {
                        self->Answered();
                        if (ec) return self->Close();
                        if (close_after) return self->Drain();
                        if (!keep) return self->Close();
                        self->head_ = false;
                        self->WaitForRequest();
                      });
  }

  // Answers without reaching the handler and closes; what the client still
  // sends is read and dropped for a while, so that the answer is not lost
  // to a reset.
  void Refuse(int status, const char* code, const std::string& message) {
    Refuse(RefusalResponse(status, code, message));
  }
  void Refuse(const HttpResponse& response) {
    waiting_since_ = 0;
    if (parser_ && parser_->is_header_done()) version_ = parser_->get().version();
    keep_alive_ = false;
    ReleaseBody();
    Answer(response, /*close_after=*/true);
  }

  void Drain() {
    beast::error_code ignored;
    stream_.socket().shutdown(tcp::socket::shutdown_send, ignored);
    buffer_.clear();
    drain_deadline_ = Clock::now() + kDrainTime;
    DrainMore();
  }

  void DrainMore() {
    const auto left = drain_deadline_ - Clock::now();
    if (left <= Clock::duration::zero() || drained_ > kMaxDrainBytes) return Close();
    stream_.expires_after(std::chrono::duration_cast<std::chrono::milliseconds>(left));
    stream_.async_read_some(net::buffer(scratch_),
                            [self = shared_from_this()](beast::error_code ec, size_t n) {
                              if (ec) return self->Close();
                              self->drained_ += n;
                              self->DrainMore();
                            });
  }

  void Answered() {
    if (answering_) context_.answering->fetch_sub(1);
    answering_ = false;
  }

  void ReleaseBody() {
    if (body_bytes_ > 0) context_.body_bytes->fetch_sub(body_bytes_);
    body_bytes_ = 0;
  }

  void Close() {
    waiting_since_ = 0;
    beast::error_code ignored;
    stream_.socket().shutdown(tcp::socket::shutdown_both, ignored);
    stream_.close();
  }

  beast::tcp_stream stream_;
  const ConnectionContext context_;
  const ListenerOptions& options_;
  beast::flat_buffer buffer_;
  std::optional<http::request_parser<http::string_body>> parser_;
  HttpRequest request_;  // the head being served, converted
  std::atomic<int64_t> waiting_since_{0};  // a steady_clock count; 0: not waiting
  bool keep_alive_ = true;
  bool head_ = false;       // the request being answered is a HEAD
  bool answering_ = false;  // counted in context_.answering
  int64_t body_bytes_ = 0;  // counted in context_.body_bytes
  unsigned version_ = 11;
  Clock::time_point drain_deadline_;
  size_t drained_ = 0;
  char scratch_[kReadPiece];
};

}  // namespace

void ConnectionRegistry::Add(std::weak_ptr<ConnectionHandle> connection) {
  std::lock_guard<std::mutex> lock(mu_);
  if (connections_.size() >= 64 && connections_.size() % 64 == 0) {
    std::erase_if(connections_, [](const auto& c) { return c.expired(); });
  }
  connections_.push_back(std::move(connection));
}

bool ConnectionRegistry::EvictLongestWaiting() {
  std::shared_ptr<ConnectionHandle> oldest;
  Clock::time_point since = Clock::time_point::max();
  {
    std::lock_guard<std::mutex> lock(mu_);
    std::erase_if(connections_, [](const auto& c) { return c.expired(); });
    for (const auto& weak : connections_) {
      auto connection = weak.lock();
      if (!connection) continue;
      if (auto waiting = connection->WaitingSince(); waiting && *waiting < since) {
        since = *waiting;
        oldest = std::move(connection);
      }
    }
  }
  if (!oldest) return false;
  oldest->CloseIfWaiting();
  return true;
}

void ServeConnection(tcp::socket socket, const ConnectionContext& context) {
  ::fcntl(socket.native_handle(), F_SETFD, FD_CLOEXEC);
  auto connection = std::make_shared<Connection>(std::move(socket), context);
  context.registry->Add(connection);
  connection->Start();
}

HttpResponse RefusalResponse(int status, const char* code, const std::string& message) {
  return JsonResponse(status, {{"error", {{"code", status}, {"status", code}, {"message", message}}}});
}

}  // namespace hpt::server::internal
