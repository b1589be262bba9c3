#include "server/http_connection.h"

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

class Connection : public std::enable_shared_from_this<Connection> {
 public:
  Connection(tcp::socket socket, const ConnectionContext& context)
      : stream_(std::move(socket)), context_(context), options_(*context.options) {}
  ~Connection() {
    Answered();
    context_.open->fetch_sub(1);
  }

  void Start() { WaitForRequest(); }

 private:
  // Idle until the first byte of the next request (or one already read
  // with the previous request).
  void WaitForRequest() {
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
      return Refuse(413, "RESOURCE_EXHAUSTED",
                    "request body of " + std::to_string(parser_->content_length().value_or(0)) +
                        " bytes is over the limit of " + std::to_string(options_.max_body_bytes));
    }
    if (Malformed(ec)) {
      return Refuse(400, "INVALID_ARGUMENT", "malformed HTTP request: " + ec.message());
    }
    if (ec) return Close();  // a deadline passed, or the client went away
    const auto& request = parser_->get();
    if (request.method() == http::verb::trace) {
      // It would echo the request's headers, Authorization included.
      return Refuse(405, "METHOD_NOT_ALLOWED", "TRACE is not supported");
    }
    if (parser_->is_done()) return Dispatch();
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
    if (context_.closing->load()) return Close();
    auto& request = parser_->get();
    keep_alive_ = request.keep_alive();
    version_ = request.version();
    HttpRequest converted;
    converted.method = std::string(request.method_string());
    const auto raw_target = request.target();
    const std::string_view target(raw_target.data(), raw_target.size());
    size_t question = target.find('?');
    converted.raw_path = std::string(target.substr(0, question));
    if (question != std::string_view::npos) {
      auto query = ParseQueryString(target.substr(question + 1));
      if (!query.ok()) return Write(ErrorResponse(query.status()));
      converted.query = std::move(*query);
    }
    for (const auto& field : request) {
      std::string key(field.name_string());
      std::transform(key.begin(), key.end(), key.begin(),
                     [](unsigned char c) { return std::tolower(c); });
      std::string value(field.value());
      auto [it, inserted] = converted.headers.emplace(key, value);
      if (!inserted) it->second += ", " + value;
    }
    converted.body = std::move(request.body());
    parser_.reset();
    answering_ = true;
    context_.answering->fetch_add(1);
    net::post(*context_.handlers, [self = shared_from_this(),
                                   request = std::move(converted)]() mutable {
      HttpResponse response = self->Run(request);
      net::post(self->stream_.get_executor(),
                [self, response = std::move(response)]() mutable { self->Write(response); });
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

  void Write(const HttpResponse& response, bool close_after = false) {
    auto message = std::make_shared<http::response<http::string_body>>();
    message->version(version_);
    message->result(static_cast<unsigned>(response.status));
    message->set(http::field::content_type, response.content_type);
    for (const auto& [name, value] : response.headers) message->set(name, value);
    // Trial logs and names are user text: no browser may sniff them as HTML.
    message->set("X-Content-Type-Options", "nosniff");
    message->body() = response.body;
    const bool keep = keep_alive_ && !close_after;
    message->keep_alive(keep);
    message->prepare_payload();
    stream_.expires_after(options_.write_timeout);
    http::async_write(stream_, *message,
                      [self = shared_from_this(), message, keep, close_after](
                          beast::error_code ec, size_t) {
                        self->Answered();
                        if (ec) return self->Close();
                        if (close_after) return self->Drain();
                        if (!keep) return self->Close();
                        self->WaitForRequest();
                      });
  }

  // Answers without reaching the handler and closes; what the client still
  // sends is read and dropped for a while, so that the answer is not lost
  // to a reset.
  void Refuse(int status, const char* code, const std::string& message) {
    if (parser_ && parser_->is_header_done()) version_ = parser_->get().version();
    keep_alive_ = false;
    Write(RefusalResponse(status, code, message), /*close_after=*/true);
  }

  void Drain() {
    beast::error_code ignored;
    stream_.socket().shutdown(tcp::socket::shutdown_send, ignored);
    buffer_.clear();
    drain_deadline_ = std::chrono::steady_clock::now() + kDrainTime;
    DrainMore();
  }

  void DrainMore() {
    const auto left = drain_deadline_ - std::chrono::steady_clock::now();
    if (left <= std::chrono::steady_clock::duration::zero() || drained_ > kMaxDrainBytes) {
      return Close();
    }
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

  void Close() {
    beast::error_code ignored;
    stream_.socket().shutdown(tcp::socket::shutdown_both, ignored);
    stream_.close();
  }

  beast::tcp_stream stream_;
  const ConnectionContext context_;
  const ListenerOptions& options_;
  beast::flat_buffer buffer_;
  std::optional<http::request_parser<http::string_body>> parser_;
  bool keep_alive_ = true;
  bool answering_ = false;  // counted in context_.answering
  unsigned version_ = 11;
  std::chrono::steady_clock::time_point drain_deadline_;
  size_t drained_ = 0;
  char scratch_[kReadPiece];
};

}  // namespace

void ServeConnection(tcp::socket socket, const ConnectionContext& context) {
  std::make_shared<Connection>(std::move(socket), context)->Start();
}

HttpResponse RefusalResponse(int status, const char* code, const std::string& message) {
  return JsonResponse(status, {{"error", {{"code", status}, {"status", code}, {"message", message}}}});
}

}  // namespace hpt::server::internal
