#pragma once
// RunLoad: closed-loop HTTP load. Each of `clients` threads owns one
// keep-alive ApiClient (one connection) and sends requests back to back for
// a fixed time; the rate counts the requests that succeeded.

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "client/api_client.h"

namespace hpt::bench {

struct LoadOptions {
  int clients = 1;
  double seconds = 4.0;   // measured window, after the warm-up
  int warmup_requests = 50;  // per client, before the window opens
};

struct LoadResult {
  int64_t ok = 0;
  int64_t failed = 0;
  double seconds = 0;        // from the window's start to the last answer
  std::string first_error;   // of the first failed request, if any
  double Rate() const { return seconds > 0 ? ok / seconds : 0; }
};

// One request. `client` is the calling thread's own; `iteration` counts that
// thread's calls from 0 (warm-up included). Returns "" on success, else why.
using Request =
    std::function<std::string(int client_index, int64_t iteration, hpt::client::ApiClient& client)>;

// Thread-safe to call; blocks until every client thread has finished.
LoadResult RunLoad(const std::string& url, const LoadOptions& options,
                   const Request& request);
// The same, with the clients spread over several servers: client i talks to
// urls[i % urls.size()]. `urls` must not be empty.
LoadResult RunLoad(const std::vector<std::string>& urls, const LoadOptions& options,
                   const Request& request);

// "" when `result` is a 2xx answer, else a one-line reason.
std::string CheckAnswer(const StatusOr<hpt::client::HttpResult>& result);

}  // namespace hpt::bench
