#include "server/audit_log.h"

#include <spdlog/spdlog.h>

#include <chrono>

namespace hpt::server {
namespace {

constexpr size_t kBatch = 512;
constexpr size_t kMaxQueued = 65536;
constexpr auto kLinger = std::chrono::milliseconds(50);
constexpr int kTries = 3;

}  // namespace

AuditLog::AuditLog(storage::TenancyStore* store) : store_(store) {
  writer_ = std::thread([this] { WriterLoop(); });
}

AuditLog::~AuditLog() { Close(); }

void AuditLog::Record(storage::AuditEntry entry) {
  MutexLock lock(&mu_);
  changed_.wait(mu_, [this]() REQUIRES(mu_) { return queue_.size() < kMaxQueued || closing_; });
  if (closing_) return;  // the server is going down: nothing mutates any more
  queue_.push_back(std::move(entry));
  ++recorded_;
  // The writer waits for a first entry, or lingers for a full batch: no
  // other entry wakes it (a wake per request cost a context switch each).
  if (queue_.size() == 1 || queue_.size() >= kBatch) changed_.notify_all();
}

void AuditLog::Flush() {
  MutexLock lock(&mu_);
  const int64_t target = recorded_;
  changed_.notify_all();
  changed_.wait(mu_, [&]() REQUIRES(mu_) { return done_ >= target || stopped_; });
}

void AuditLog::Close() {
  {
    MutexLock lock(&mu_);
    if (closing_) return;
    closing_ = true;
  }
  changed_.notify_all();
  if (writer_.joinable()) writer_.join();
}

void AuditLog::WriterLoop() {
  while (true) {
    std::vector<storage::AuditEntry> batch;
    {
      MutexLock lock(&mu_);
      changed_.wait(mu_, [this]() REQUIRES(mu_) { return !queue_.empty() || closing_; });
      if (queue_.empty()) {  // closing, all written
        stopped_ = true;
        changed_.notify_all();
        return;
      }
      // Let a burst gather into one transaction, unless someone waits.
      if (queue_.size() < kBatch && !closing_) {
        changed_.wait_for(mu_, kLinger,
                          [this]() REQUIRES(mu_) { return queue_.size() >= kBatch || closing_; });
      }
      while (!queue_.empty() && batch.size() < kBatch) {
        batch.push_back(std::move(queue_.front()));
        queue_.pop_front();
      }
    }
    Status written = Status::Ok();
    for (int attempt = 0; attempt < kTries; ++attempt) {
      written = store_->AppendAudit(batch);
      if (written.ok()) break;
      std::this_thread::sleep_for(std::chrono::milliseconds(100 << attempt));
    }
    if (!written.ok()) {
      spdlog::error("audit log: {} entries not stored: {}", batch.size(), written.message());
    }
    MutexLock lock(&mu_);
    done_ += static_cast<int64_t>(batch.size());
    changed_.notify_all();
  }
}

}  // namespace hpt::server
