// NewLocalExecutor: trials as local process groups (TrialProcess), all
// driven by one thread that poll()s a wake-up pipe and every trial's
// descriptors, so that nothing waits on a fixed sleep.

#include <fcntl.h>
#include <poll.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <thread>
#include <utility>
#include <vector>

#include "trial-runner/executor.h"
#include "trial-runner/trial_process.h"

namespace hpt::runner {
namespace {

using Clock = TrialProcess::Clock;
using Key = std::pair<std::string, std::string>;  // experiment, trial

struct Entry {
  std::unique_ptr<TrialProcess> process;  // null while Start() launches it
  bool kill_requested = false;
};

// What the loop hands to the listener once it holds no lock.
struct Event {
  Key key;
  std::optional<api::Observation> observation;
  std::optional<ExitInfo> exit;  // set: the trial's last event
};

class LocalExecutor : public Executor {
 public:
  LocalExecutor(ExecutorListener* listener, const LocalExecutorOptions& options)
      : listener_(listener), options_(options) {
    HPT_CHECK(pipe2(wake_, O_CLOEXEC | O_NONBLOCK) == 0);
    thread_ = std::thread([this] { Loop(); });
  }

  ~LocalExecutor() override {
    {
      std::lock_guard<std::mutex> lock(mu_);
      stopping_ = true;
      for (auto& [key, entry] : entries_) entry.kill_requested = true;
    }
    Wake();
    thread_.join();
    close(wake_[0]);
    close(wake_[1]);
  }

  StatusOr<int64_t> Start(const LaunchSpec& spec) override {
    Key key(spec.experiment, spec.trial);
    {
      std::lock_guard<std::mutex> lock(mu_);
      if (stopping_) return FailedPrecondition("the executor is shutting down");
      if (!entries_.try_emplace(key).second) {
        return AlreadyExists("trial " + spec.experiment + "/" + spec.trial +
                             " is already running");
      }
    }
    // Launched without the lock: spawning waits for the child's exec.
    StatusOr<std::unique_ptr<TrialProcess>> launched =
        TrialProcess::Launch(spec, options_);
    int64_t pid = launched.ok() ? (*launched)->pid() : 0;
    {
      std::lock_guard<std::mutex> lock(mu_);
      if (launched.ok()) {
        entries_[key].process = std::move(*launched);
      } else {
        entries_.erase(key);
      }
    }
    if (!launched.ok()) return launched.status();
    Wake();
    return pid;
  }

  void Kill(const std::string& experiment, const std::string& trial) override {
    {
      std::lock_guard<std::mutex> lock(mu_);
      auto it = entries_.find(Key(experiment, trial));
      if (it == entries_.end()) return;
      it->second.kill_requested = true;
    }
    Wake();
  }

  int Running() const override {
    std::lock_guard<std::mutex> lock(mu_);
    return static_cast<int>(entries_.size());
  }

 private:
  void Wake() {
    char byte = 0;
    ssize_t ignored = write(wake_[1], &byte, 1);  // full: a wake-up is pending
    (void)ignored;
  }

  void Loop();

  ExecutorListener* const listener_;
  const LocalExecutorOptions options_;
  int wake_[2] = {-1, -1};
  std::thread thread_;

  mutable std::mutex mu_;
  bool stopping_ = false;         // guarded by mu_
  std::map<Key, Entry> entries_;  // guarded by mu_; a launched entry is
                                  // erased by the loop thread only, so the
                                  // loop may use its process unlocked
};

void LocalExecutor::Loop() {
  struct Running {
    Key key;
    TrialProcess* process;
  };
  std::vector<Running> running;
  std::vector<pollfd> fds;
  std::vector<Event> events;
  while (true) {
    Clock::time_point now = Clock::now();
    running.clear();
    {
      std::lock_guard<std::mutex> lock(mu_);
      if (stopping_ && entries_.empty()) return;
      for (auto& [key, entry] : entries_) {
        if (!entry.process) continue;
        if (entry.kill_requested) entry.process->Kill(ExitKind::kKilled, now);
        running.push_back({key, entry.process.get()});
      }
    }

    fds.clear();
    fds.push_back({wake_[0], POLLIN, 0});
    std::optional<Clock::time_point> wake;
    for (const Running& r : running) {
      r.process->AddPollFds(fds);
      if (auto t = r.process->NextWake(now))
        wake = wake ? std::min(*wake, *t) : t;
    }
    int timeout_ms = -1;
    if (wake) {
      auto ms =
          std::chrono::ceil<std::chrono::milliseconds>(*wake - now).count();
      timeout_ms = static_cast<int>(std::clamp<int64_t>(ms, 0, 60'000));
    }
    int ready = poll(fds.data(), fds.size(), timeout_ms);
    HPT_CHECK(ready >= 0 || errno == EINTR);
    if (ready > 0 && fds[0].revents != 0) {
      char drain[256];
      while (read(wake_[0], drain, sizeof drain) > 0) {
      }
    }

    now = Clock::now();
    for (const Running& r : running) {
      auto emit = [&](api::Observation observation) {
        events.push_back({r.key, std::move(observation), std::nullopt});
      };
      r.process->Step(fds, now, emit);
      if (r.process->done(now)) {
        ExitInfo info = r.process->Finish(emit);
        events.push_back({r.key, std::nullopt, std::move(info)});
      }
    }

    // No lock held: a callback may call Start() or Kill().
    for (Event& event : events) {
      if (event.exit) {
        // Erased first, so that the trial no longer counts in Running() and
        // its name can be started again from OnExit().
        std::unique_ptr<TrialProcess> finished;
        {
          std::lock_guard<std::mutex> lock(mu_);
          auto it = entries_.find(event.key);
          finished = std::move(it->second.process);
          entries_.erase(it);
        }
        listener_->OnExit(event.key.first, event.key.second, *event.exit);
      } else {
        listener_->OnObservation(event.key.first, event.key.second,
                                 *event.observation);
      }
    }
    events.clear();
  }
}

}  // namespace

std::unique_ptr<Executor> NewLocalExecutor(
    ExecutorListener* listener, const LocalExecutorOptions& options) {
  return std::make_unique<LocalExecutor>(listener, options);
}

}  // namespace hpt::runner
