#include "trial-runner/gpu_monitor.h"

namespace hpt::runner {

GpuMonitor::GpuMonitor(std::chrono::milliseconds interval, Query query)
    : interval_(interval), query_(std::move(query)) {
  latest_ = query_();
  thread_ = std::thread([this] { Loop(); });
}

GpuMonitor::~GpuMonitor() {
  {
    MutexLock lock(&mu_);
    stopping_ = true;
  }
  cv_.notify_all();
  thread_.join();
}

std::vector<GpuUsage> GpuMonitor::Latest() const {
  MutexLock lock(&mu_);
  return latest_;
}

void GpuMonitor::Loop() {
  while (true) {
    {
      MutexLock lock(&mu_);
      // Until the next sample is due, or the destructor says stop.
      const auto due = std::chrono::steady_clock::now() + interval_;
      while (!stopping_ && cv_.wait_until(mu_, due) == std::cv_status::no_timeout) {
      }
      if (stopping_) return;
    }
    std::vector<GpuUsage> sample = query_();  // nvidia-smi, without the lock
    MutexLock lock(&mu_);
    latest_ = std::move(sample);
  }
}

}  // namespace hpt::runner
