#pragma once
// AuditLog: every mutating API call (who, what, when and the answer) into
// the store's audit table (storage/tenancy_store.h). A background thread
// writes what is recorded in batches, one transaction each, so a request
// never waits for an audit commit; a crash can lose what was recorded in
// the last moment (about 50 ms), never anything older. Entries are stored
// in the order they were recorded.
//
// Thread-safe.

#include <condition_variable>
#include <cstdint>
#include <deque>
#include <thread>
#include <vector>

#include "api/mutex.h"
#include "storage/tenancy_store.h"

namespace hpt::server {

class AuditLog {
 public:
  // `store` must outlive this.
  explicit AuditLog(storage::TenancyStore* store);
  ~AuditLog();  // Close()

  // Queues one entry. With the writer far behind (a store refusing
  // writes), waits for room instead of growing without bound.
  void Record(storage::AuditEntry entry);
  // Returns once every entry recorded before the call is stored (or the
  // store refused it: logged, and dropped after a few tries).
  void Flush();
  // Writes what is queued and stops the writer. Idempotent.
  void Close();

 private:
  void WriterLoop();

  storage::TenancyStore* const store_;
  Mutex mu_;
  std::condition_variable_any changed_;
  std::deque<storage::AuditEntry> queue_ GUARDED_BY(mu_);
  int64_t recorded_ GUARDED_BY(mu_) = 0;  // entries ever recorded
  int64_t done_ GUARDED_BY(mu_) = 0;      // of them, written or dropped
  bool closing_ GUARDED_BY(mu_) = false;
  bool stopped_ GUARDED_BY(mu_) = false;  // the writer has returned
  std::thread writer_;
};

}  // namespace hpt::server
