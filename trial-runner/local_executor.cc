// NewLocalExecutor: trials as local process groups, this process's children
// (TrialProcess) or each under its own supervisor that outlives this process
// (SupervisedTrial, with options.shim_command). The poll thread poll()s a
// wake-up pipe and every trial's descriptors, copies output to logs and acts
// on exits, timeouts and kills; the delivery thread parses metric lines and
// calls the listener (which may write to a store or run an early-stopping
// rule), so a slow listener never delays another trial's timeout or kill.
// Their queue (delivery_queue.h) takes trials in turn, and is bounded: once
// full, the poll thread stops reading output (and metrics files) and trials
// wait on their full pipes.

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <map>
#include <memory>
#include <optional>
#include <thread>
#include <utility>
#include <vector>

#include "api/mutex.h"
#include "trial-runner/container_command.h"
#include "trial-runner/delivery_queue.h"
#include "trial-runner/executor.h"
#include "trial-runner/gpu_pool.h"
#include "trial-runner/process_identity.h"
#include "trial-runner/run_as.h"
#include "trial-runner/supervised_trial.h"
#include "trial-runner/trial_process.h"

namespace hpt::runner {
namespace {

using Clock = LocalJob::Clock;
using Key = TrialKey;
using Event = DeliveryEvent;

struct Entry {
  std::unique_ptr<LocalJob> process;  // null while Start() launches it
  GpuLease gpus;                      // held until its exit is delivered
  bool kill_requested = false;
  bool finished = false;  // its exit is queued for delivery
  bool supervised = false;  // under a supervisor (trial_shim.h): outlives us
  std::string container;  // its container's name (container_command.h); "": none
};

class LocalExecutor : public Executor {
 public:
  LocalExecutor(ExecutorListener* listener, const LocalExecutorOptions& options)
      : listener_(listener),
        options_(options),
        gpus_(options.gpus),
        queue_([this] { Wake(); }) {  // the poll thread reads output again
    HPT_CHECK(pipe2(wake_, O_CLOEXEC | O_NONBLOCK) == 0);
    delivery_ = std::thread([this] { Deliver(); });
    thread_ = std::thread([this] { Loop(); });
  }

  ~LocalExecutor() override {
    {
      MutexLock lock(&mu_);
      stopping_ = true;
      // Supervised trials go on, as after a crash: a restarted server
      // re-attaches to them.
      for (auto& [key, entry] : entries_) {
        if (!entry.supervised) entry.kill_requested = true;
      }
    }
    Wake();
    thread_.join();
    queue_.Close();
    delivery_.join();
    close(wake_[0]);
    close(wake_[1]);
  }

  StatusOr<JobHandle> Start(const LaunchSpec& spec) override {
    Key key(spec.experiment, spec.trial);
    HPT_RETURN_IF_ERROR(gpus_.CheckFits(spec.resources));
    if (!spec.run_as_user.empty()) HPT_RETURN_IF_ERROR(CheckCanRunAs(spec.run_as_user));
    GpuLease gpus;
    {
      MutexLock lock(&mu_);
      if (stopping_) return FailedPrecondition("the executor is shutting down");
      if (entries_.count(key)) {
        return AlreadyExists("trial " + spec.experiment + "/" + spec.trial +
                             " is already running");
      }
      std::string waiting;
      auto acquired = gpus_.Acquire(spec.resources, &waiting);
      if (!acquired) return Unavailable(waiting);
      gpus = *acquired;
      entries_[key].gpus = gpus;
      entries_[key].supervised = supervised();
    }
    LaunchSpec with_gpus = spec;
    AddLeaseToEnv(gpus, with_gpus.env);
    // Launched without the lock: spawning waits for the child's exec.
    Status prepared;
    if (!spec.container.image.empty()) {
      StatusOr<LaunchSpec> in_container = InContainer(with_gpus, gpus, options_.containers);
      prepared = in_container.ok() ? MakeContainerMounts(*in_container) : in_container.status();
      if (prepared.ok()) with_gpus = std::move(*in_container);
    }
    StatusOr<std::unique_ptr<LocalJob>> launched =
        prepared.ok() ? Launch(with_gpus) : StatusOr<std::unique_ptr<LocalJob>>(prepared);
    JobHandle job;
    if (launched.ok()) job = {(*launched)->pid(), (*launched)->job_id()};
    {
      MutexLock lock(&mu_);
      if (launched.ok()) {
        entries_[key].process = std::move(*launched);
        if (!spec.container.image.empty()) entries_[key].container = ContainerName(spec);
      } else {
        gpus_.Release(gpus);
        entries_.erase(key);
      }
    }
    if (!launched.ok()) return launched.status();
    Wake();
    return job;
  }

