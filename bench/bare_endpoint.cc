// hpt_bench_bare: the ceiling of the HTTP layer. hpt's own listener
// (server/http_listener.h: the same deadlines, caps and threads) with a
// handler that answers `{}` without storing anything; the listener has
// read each request's body by then, as it does for hpt. Prints
// "bare serving on http://HOST:PORT" as its first line (the shape hpt
// serve prints) and runs until SIGTERM or SIGINT.
//
//   hpt_bench_bare [--port N]     (default 0: a free port)
#include <signal.h>

#include <cstdlib>
#include <cstring>
#include <iostream>
#include <string>

#include "server/http_listener.h"

int main(int argc, char** argv) {
  hpt::server::ListenerOptions options;
  for (int i = 1; i < argc; ++i) {
    if (std::strcmp(argv[i], "--port") == 0 && i + 1 < argc) {
      options.port = std::atoi(argv[++i]);
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

  auto listener = hpt::server::OpenHttpListener(options, [](hpt::server::HttpRequest&) {
    hpt::server::HttpResponse response;
    response.body = "{}";
    return response;
  });
  if (!listener.ok()) {
    std::cerr << "hpt_bench_bare: " << listener.status().message() << "\n";
    return 1;
  }
  std::cout << "bare serving on http://127.0.0.1:" << (*listener)->port() << std::endl;
  int sig = 0;
  sigwait(&signals, &sig);
  (*listener)->Close();
  return 0;
}
