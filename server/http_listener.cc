#include "server/http_listener.h"

#include <fcntl.h>
#include <sys/resource.h>
#include <sys/socket.h>

#include <spdlog/spdlog.h>

#include <atomic>
#include <future>
#include <thread>
#include <vector>

#include <boost/asio/executor_work_guard.hpp>
#include <boost/asio/io_context.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <boost/asio/post.hpp>
#include <boost/asio/steady_timer.hpp>
#include <boost/asio/strand.hpp>
#include <boost/asio/thread_pool.hpp>

#include "server/http_connection.h"

namespace hpt::server {
namespace {

namespace net = boost::asio;
using tcp = net::ip::tcp;

// Descriptors kept for everything but connections (the database, logs,
// trials' pipes).
constexpr int64_t kReservedDescriptors = 256;
// Connections past the cap while the ones asked to give way close.
constexpr int kEvictionHeadroom = 64;
// How long a connection accepted past that waits for them to close.
constexpr int kAdmitWaits = 50;
constexpr int kAdmitWaitMs = 20;

int64_t OpenFileLimit() {
  rlimit limit{};
  if (getrlimit(RLIMIT_NOFILE, &limit) != 0 || limit.rlim_cur == RLIM_INFINITY) return 1 << 20;
  return static_cast<int64_t>(limit.rlim_cur);
}

int ConnectionCap(int configured) {
  if (configured > 0) return configured;
  const int64_t room = (OpenFileLimit() - kReservedDescriptors) / 2;
  return static_cast<int>(std::clamp<int64_t>(room, 16, 1024));
}

// The answer to a connection over the cap, written without waiting.
const std::string& OverCapAnswer() {
  static const std::string answer = [] {
    const std::string body =
        R"({"error":{"code":503,"status":"UNAVAILABLE","message":"too many open connections; retry shortly"}})";
    return "HTTP/1.1 503 Service Unavailable\r\nContent-Type: application/json\r\n"
           "Retry-After: 1\r\nConnection: close\r\nContent-Length: " +
           std::to_string(body.size()) + "\r\n\r\n" + body;
  }();
  return answer;
}

bool OutOfDescriptors(const boost::system::error_code& ec) {
  return ec == boost::system::errc::too_many_files_open ||
         ec == boost::system::errc::too_many_files_open_in_system ||
         ec == boost::system::errc::no_buffer_space ||
         ec == boost::system::errc::not_enough_memory;
}

class BeastListener : public HttpListener {
 public:
  BeastListener(const ListenerOptions& options, RequestHandler handler, HeadCheck check_head)
      : options_(options),
        handler_(std::move(handler)),
        check_head_(std::move(check_head)),
        ioc_(std::max(1, options.io_threads)),
        work_(net::make_work_guard(ioc_)),
        strand_(net::make_strand(ioc_)),
        acceptor_(strand_),
        retry_(strand_),
        handlers_(std::max(1, options.handler_threads)) {
    options_.max_connections = ConnectionCap(options.max_connections);
    context_.options = &options_;
    context_.handler = &handler_;
    context_.check_head = &check_head_;
    context_.handlers = &handlers_;
    context_.registry = &registry_;
    context_.open = &open_;
    context_.answering = &answering_;
    context_.dispatching = &dispatching_;
    context_.body_bytes = &body_bytes_;
    context_.closing = &closing_;
  }
  ~BeastListener() override { Close(); }

  Status Listen() {
    boost::system::error_code ec;
    tcp::resolver resolver(ioc_);
    auto found = resolver.resolve(tcp::v4(), options_.host, std::to_string(options_.port), ec);
    if (ec || found.empty()) {
      return Unavailable("cannot listen on " + options_.host + ":" +
                         std::to_string(options_.port) + ": " +
                         (ec ? ec.message() : "no IPv4 address"));
    }
    const tcp::endpoint endpoint = *found.begin();
    acceptor_.open(endpoint.protocol(), ec);
    if (!ec) acceptor_.set_option(net::socket_base::reuse_address(true), ec);
    if (!ec) acceptor_.bind(endpoint, ec);
    if (!ec) acceptor_.listen(net::socket_base::max_listen_connections, ec);
    // Nothing this process starts (nvidia-smi, sbatch) may hold the port.
    if (!ec && ::fcntl(acceptor_.native_handle(), F_SETFD, FD_CLOEXEC) != 0) {
      ec.assign(errno, boost::system::system_category());
    }
    if (ec) {
      return Unavailable("cannot listen on " + options_.host + ":" +
                         std::to_string(options_.port) + ": " + ec.message());
    }
    port_ = acceptor_.local_endpoint().port();
    Accept();
    for (int i = 0; i < std::max(1, options_.io_threads); ++i) {
      io_threads_.emplace_back([this] {
        while (true) {
          try {
            ioc_.run();
            return;
          } catch (const std::exception& e) {
            // One connection's failure (out of memory, say) must not end
            // the process: that connection is dropped, the others go on.
            spdlog::error("HTTP: {}", e.what());
          }
        }
      });
    }
    return Status::Ok();
  }

  int port() const override { return port_; }