  std::vector<RecoveredJob> Recover(const std::vector<RunningJob>& jobs) override;
  std::vector<bool> StillRunning(const std::vector<RunningJob>& jobs) const override {
    std::vector<bool> out;
    out.reserve(jobs.size());
    for (const RunningJob& job : jobs) {
      // The supervisor, or a previous server's own child: either way the
      // identity (boot, start time) proves it is still the trial's.
      std::optional<ProcessIdentity> id = ParseJobId(job.job_id);
      out.push_back(id && IsSameProcess(*id));
    }
    return out;
  }
  void Kill(const std::string& experiment, const std::string& trial) override {
    {
      MutexLock lock(&mu_);
      auto it = entries_.find(Key(experiment, trial));
      if (it == entries_.end()) return;
      it->second.kill_requested = true;
    }
    Wake();
  }

  int Running() const override {
    MutexLock lock(&mu_);
    return static_cast<int>(entries_.size());
  }

  // The log is a local file, written by the trial's supervisor or by the
  // poll thread: read straight from disk, whoever writes it.
  StatusOr<LogRange> ReadLog(const LogQuery& q) const override {
    if (q.tail >= 0) return ReadTrialLogTail(q.log_path, q.tail);
    return ReadTrialLog(q.log_path, q.offset, q.limit);
  }

 private:
  bool supervised() const { return !options_.shim_command.empty(); }
  StatusOr<std::unique_ptr<LocalJob>> Launch(const LaunchSpec& spec) {
    if (supervised()) {
      HPT_ASSIGN_OR_RETURN(auto job, SupervisedTrial::Launch(spec, options_));
      return std::unique_ptr<LocalJob>(std::move(job));
    }
    HPT_ASSIGN_OR_RETURN(auto job, TrialProcess::Launch(spec, options_));
    return std::unique_ptr<LocalJob>(std::move(job));
  }
  void Wake() {
    char byte = 0;
    ssize_t ignored = write(wake_[1], &byte, 1);  // full: a wake-up is pending
    (void)ignored;
  }

  void Loop();
  void Deliver();
  void DeliverExit(Event& event);

  ExecutorListener* const listener_;
  const LocalExecutorOptions options_;
  GpuPool gpus_;
  int wake_[2] = {-1, -1};
  std::thread thread_;
  std::thread delivery_;

  mutable Mutex mu_;
  bool stopping_ GUARDED_BY(mu_) = false;
  // A launched entry is erased by the delivery thread only, once finished,
  // so the poll thread may use its process (through the pointer it copied
  // under the lock) unlocked until it finishes it.
  std::map<Key, Entry> entries_ GUARDED_BY(mu_);

