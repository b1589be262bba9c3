#pragma once
// FakeExecutor: a runner::Executor that runs nothing. It records what the
// controller asks of it (Start, Kill, Recover) and lets a test play the
// trials: report an observation or an exit for a chosen trial, from the
// test's thread, as the real executor's delivery thread would. Its GPUs
// are handed out as the local executor's are: a trial holds them from
// Start() to its exit.
//
// Thread-safe: the controller calls it from its work pool.

#include <algorithm>
#include <map>
#include <mutex>
#include <set>
#include <string>
#include <vector>

#include "api/status.h"
#include "trial-runner/executor.h"
#include "trial-runner/gpu_pool.h"

namespace hpt::controller::testing {

class FakeExecutor : public runner::Executor {
 public:
  explicit FakeExecutor(runner::ExecutorListener* listener, std::vector<int> gpus = {})
      : listener_(listener), gpus_(runner::DevicesFromIndices(gpus)) {}

  StatusOr<runner::JobHandle> Start(const runner::LaunchSpec& given) override {
    std::lock_guard<std::mutex> lock(mu_);
    if (given.argv.empty()) return InvalidArgument("argv is empty");
    HPT_RETURN_IF_ERROR(gpus_.CheckFits(given.resources));
    std::string waiting;
    auto gpus = gpus_.Acquire(given.resources, &waiting);
    if (!gpus) return Unavailable(waiting);
    runner::LaunchSpec spec = given;
    runner::AddLeaseToEnv(*gpus, spec.env);
    started_.push_back(spec);
    const std::string key = Key(spec.experiment, spec.trial);
    held_[key] = *gpus;
    running_.insert(key);
    max_running_[spec.experiment] = std::max(max_running_[spec.experiment],
                                             RunningOfLocked(spec.experiment));
    runner::JobHandle job;
    job.pid = next_pid_++;
    job.id = no_job_id_.count(spec.trial) ? "" : "fake:" + key;
    return job;
  }

  // Re-attaches the trials AttachOnRecover() names (they run again, as
  // far as the test is concerned); the others count as stale kills. While
  // CannotTellOnRecover() says so, every job is unknown instead.
  std::vector<runner::RecoveredJob> Recover(
      const std::vector<runner::RunningJob>& jobs) override {
    std::lock_guard<std::mutex> lock(mu_);
    std::vector<runner::RecoveredJob> out(jobs.size());
    ++recover_calls_;
    if (cannot_tell_ > 0) {
      --cannot_tell_;
      for (runner::RecoveredJob& r : out) {
        r.unknown = true;
        r.why = "the cluster does not answer";
      }
      return out;
    }
    for (size_t i = 0; i < jobs.size(); ++i) {
      const runner::LaunchSpec& spec = jobs[i].spec;
      if (attach_.count(spec.trial)) {
        out[i].attached = true;
        out[i].job_id = "fake:" + Key(spec.experiment, spec.trial);
        out[i].running = true;
        runner::GpuLease lease =
            runner::LeaseFromEnv(attach_[spec.trial], std::nullopt, std::nullopt);
        gpus_.Claim(lease);
        held_[Key(spec.experiment, spec.trial)] = lease;
        started_.push_back(spec);
        running_.insert(Key(spec.experiment, spec.trial));
        recovered_.push_back(jobs[i]);
      } else if (!jobs[i].job_id.empty()) {
        stale_kills_.push_back(jobs[i].job_id);
      }
    }
    return out;
  }

  // The trials AttachOnRecover() names still run.
  std::vector<bool> StillRunning(const std::vector<runner::RunningJob>& jobs) const override {
    std::lock_guard<std::mutex> lock(mu_);
    std::vector<bool> out;
    for (const auto& job : jobs) out.push_back(attach_.count(job.spec.trial) > 0);
    return out;
  }

  void Kill(const std::string& experiment, const std::string& trial) override {
    std::lock_guard<std::mutex> lock(mu_);
    kills_.push_back(Key(experiment, trial));
  }

  int Running() const override {
    std::lock_guard<std::mutex> lock(mu_);
    return static_cast<int>(running_.size());
  }

  StatusOr<runner::LogRange> ReadLog(const runner::LogQuery& q) const override {
    if (q.tail >= 0) return runner::ReadTrialLogTail(q.log_path, q.tail);
    return runner::ReadTrialLog(q.log_path, q.offset, q.limit);
  }

  // --- The test's side.

