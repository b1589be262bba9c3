#pragma once
// DatabaseLock: one server per database. `hpt serve` and `hpt run`'s
// embedded server take it before they open the store, so a second server on
// the same file refuses to start instead of "recovering" (and killing) the
// first one's live trials.
//
// An exclusive flock(2) on "<database>.lock" beside the file (its real
// path, symlinks resolved; a hard-linked database is refused), held for the
// object's lifetime; the holder's pid is written into the lock file for the
// error message. The descriptor is close-on-exec and trials never inherit
// it, so the lock dies with the server process, crash included.

#include <memory>
#include <string>

#include "api/status.h"

namespace hpt::storage {

class DatabaseLock {
 public:
  // FailedPrecondition naming the holder's pid when another process holds
  // it; nothing to lock (and an empty lock) for ":memory:".
  static StatusOr<std::unique_ptr<DatabaseLock>> Acquire(const std::string& db_path);
  ~DatabaseLock();
  DatabaseLock(const DatabaseLock&) = delete;
  DatabaseLock& operator=(const DatabaseLock&) = delete;

 private:
  explicit DatabaseLock(int fd) : fd_(fd) {}
  int fd_ = -1;
};

}  // namespace hpt::storage