  DeliveryQueue queue_;
};

void LocalExecutor::Deliver() {
  while (std::optional<Event> event = queue_.Pop()) {
    if (event->line) {
      if (auto observation = event->line->parser->ParseLine(event->line->text)) {
        listener_->OnObservation(event->key.first, event->key.second, *observation);
      }
    } else {
      DeliverExit(*event);
    }
  }
}

void LocalExecutor::DeliverExit(Event& event) {
  // Erased first, so that the trial no longer counts in Running() and its
  // name can be started again from OnExit().
  std::unique_ptr<LocalJob> finished;
  std::string container;
  {
    MutexLock lock(&mu_);
    auto it = entries_.find(event.key);
    finished = std::move(it->second.process);
    container = it->second.container;
    gpus_.Release(it->second.gpus);
    entries_.erase(it);
  }
  // Killed, its podman client does not take the container along; ended,
  // it is gone already (--rm). Before OnExit(): its end means nothing of it
  // runs on.
  if (!container.empty()) RemoveContainer(options_.containers, container);
  if (finished) {
    finished->SweepAndReap();
    // Every line of the trial is parsed by now (this thread, in order).
    for (const auto& parser : finished->parsers()) {
      if (!parser) continue;
      for (std::string& name : parser->OtherNames()) {
        event.exit->other_metrics.push_back(std::move(name));
      }
    }
  }
  listener_->OnExit(event.key.first, event.key.second, *event.exit);
}

void LocalExecutor::Loop() {
  struct Running {
    Key key;
    LocalJob* process;
  };
  std::vector<Running> running;
  std::vector<pollfd> fds;
  std::vector<Event> events;
  while (true) {
    Clock::time_point now = Clock::now();
    running.clear();
    {
      MutexLock lock(&mu_);
      bool all_finished = true;  // of the trials that end with this executor
      for (auto& [key, entry] : entries_) {
        if (entry.finished) continue;
        all_finished = all_finished && entry.supervised;
        if (!entry.process) continue;
        if (entry.kill_requested) entry.process->Kill(ExitKind::kKilled, now);
        running.push_back({key, entry.process.get()});
      }
      if (stopping_ && all_finished) return;
    }
    const bool read_output = !queue_.full();

    fds.clear();
    fds.push_back({wake_[0], POLLIN, 0});
    std::optional<Clock::time_point> wake;
    for (const Running& r : running) {
      r.process->AddPollFds(fds, read_output);
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
    std::vector<Key> finished;
    for (const Running& r : running) {
      auto emit = [&](MetricLine line) {
        events.push_back({r.key, std::move(line), std::nullopt});
      };
      r.process->Step(fds, now, emit);
      if (r.process->done(now)) {
        ExitInfo info = r.process->Finish(emit);
        events.push_back({r.key, std::nullopt, std::move(info)});
        finished.push_back(r.key);
      }
    }
    if (!finished.empty()) {
      MutexLock lock(&mu_);
      for (const Key& key : finished) entries_[key].finished = true;
    }
    queue_.Push(events);
  }
}

std::vector<RecoveredJob> LocalExecutor::Recover(const std::vector<RunningJob>& jobs) {
  std::vector<RecoveredJob> out(jobs.size());
  for (size_t i = 0; i < jobs.size(); ++i) {
    const RunningJob& job = jobs[i];
    // A supervisor (hpt serve) is followed through its files, by any
    // server; a previous server's own child (the one `hpt run` embeds) is
    // not: its output pipe died with it. Killed by its session (its leader
    // is provably the trial) and the cookie, the trial's alone.
    std::optional<ProcessIdentity> id = ParseJobId(job.job_id);
    const std::string container =
        job.spec.container.image.empty() ? "" : ContainerName(job.spec);
    if (id && IsLiveNonShim(*id)) {
      ::kill(-id->pid, SIGKILL);
      SweepProcesses(id->pid, id->cookie);
      if (!container.empty()) RemoveContainer(options_.containers, container);
      continue;
    }
    // Gone: Attach reads the end its supervisor recorded, if any, and
    // sweeps what is left by the cookie.
    Key key(job.spec.experiment, job.spec.trial);
    {
      MutexLock lock(&mu_);
      if (stopping_ || !entries_.try_emplace(key).second) continue;
    }
    auto attached = SupervisedTrial::Attach(job.spec, job.job_id, options_);
    if (!attached.ok() || !*attached) {
      // Its client is gone; the container may run on, by its name.
      if (!container.empty()) RemoveContainer(options_.containers, container);
      MutexLock lock(&mu_);
      entries_.erase(key);
      continue;
    }
    MutexLock lock(&mu_);
    out[i].attached = true;
    out[i].job_id = (*attached)->job_id();
    out[i].running = true;
    entries_[key].supervised = true;
    entries_[key].container = container;
    // It holds the GPUs it was started with.
    GpuLease lease = (*attached)->gpu_lease();
    gpus_.Claim(lease);
    entries_[key].gpus = lease;
    entries_[key].process = std::move(*attached);
  }
  Wake();
  return out;
}

}  // namespace

std::unique_ptr<Executor> NewLocalExecutor(
    ExecutorListener* listener, const LocalExecutorOptions& options) {
  return std::make_unique<LocalExecutor>(listener, options);
}

void RegisterBuiltinExecutors(ExecutorRegistry& registry) {
  HPT_CHECK(registry
                .Register("local",
                          [](const ExecutorContext& c) {
                            return NewLocalExecutor(c.listener, c.local);
                          })
                .ok());
  HPT_CHECK(registry
                .Register("slurm",
                          [](const ExecutorContext& c) {
                            return NewSlurmExecutor(c.listener, c.slurm);
                          })
                .ok());
}

}  // namespace hpt::runner
