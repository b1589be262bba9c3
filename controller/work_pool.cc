#include "controller/work_pool.h"

namespace hpt::controller {

void Strand::Post(std::function<void()> task) {
  bool schedule = false;
  {
    MutexLock lock(&mu_);
    tasks_.push_back(std::move(task));
    schedule = !scheduled_;
    scheduled_ = true;
  }
  if (schedule) pool_->Schedule(shared_from_this());
}

bool Strand::RunQueued() {
  std::deque<std::function<void()>> batch;
  {
    MutexLock lock(&mu_);
    batch.swap(tasks_);
  }
  for (auto& task : batch) task();
  MutexLock lock(&mu_);
  if (tasks_.empty()) {
    scheduled_ = false;
    return false;
  }
  return true;
}

WorkPool::WorkPool(int threads) {
  for (int i = 0; i < threads; ++i) threads_.emplace_back([this] { Loop(); });
}

WorkPool::~WorkPool() {
  {
    MutexLock lock(&mu_);
    stopping_ = true;
  }
  cv_.notify_all();
  for (auto& t : threads_) t.join();
}

void WorkPool::WaitIdle() {
  MutexLock lock(&mu_);
  while (running_ != 0 || !ready_.empty()) idle_cv_.wait(mu_);
}

void WorkPool::Schedule(std::shared_ptr<Strand> strand) {
  {
    MutexLock lock(&mu_);
    ready_.push_back(std::move(strand));
  }
  cv_.notify_one();
}

void WorkPool::Loop() {
  while (true) {
    std::shared_ptr<Strand> strand;
    {
      MutexLock lock(&mu_);
      while (!stopping_ && ready_.empty()) cv_.wait(mu_);
      if (ready_.empty()) return;  // stopping, and everything run
      strand = std::move(ready_.front());
      ready_.pop_front();
      ++running_;
    }
    // Another thread takes it up next time: one strand never monopolises
    // a thread while others wait.
    if (strand->RunQueued()) Schedule(std::move(strand));
    MutexLock lock(&mu_);
    if (--running_ == 0 && ready_.empty()) idle_cv_.notify_all();
  }
}

}  // namespace hpt::controller