  void Close() override {
    if (closed_.exchange(true)) return;
    closing_ = true;
    if (!io_threads_.empty()) {
      std::promise<void> done;
      net::post(strand_, [this, &done] {
        boost::system::error_code ignored;
        acceptor_.close(ignored);
        retry_.cancel();
        done.set_value();
      });
      done.get_future().wait();
    }
    // A connection that saw `closing` unset is about to post its request.
    while (dispatching_.load() > 0) std::this_thread::sleep_for(std::chrono::milliseconds(1));
    handlers_.join();  // the requests in flight finish...
    // ... and their answers go out (to a client that reads them).
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(2);
    while (answering_.load() > 0 && std::chrono::steady_clock::now() < deadline) {
      std::this_thread::sleep_for(std::chrono::milliseconds(5));
    }
    work_.reset();
    ioc_.stop();  // what is left (idle connections) is dropped
    for (auto& t : io_threads_) t.join();
    io_threads_.clear();
  }

 private:
  void Accept() {
    acceptor_.async_accept(net::make_strand(ioc_),
                           [this](boost::system::error_code ec, tcp::socket socket) {
                             OnAccept(ec, std::move(socket));
                           });
  }

  void OnAccept(boost::system::error_code ec, tcp::socket socket) {
    if (ec == net::error::operation_aborted || closing_) return;
    if (OutOfDescriptors(ec)) {
      // Accepting again at once would spin: the connection waits in the
      // backlog until a descriptor is free.
      const auto now = std::chrono::steady_clock::now();
      if (now - last_warning_ > std::chrono::seconds(10)) {
        last_warning_ = now;
        spdlog::warn("cannot accept connections: {} ({} open); retrying", ec.message(),
                     open_.load());
      }
      retry_.expires_after(std::chrono::milliseconds(100));
      retry_.async_wait([this](boost::system::error_code wait) {
        if (!wait && !closing_) Accept();
      });
      return;
    }
    if (ec) return Accept();
    Admit(std::move(socket), 0);
  }

  // Serves `socket`, or refuses it when every connection is busy. A full
  // house makes room: the connection that has waited longest for a
  // request gives way (a client holding slots idle cannot lock others out).
  // While kEvictionHeadroom of those are still closing, the new one waits
  // for them (up to kAdmitWaits times kAdmitWaitMs, nothing else accepted
  // meanwhile) rather than being refused for a moment's backlog.
  void Admit(tcp::socket socket, int waits) {
    const int open = open_.load();
    const int cap = options_.max_connections;
    bool serve = open < cap;
    if (!serve && open < cap + kEvictionHeadroom) serve = registry_.EvictLongestWaiting();
    if (!serve && open >= cap + kEvictionHeadroom && waits < kAdmitWaits && !closing_) {
      held_ = std::move(socket);
      retry_.expires_after(std::chrono::milliseconds(kAdmitWaitMs));
      retry_.async_wait([this, waits](boost::system::error_code wait) {
        if (wait || closing_) return;
        Admit(std::move(*held_), waits + 1);
      });
      return;
    }
    boost::system::error_code ignored;
    if (serve) {
      socket.set_option(tcp::no_delay(true), ignored);
      open_.fetch_add(1);
      internal::ServeConnection(std::move(socket), context_);
    } else {
      // Never waits: a client that does not read gets what fits.
      const std::string& answer = OverCapAnswer();
      (void)::send(socket.native_handle(), answer.data(), answer.size(),
                   MSG_DONTWAIT | MSG_NOSIGNAL);
      socket.shutdown(tcp::socket::shutdown_both, ignored);
      socket.close(ignored);
    }
    Accept();
  }

  // Connections refer to these until they are destroyed, which may be in
  // ioc_'s destructor: declared first, destroyed last.
  ListenerOptions options_;
  RequestHandler handler_;
  HeadCheck check_head_;
  internal::ConnectionRegistry registry_;
  std::atomic<int> open_{0};
  std::atomic<int> answering_{0};
  std::atomic<int> dispatching_{0};
  std::atomic<int64_t> body_bytes_{0};
  std::atomic<bool> closing_{false};
  net::io_context ioc_;
  net::executor_work_guard<net::io_context::executor_type> work_;
  net::strand<net::io_context::executor_type> strand_;  // the acceptor's
  tcp::acceptor acceptor_;
  net::steady_timer retry_;
  std::optional<tcp::socket> held_;  // waiting in Admit() for room
  net::thread_pool handlers_;
  internal::ConnectionContext context_;
  std::atomic<bool> closed_{false};
  std::vector<std::thread> io_threads_;
  std::chrono::steady_clock::time_point last_warning_;
  int port_ = 0;
};

}  // namespace

StatusOr<std::unique_ptr<HttpListener>> OpenHttpListener(const ListenerOptions& options,
                                                         RequestHandler handler,
                                                         HeadCheck check_head) {
  auto listener =
      std::make_unique<BeastListener>(options, std::move(handler), std::move(check_head));
  HPT_RETURN_IF_ERROR(listener->Listen());
  return std::unique_ptr<HttpListener>(std::move(listener));
}

int64_t RaiseOpenFileLimit() {
  const int64_t before = OpenFileLimit();
  rlimit limit{};
  if (getrlimit(RLIMIT_NOFILE, &limit) == 0 && limit.rlim_cur < limit.rlim_max) {
    limit.rlim_cur = limit.rlim_max;
    if (setrlimit(RLIMIT_NOFILE, &limit) != 0) {
      spdlog::warn("cannot raise the open-file limit to {}", limit.rlim_max);
    }
  }
  return before;
}

}  // namespace hpt::server