  // Recover() re-attaches `trial`, which holds `gpus` (CUDA_VISIBLE_DEVICES).
  void AttachOnRecover(const std::string& trial, const std::string& gpus = "") {
    std::lock_guard<std::mutex> lock(mu_);
    attach_[trial] = gpus;
  }
  // The next `calls` Recover() calls can tell nothing (a cluster that
  // does not answer).
  void CannotTellOnRecover(int calls) {
    std::lock_guard<std::mutex> lock(mu_);
    cannot_tell_ = calls;
  }
  int recover_calls() const {
    std::lock_guard<std::mutex> lock(mu_);
    return recover_calls_;
  }
  // The jobs Recover() re-attached, as the controller described them.
  std::vector<runner::RunningJob> recovered() const {
    std::lock_guard<std::mutex> lock(mu_);
    return recovered_;
  }

  // Trials started later get an empty job id (an executor that has none).
  void GiveNoJobId(const std::string& trial) {
    std::lock_guard<std::mutex> lock(mu_);
    no_job_id_.insert(trial);
  }

  // Reports one observation of a running trial.
  void Observe(const std::string& experiment, const std::string& trial,
               int64_t step, std::map<std::string, double> metrics) {
    api::Observation o;
    o.step = step;
    o.timestamp_ms = api::NowMillis();
    o.metrics = std::move(metrics);
    listener_->OnObservation(experiment, trial, o);
  }

  // Reports the trial's exit (any trial: a test may play a late one).
  void Exit(const std::string& experiment, const std::string& trial,
            runner::ExitInfo info = {}) {
    {
      std::lock_guard<std::mutex> lock(mu_);
      running_.erase(Key(experiment, trial));
      gpus_.Release(held_[Key(experiment, trial)]);
      held_.erase(Key(experiment, trial));
    }
    listener_->OnExit(experiment, trial, info);
  }
  void ExitCode(const std::string& experiment, const std::string& trial,
                int code) {
    runner::ExitInfo info;
    info.exit_code = code;
    Exit(experiment, trial, info);
  }

  std::vector<runner::LaunchSpec> started() const {
    std::lock_guard<std::mutex> lock(mu_);
    return started_;
  }
  // Names of the trials of `experiment` started so far, in order.
  std::vector<std::string> StartedTrials(const std::string& experiment) const {
    std::lock_guard<std::mutex> lock(mu_);
    std::vector<std::string> names;
    for (const auto& s : started_) {
      if (s.experiment == experiment) names.push_back(s.trial);
    }
    return names;
  }
  // Trials of `experiment` started and not yet reported as exited.
  std::vector<std::string> RunningTrials(const std::string& experiment) const {
    std::lock_guard<std::mutex> lock(mu_);
    std::vector<std::string> names;
    for (const auto& s : started_) {
      if (s.experiment == experiment &&
          running_.count(Key(s.experiment, s.trial))) {
        names.push_back(s.trial);
      }
    }
    return names;
  }
  // The most trials of `experiment` that ever ran at once.
  int MaxRunning(const std::string& experiment) const {
    std::lock_guard<std::mutex> lock(mu_);
    auto it = max_running_.find(experiment);
    return it == max_running_.end() ? 0 : it->second;
  }
  // "experiment/trial" per Kill() call, in order.
  std::vector<std::string> kills() const {
    std::lock_guard<std::mutex> lock(mu_);
    return kills_;
  }
  std::vector<std::string> stale_kills() const {
    std::lock_guard<std::mutex> lock(mu_);
    return stale_kills_;
  }

  static std::string Key(const std::string& experiment,
                         const std::string& trial) {
    return experiment + "/" + trial;
  }

 private:
  int RunningOfLocked(const std::string& experiment) const {
    int n = 0;
    for (const auto& key : running_) n += key.rfind(experiment + "/", 0) == 0;
    return n;
  }

  runner::ExecutorListener* const listener_;
  mutable std::mutex mu_;
  runner::GpuPool gpus_;
  std::map<std::string, runner::GpuLease> held_;  // guarded by mu_
  int64_t next_pid_ = 1000;
  std::vector<runner::LaunchSpec> started_;  // guarded by mu_
  std::set<std::string> running_;            // guarded by mu_
  std::map<std::string, int> max_running_;   // guarded by mu_
  std::vector<std::string> kills_;           // guarded by mu_
  std::vector<std::string> stale_kills_;     // guarded by mu_
  std::set<std::string> no_job_id_;          // guarded by mu_
  std::map<std::string, std::string> attach_;  // guarded by mu_
  std::vector<runner::RunningJob> recovered_;  // guarded by mu_
  int cannot_tell_ = 0;                        // guarded by mu_
  int recover_calls_ = 0;                      // guarded by mu_
};

}  // namespace hpt::controller::testing
