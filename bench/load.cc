#include "bench/load.h"

#include <atomic>
#include <barrier>
#include <chrono>
#include <mutex>
#include <thread>
#include <vector>

namespace hpt::bench {

using Clock = std::chrono::steady_clock;

std::string CheckAnswer(const StatusOr<hpt::client::HttpResult>& result) {
  if (!result.ok()) return result.status().message();
  if (result->status >= 200 && result->status < 300) return "";
  return "HTTP " + std::to_string(result->status) + ": " + result->body.substr(0, 200);
}

LoadResult RunLoad(const std::string& url, const LoadOptions& options,
                   const Request& request) {
  return RunLoad(std::vector<std::string>{url}, options, request);
}

LoadResult RunLoad(const std::vector<std::string>& urls, const LoadOptions& options,
                   const Request& request) {
  const int n = options.clients;
  std::vector<int64_t> ok(n, 0), failed(n, 0);
  std::mutex error_mu;
  std::string first_error;
  Clock::time_point start, deadline;
  // Everyone connects and warms up; then the window opens for all at once.
  std::barrier ready(n + 1);
  std::barrier go(n + 1);

  std::vector<std::thread> threads;
  for (int i = 0; i < n; ++i) {
    threads.emplace_back([&, i] {
      const std::string& url = urls[i % urls.size()];
      auto client = hpt::client::NewApiClient(url, "");
      int64_t iteration = 0;
      for (; iteration < options.warmup_requests; ++iteration) {
        (void)request(i, iteration, *client);
      }
      ready.arrive_and_wait();
      go.arrive_and_wait();
      while (Clock::now() < deadline) {
        std::string error = request(i, iteration++, *client);
        if (error.empty()) {
          ++ok[i];
        } else {
          ++failed[i];
          std::lock_guard<std::mutex> lock(error_mu);
          if (first_error.empty()) first_error = error;
        }
      }
    });
  }
  ready.arrive_and_wait();
  start = Clock::now();
  deadline = start + std::chrono::duration_cast<Clock::duration>(
                         std::chrono::duration<double>(options.seconds));
  go.arrive_and_wait();
  for (auto& t : threads) t.join();

  LoadResult result;
  result.seconds = std::chrono::duration<double>(Clock::now() - start).count();
  for (int i = 0; i < n; ++i) {
    result.ok += ok[i];
    result.failed += failed[i];
  }
  result.first_error = first_error;
  return result;
}

}  // namespace hpt::bench
