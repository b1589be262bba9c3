#include "suggestion/fit_worker.h"

#include <sys/resource.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <utility>

#include "suggestion/factor_cache.h"
#include "suggestion/rng.h"

namespace hpt::suggestion {
namespace {

// Below the calls' priority, but not so far below that a call waiting for
// a running fit on a busy machine waits much longer than the fit takes.
constexpr int kNiceIncrement = 5;

// Sets a thread's nice value; a refusal (lowering it without privilege)
// leaves it as it is.
void SetNice(int64_t tid, int nice) {
  if (tid > 0) setpriority(PRIO_PROCESS, static_cast<id_t>(tid), nice);
}

uint64_t HashWords(uint64_t h, const double* data, Eigen::Index n) {
  for (Eigen::Index i = 0; i < n; ++i) {
    uint64_t bits = 0;
    std::memcpy(&bits, data + i, sizeof(bits));
    h = Mix(h ^ bits);
  }
  return h;
}

uint64_t KeyOf(const FitJob& job) {
  uint64_t h = Mix(static_cast<uint64_t>(job.x.rows()) ^
                   (static_cast<uint64_t>(job.x.cols()) << 32));
  h = HashWords(h, job.x.data(), job.x.size());
  h = HashWords(h, job.y.data(), job.y.size());
  if (job.warm_start) h = HashWords(Mix(h), job.warm_start->data(), job.warm_start->size());
  h = Mix(h ^ static_cast<uint64_t>(job.seed));
  h = Mix(h ^ job.stream);
  h = Mix(h ^ static_cast<uint64_t>(job.options.random_starts) ^
          (static_cast<uint64_t>(job.options.max_evaluations) << 16) ^
          (static_cast<uint64_t>(job.options.max_points) << 32) ^
          (static_cast<uint64_t>(job.options.centre_start) << 62) ^
          (static_cast<uint64_t>(job.build_factor) << 63));
  return h;
}

bool SameBits(const double* a, const double* b, Eigen::Index n) {
  return std::memcmp(a, b, sizeof(double) * static_cast<size_t>(n)) == 0;
}

bool SameInputs(const FitJob& a, const FitJob& b) {
  if (a.x.rows() != b.x.rows() || a.x.cols() != b.x.cols() ||
      a.y.size() != b.y.size() || a.warm_start.has_value() != b.warm_start.has_value() ||
      a.seed != b.seed || a.stream != b.stream || a.build_factor != b.build_factor ||
      a.options.random_starts != b.options.random_starts ||
      a.options.max_evaluations != b.options.max_evaluations ||
      a.options.max_points != b.options.max_points ||
      a.options.centre_start != b.options.centre_start) {
    return false;
  }
  if (a.warm_start && (a.warm_start->size() != b.warm_start->size() ||
                       !SameBits(a.warm_start->data(), b.warm_start->data(),
                                 a.warm_start->size()))) {
    return false;
  }
  return SameBits(a.x.data(), b.x.data(), a.x.size()) &&
         SameBits(a.y.data(), b.y.data(), a.y.size());
}

size_t FactorBytes(const KernelFactor* f) {
  return f ? sizeof(double) * static_cast<size_t>(f->chol.size() + f->points.size()) : 0;
}

}  // namespace

struct FitWorker::Entry {
  enum class Phase { kQueued, kRunning, kDone };
  FitJob job;
  uint64_t key = 0;
  Phase phase = Phase::kQueued;
  bool dropped = false;  // evicted or cleared: no longer in entries_
  Eigen::VectorXd theta;
  std::unique_ptr<KernelFactor> factor;
  size_t bytes = 0;  // counted in bytes_ while not dropped
};

FitResult RunFitJob(const FitJob& job, const std::atomic<bool>* cancel) {
  FitOptions options = job.options;
  options.cancel = cancel;
  std::mt19937_64 rng = MakeRng(job.seed, job.stream);
  FitResult result;
  result.theta = FitHyperparameters(job.x, job.y, job.warm_start, options, rng);
  const bool cancelled = cancel && cancel->load(std::memory_order_relaxed);
  if (job.build_factor && !cancelled && job.x.cols() >= FactorCache::kMinPoints) {
    GaussianProcess gp(GpHyperparameters::FromTheta(result.theta), job.x, job.y);
    result.factor = gp.ReleaseFactor(static_cast<int>(job.x.cols()));
  }
  return result;
}

FitWorker::FitWorker(size_t max_jobs, size_t max_bytes)
    : max_jobs_(max_jobs), max_bytes_(max_bytes) {}

FitWorker::~FitWorker() {
  {
    std::lock_guard<std::mutex> lock(mu_);
    stop_ = true;
    cancel_.store(true);
  }
  work_cv_.notify_all();
  if (thread_.joinable()) thread_.join();
}

void FitWorker::Submit(FitJob job) {
  const uint64_t key = KeyOf(job);
  std::lock_guard<std::mutex> lock(mu_);
  if (stop_ || Find(job, key)) return;
  auto entry = std::make_shared<Entry>();
  entry->key = key;
  entry->bytes = sizeof(double) * static_cast<size_t>(job.x.size() + job.y.size());
  entry->job = std::move(job);
  bytes_ += entry->bytes;
  entries_.push_front(entry);
  queue_.push_back(entry);
  Evict();
  if (!thread_.joinable()) thread_ = std::thread([this] { Loop(); });
  work_cv_.notify_one();
}

std::optional<FitResult> FitWorker::Take(const FitJob& job) {
  const uint64_t key = KeyOf(job);
  std::unique_lock<std::mutex> lock(mu_);
  EntryPtr entry = Find(job, key);
  if (!entry) {
    ++counts_.missing;
    return std::nullopt;
  }
  if (entry->phase == Entry::Phase::kQueued) {
    ++counts_.ran_here;
    // Not started: cheaper to run it here than to wait behind the queue.
    // The worker skips entries that are no longer queued.
    entry->phase = Entry::Phase::kRunning;
    lock.unlock();
    FitResult result = RunFitJob(entry->job);
    lock.lock();
    FitResult mine{result.theta, std::move(result.factor)};
    Publish(*entry, std::move(result));
    return mine;
  }
  ++(entry->phase == Entry::Phase::kDone ? counts_.done : counts_.waited);
  if (entry->phase != Entry::Phase::kDone) {
    // Someone waits: the fit runs at the callers' priority until it ends.
    if (waiters_++ == 0) SetNice(worker_tid_, base_nice_);
    done_cv_.wait(lock, [&] { return entry->phase == Entry::Phase::kDone; });
    --waiters_;
  }
  return TakeResult(*entry);
}

std::optional<FitResult> FitWorker::TakeIfDone(const FitJob& job, bool* known) {
  const uint64_t key = KeyOf(job);
  std::lock_guard<std::mutex> lock(mu_);
  EntryPtr entry = Find(job, key);
  *known = entry != nullptr;
  if (!entry || entry->phase != Entry::Phase::kDone) return std::nullopt;
  ++counts_.done;
  return TakeResult(*entry);
}

FitResult FitWorker::TakeResult(Entry& entry) {
  FitResult result;
  result.theta = entry.theta;
  if (entry.factor) {
    if (!entry.dropped) bytes_ -= FactorBytes(entry.factor.get());
    entry.bytes -= FactorBytes(entry.factor.get());
    result.factor = std::move(entry.factor);
  }
  return result;
}

FitWorker::Counts FitWorker::counts() const {
  std::lock_guard<std::mutex> lock(mu_);
  return counts_;
}

size_t FitWorker::jobs() const {
  std::lock_guard<std::mutex> lock(mu_);
  return entries_.size();
}

void FitWorker::Clear() {
  std::lock_guard<std::mutex> lock(mu_);
  for (const EntryPtr& e : entries_) e->dropped = true;
  entries_.clear();
  queue_.clear();
  bytes_ = 0;
}

void FitWorker::SetPublishDelayForTesting(std::chrono::milliseconds delay) {
  std::lock_guard<std::mutex> lock(mu_);
  publish_delay_ = delay;
}

void FitWorker::SetPausedForTesting(bool paused) {
  {
    std::lock_guard<std::mutex> lock(mu_);
    paused_ = paused;
  }
  work_cv_.notify_all();
}

std::optional<int> FitWorker::WorkerNiceForTesting() const {
  std::lock_guard<std::mutex> lock(mu_);
  if (worker_tid_ == 0) return std::nullopt;
  errno = 0;
  const int nice = getpriority(PRIO_PROCESS, static_cast<id_t>(worker_tid_));
  if (errno != 0) return std::nullopt;
  return nice;
}

void FitWorker::WaitIdleForTesting() {
  std::unique_lock<std::mutex> lock(mu_);
  done_cv_.wait(lock, [&] {
    if (busy_) return false;
    if (paused_) return true;
    for (const EntryPtr& e : queue_) {
      if (e->phase == Entry::Phase::kQueued && !e->dropped) return false;
    }
    return true;
  });
}

FitWorker::EntryPtr FitWorker::Find(const FitJob& job, uint64_t key) {
  for (auto it = entries_.begin(); it != entries_.end(); ++it) {
    if ((*it)->key != key || !SameInputs((*it)->job, job)) continue;
    EntryPtr entry = *it;
    entries_.splice(entries_.begin(), entries_, it);
    return entry;
  }
  return nullptr;
}

void FitWorker::Publish(Entry& entry, FitResult result) {
  entry.theta = std::move(result.theta);
  if (result.factor && !entry.dropped) {
    entry.factor = std::move(result.factor);
    entry.bytes += FactorBytes(entry.factor.get());
    bytes_ += FactorBytes(entry.factor.get());
  }
  entry.phase = Entry::Phase::kDone;
  Evict();
  done_cv_.notify_all();
}

void FitWorker::Evict() {
  // Factors first, least recently used first.
  for (auto it = entries_.rbegin(); bytes_ > max_bytes_ && it != entries_.rend(); ++it) {
    Entry& e = **it;
    if (!e.factor) continue;
    const size_t b = FactorBytes(e.factor.get());
    e.factor.reset();
    e.bytes -= b;
    bytes_ -= b;
  }
  while (!entries_.empty() && (entries_.size() > max_jobs_ || bytes_ > max_bytes_)) {
    Entry& e = *entries_.back();
    e.dropped = true;
    bytes_ -= e.bytes;
    entries_.pop_back();
  }
}

void FitWorker::Loop() {
  const auto tid = static_cast<int64_t>(syscall(SYS_gettid));
  errno = 0;
  int nice = getpriority(PRIO_PROCESS, static_cast<id_t>(tid));
  if (errno != 0) nice = 0;
  std::unique_lock<std::mutex> lock(mu_);
  worker_tid_ = tid;
  base_nice_ = nice;
  while (true) {
    work_cv_.wait(lock, [&] { return stop_ || (!paused_ && !queue_.empty()); });
    if (stop_) return;
    EntryPtr entry = std::move(queue_.front());
    queue_.pop_front();
    if (entry->dropped || entry->phase != Entry::Phase::kQueued) continue;
    entry->phase = Entry::Phase::kRunning;
    // Nobody waits for a job just started (a queued one is run by its
    // caller): below the calls' priority. Lifting it back needs privilege
    // (root, CAP_SYS_NICE or RLIMIT_NICE); without it a waiter just waits.
    if (waiters_ == 0) SetNice(worker_tid_, base_nice_ + kNiceIncrement);
    busy_ = true;
    lock.unlock();
    FitResult result = RunFitJob(entry->job, &cancel_);
    lock.lock();
    if (publish_delay_.count() > 0) {
      work_cv_.wait_for(lock, publish_delay_, [&] { return stop_; });
    }
    busy_ = false;
    if (stop_) {
      // Cancelled: the result is meaningless, and nobody can wait for it.
      return;
    }
    Publish(*entry, std::move(result));
  }
}

}  // namespace hpt::suggestion
