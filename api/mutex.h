#pragma once
// Mutex and MutexLock: std::mutex with clang's thread-safety annotations,
// so that `GUARDED_BY(mu_)` members and `REQUIRES(mu_)` functions are
// checked at compile time (-Wthread-safety, run by the test command; see
// scripts/thread_safety.sh). GCC ignores the annotations.
//
//   class Counter {
//    public:
//     void Add() { MutexLock lock(&mu_); ++n_; }
//    private:
//     void AddLocked() REQUIRES(mu_) { ++n_; }
//     Mutex mu_;
//     int n_ GUARDED_BY(mu_) = 0;
//   };
//
// Mutex is BasicLockable (lock/unlock), so std::condition_variable_any and
// std::unique_lock work with it; prefer MutexLock, which the analysis sees.

#include <mutex>
#include <shared_mutex>

#if defined(__clang__)
#define HPT_THREAD_ANNOTATION(x) __attribute__((x))
#else
#define HPT_THREAD_ANNOTATION(x)
#endif

#define CAPABILITY(x) HPT_THREAD_ANNOTATION(capability(x))
#define SCOPED_CAPABILITY HPT_THREAD_ANNOTATION(scoped_lockable)
#define GUARDED_BY(x) HPT_THREAD_ANNOTATION(guarded_by(x))
#define PT_GUARDED_BY(x) HPT_THREAD_ANNOTATION(pt_guarded_by(x))
#define REQUIRES(...) HPT_THREAD_ANNOTATION(requires_capability(__VA_ARGS__))
#define REQUIRES_SHARED(...) HPT_THREAD_ANNOTATION(requires_shared_capability(__VA_ARGS__))
#define ACQUIRE(...) HPT_THREAD_ANNOTATION(acquire_capability(__VA_ARGS__))
#define ACQUIRE_SHARED(...) HPT_THREAD_ANNOTATION(acquire_shared_capability(__VA_ARGS__))
#define RELEASE(...) HPT_THREAD_ANNOTATION(release_capability(__VA_ARGS__))
#define RELEASE_SHARED(...) HPT_THREAD_ANNOTATION(release_shared_capability(__VA_ARGS__))
#define RELEASE_GENERIC(...) HPT_THREAD_ANNOTATION(release_generic_capability(__VA_ARGS__))
#define EXCLUDES(...) HPT_THREAD_ANNOTATION(locks_excluded(__VA_ARGS__))
#define NO_THREAD_SAFETY_ANALYSIS HPT_THREAD_ANNOTATION(no_thread_safety_analysis)

namespace hpt {

class CAPABILITY("mutex") Mutex {
 public:
  Mutex() = default;
  Mutex(const Mutex&) = delete;
  Mutex& operator=(const Mutex&) = delete;

  void lock() ACQUIRE() { mu_.lock(); }
  void unlock() RELEASE() { mu_.unlock(); }
  // Tells the analysis the caller holds it (where it cannot see the lock:
  // a callback run under it).
  void AssertHeld() const HPT_THREAD_ANNOTATION(assert_capability(this)) {}

 private:
  std::mutex mu_;
};

// Holds `mu` for its scope.
class SCOPED_CAPABILITY MutexLock {
 public:
  explicit MutexLock(Mutex* mu) ACQUIRE(mu) : mu_(mu) { mu_->lock(); }
  ~MutexLock() RELEASE() { mu_->unlock(); }
  MutexLock(const MutexLock&) = delete;
  MutexLock& operator=(const MutexLock&) = delete;

 private:
  Mutex* const mu_;
};

}  // namespace hpt

namespace hpt {

// A reader-writer mutex: many holders of the shared side, or one of the
// exclusive side.
class CAPABILITY("shared mutex") SharedMutex {
 public:
  SharedMutex() = default;
  SharedMutex(const SharedMutex&) = delete;
  SharedMutex& operator=(const SharedMutex&) = delete;

  void lock() ACQUIRE() { mu_.lock(); }
  void unlock() RELEASE() { mu_.unlock(); }
  void lock_shared() ACQUIRE_SHARED() { mu_.lock_shared(); }
  void unlock_shared() RELEASE_SHARED() { mu_.unlock_shared(); }

 private:
  std::shared_mutex mu_;
};

// Holds `mu` exclusively for its scope.
class SCOPED_CAPABILITY WriterLock {
 public:
  explicit WriterLock(SharedMutex* mu) ACQUIRE(mu) : mu_(mu) { mu_->lock(); }
  ~WriterLock() RELEASE() { mu_->unlock(); }
  WriterLock(const WriterLock&) = delete;
  WriterLock& operator=(const WriterLock&) = delete;

 private:
  SharedMutex* const mu_;
};

// Holds `mu` shared for its scope.
class SCOPED_CAPABILITY ReaderLock {
 public:
  explicit ReaderLock(SharedMutex* mu) ACQUIRE_SHARED(mu) : mu_(mu) { mu_->lock_shared(); }
  ~ReaderLock() RELEASE() { mu_->unlock_shared(); }
  ReaderLock(const ReaderLock&) = delete;
  ReaderLock& operator=(const ReaderLock&) = delete;

 private:
  SharedMutex* const mu_;
};

}  // namespace hpt
