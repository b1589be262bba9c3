#pragma once
// GpuMonitor: what each card is doing (nvidia-smi's utilisation and
// memory), sampled on a thread of its own so that /metrics and the
// dashboard never wait for nvidia-smi. Thread-safe.

#include <chrono>
#include <condition_variable>  // std::condition_variable_any
#include <functional>
#include <thread>
#include <vector>

#include "api/mutex.h"
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
  mutable Mutex mu_;
  std::condition_variable_any cv_;  // waited on with mu_
  bool stopping_ GUARDED_BY(mu_) = false;
  std::vector<GpuUsage> latest_ GUARDED_BY(mu_);
  std::thread thread_;
};

}  // namespace hpt::runner
