// hpt_bench_bare: the ceiling of the HTTP layer. A cpprestsdk http_listener
// that reads each request's body, as hpt's listener does, and answers `{}`
// without storing anything. Prints "bare serving on http://HOST:PORT" as its
// first line (the shape hpt serve prints) and runs until SIGTERM or SIGINT.
//
//   hpt_bench_bare [--port N]     (default 0: a free port)
#define _TURN_OFF_PLATFORM_STRING  // cpprest's U() macro breaks other headers
#include <arpa/inet.h>
#include <netinet/in.h>
#include <signal.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cpprest/http_listener.h>

#include <cstdlib>
#include <cstring>
#include <iostream>
#include <string>

namespace {

using web::http::http_request;
using web::http::experimental::listener::http_listener;

// cpprestsdk cannot report the port it bound; ask the kernel for a free one
// (the same approach as server/http_listener.cc).
int FreePort() {
  int fd = ::socket(AF_INET, SOCK_STREAM, 0);
  if (fd < 0) return 0;
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  socklen_t len = sizeof(addr);
  int port = 0;
  if (::bind(fd, reinterpret_cast<sockaddr*>(&addr), sizeof(addr)) == 0 &&
      ::getsockname(fd, reinterpret_cast<sockaddr*>(&addr), &len) == 0) {
    port = ntohs(addr.sin_port);
  }
  ::close(fd);
  return port;
}

void Answer(http_request req) {
  // Read the body before answering, as a real handler must.
  req.extract_utf8string(true).then([req](pplx::task<std::string> body) {
    try {
      (void)body.get();
      web::http::http_response response(web::http::status_codes::OK);
      response.set_body(std::string("{}"), "application/json");
      req.reply(response).then([](pplx::task<void> t) {
        try {
          t.get();
        } catch (...) {
          // The client went away.
        }
      });
    } catch (...) {
      req.reply(web::http::status_codes::BadRequest);
    }
  });
}

}  // namespace

int main(int argc, char** argv) {
  int requested = 0;
  for (int i = 1; i < argc; ++i) {
    if (std::strcmp(argv[i], "--port") == 0 && i + 1 < argc) {
      requested = std::atoi(argv[++i]);
    } else {
      std::cerr << "usage: hpt_bench_bare [--port N]\n";
      return 2;
    }
  }
  sigset_t signals;
  sigemptyset(&signals);
  sigaddset(&signals, SIGINT);
  sigaddset(&signals, SIGTERM);
  pthread_sigmask(SIG_BLOCK, &signals, nullptr);

  std::string error;
  for (int attempt = 0; attempt < 10; ++attempt) {
    int port = requested != 0 ? requested : FreePort();
    std::string url = "http://127.0.0.1:" + std::to_string(port);
    try {
      http_listener listener(url);
      listener.support(Answer);
      listener.open().wait();
      std::cout << "bare serving on " << url << std::endl;
      int sig = 0;
      sigwait(&signals, &sig);
      listener.close().wait();
      return 0;
    } catch (const std::exception& e) {
      error = e.what();
      if (requested != 0) break;
    }
  }
  std::cerr << "hpt_bench_bare: cannot listen: " << error << "\n";
  return 1;
}
