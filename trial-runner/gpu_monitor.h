#pragma once
// GpuMonitor: what each card is doing (nvidia-smi's utilisation and
// memory), sampled on a thread of its own so that /metrics and the
// dashboard never wait for nvidia-smi. Thread-safe.

#include <chrono>
#include <condition_variable>
#include <functional>
#include <mutex>
#include <thread>
#include <vector>

#include "trial-runner/gpu_inventory.h"

namespace hpt::runner {

class GpuMonitor {
 public:
  using Query = std::function<std::vector<GpuUsage>()>;
  // Samples `query` now and then every `interval`.
  explicit GpuMonitor(std::chrono::milliseconds interval = std::chrono::seconds(10),
                      Query query = QueryGpuUsage);
  ~GpuMonitor();
  GpuMonitor(const GpuMonitor&) = delete;
  GpuMonitor& operator=(const GpuMonitor&) = delete;

  // The latest sample; empty before the first or without GPUs.
  std::vector<GpuUsage> Latest() const;

 private:
  void Loop();

  const std::chrono::milliseconds interval_;
  const Query query_;
  mutable std::mutex mu_;
  std::condition_variable cv_;
  bool stopping_ = false;        // guarded by mu_
  std::vector<GpuUsage> latest_;  // guarded by mu_
  std::thread thread_;
};

}  // namespace hpt::runner
