#include "trial-runner/gpu_monitor.h"

namespace hpt::runner {

GpuMonitor::GpuMonitor(std::chrono::milliseconds interval, Query query)
    : interval_(interval), query_(std::move(query)) {
  latest_ = query_();
  thread_ = std::thread([this] { Loop(); });
}

GpuMonitor::~GpuMonitor() {
  {
    std::lock_guard<std::mutex> lock(mu_);
    stopping_ = true;
  }
  cv_.notify_all();
  thread_.join();
}

std::vector<GpuUsage> GpuMonitor::Latest() const {
  std::lock_guard<std::mutex> lock(mu_);
  return latest_;
}

void GpuMonitor::Loop() {
  std::unique_lock<std::mutex> lock(mu_);
  while (!cv_.wait_for(lock, interval_, [&] { return stopping_; })) {
    lock.unlock();
    std::vector<GpuUsage> sample = query_();  // nvidia-smi, without the lock
    lock.lock();
    latest_ = std::move(sample);
  }
}

}  // namespace hpt::runner
