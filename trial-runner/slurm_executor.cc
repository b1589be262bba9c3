// NewSlurmExecutor: each trial is one Slurm batch job (sbatch --wrap), its
// output written by Slurm to the trial's log, which this executor follows
// for metrics as the local executor follows a supervised trial's. One
// thread polls the logs (every 0.5 s) and the controller's view of the jobs
// (squeue, every poll), cancels what Kill() asked for, and calls the
// listener without holding any lock. A job Slurm requeues (its restart
// count rises) is the same job: OnRequeued(), then OnRunning() when it runs
// again, its output read on from where it was (sbatch --open-mode=append).
// Jobs outlive this executor: destroying it stops the following, and
// Recover() adopts the jobs by id (or by name, when the id was never
// stored).

#include <signal.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <condition_variable>  // std::condition_variable_any
#include <filesystem>
#include <optional>
#include <set>
#include <thread>
#include <unistd.h>

#include "api/mutex.h"
#include "api/private_files.h"
#include "trial-runner/executor.h"
#include "trial-runner/line_buffer.h"
#include "trial-runner/local_job.h"
#include "trial-runner/run_as.h"
#include "trial-runner/slurm_cli.h"
#include "trial-runner/slurm_jobs.h"
#include "trial-runner/trial_log.h"

namespace hpt::runner {
namespace {

using Key = std::pair<std::string, std::string>;  // experiment, trial
constexpr auto kPollInterval = std::chrono::milliseconds(500);
// The users of `jobs` that run as another user (their jobs are theirs in
// Slurm); users that cannot be looked up are left out.
std::set<uid_t> RunAsUids(const std::vector<RunningJob>& jobs) {
  std::set<uid_t> uids;
  for (const RunningJob& job : jobs) {
    if (job.spec.run_as_user.empty()) continue;
    if (auto run_as = ResolveRunAs(job.spec.run_as_user); run_as.ok()) uids.insert(run_as->uid);
  }
  return uids;
}

// A job's own state, used by the executor's thread alone (no lock).
struct Job {
  std::string id;
  std::optional<uid_t> uid;  // the user it runs as, when another one
  LaunchSpec spec;
  TrialCollectors collectors;
  std::unique_ptr<TrialLogFollower> follower;
  LineBuffer lines;
  TailLines tail{20};
  bool cancelled = false;
  bool running = false;  // OnRunning() was said (since the last requeue)
  // Slurm's restart count as last seen, and whether the job waits to run
  // again after a requeue (OnRequeued() was said, OnRunning() not yet).
  int restarts = 0;
  bool requeued = false;
};

// One line of the job's output: kept for its tail, parsed for metrics.
void TakeLine(Job& job, std::string_view line, std::vector<api::Observation>& out) {
  job.tail.Add(line);
  if (job.collectors.stdout_parser) {
    if (auto o = job.collectors.stdout_parser->ParseLine(line)) out.push_back(*o);
  }
}

// What the executor's map holds for a trial: the job, and what Kill() (any
// thread) asks of it, which is guarded by the map's lock.
struct Entry {
  std::unique_ptr<Job> job;
  bool kill_requested = false;  // Kill() sets it
};

class SlurmExecutor : public Executor {
 public:
  SlurmExecutor(ExecutorListener* listener, SlurmOptions options)
      : listener_(listener), shards_per_gpu_(options.shards_per_gpu), slurm_(std::move(options)) {
    thread_ = std::thread([this] { Loop(); });
  }

  ~SlurmExecutor() override {
    {
      MutexLock lock(&mu_);
      stopping_ = true;
    }
    cv_.notify_all();
    thread_.join();  // the jobs go on in Slurm; Recover() adopts them
  }

  StatusOr<JobHandle> Start(const LaunchSpec& spec) override {
    if (spec.argv.empty()) return InvalidArgument("argv is empty");
    if (spec.log_path.empty()) return InvalidArgument("a Slurm trial needs a log_path");
    HPT_ASSIGN_OR_RETURN(TrialCollectors collectors, NewTrialCollectors(spec, true));
    Key key(spec.experiment, spec.trial);
    {
      MutexLock lock(&mu_);
      if (stopping_) return FailedPrecondition("the executor is shutting down");
      if (jobs_.count(key)) {
        return AlreadyExists("trial " + spec.experiment + "/" + spec.trial +
                             " is already running");
      }
    }
    std::optional<RunAs> run_as;
    if (!spec.run_as_user.empty()) {
      HPT_RETURN_IF_ERROR(CheckCanRunAs(spec.run_as_user));
      HPT_ASSIGN_OR_RETURN(run_as, ResolveRunAs(spec.run_as_user));
    }
    HPT_RETURN_IF_ERROR(api::CreatePrivateParentFolders(spec.log_path));
    ::unlink(spec.log_path.c_str());  // a previous trial of this name
    // Slurm opens the output as the job's user: it gets the file, not its
    // folder (whose entries stay the server's to name).
    if (run_as) HPT_RETURN_IF_ERROR(CreateFileOwnedBy(spec.log_path, *run_as));
    SlurmSubmit submit;
    submit.name = JobName(spec);
    submit.argv = spec.argv;
    submit.working_dir = spec.working_dir;
    submit.output_path = std::filesystem::absolute(spec.log_path).string();
    submit.env = spec.env;
    // Its HOME, USER and LOGNAME, not the server's.
    if (run_as) {
      for (const auto& [name, value] : RunAsEnvironment(*run_as)) submit.env[name] = value;
    }
    const api::Resources& r = spec.resources;
    // A share of a GPU: that share of a card's shards where the cluster
    // has them, else a whole GPU.
    if (r.gpu > 0 && r.gpu < 1 && shards_per_gpu_ > 0) {
      submit.shards = std::max(1, static_cast<int>(std::ceil(r.gpu * shards_per_gpu_ - 1e-9)));
    } else {
      submit.gpus = static_cast<int>(std::ceil(r.gpu));
    }
    submit.cpus = static_cast<int>(std::ceil(r.cpu));
    submit.memory_mb = (r.memory + (1 << 20) - 1) >> 20;
    submit.time_minutes = (spec.timeout_seconds + 59) / 60;
    if (run_as) {
      submit.uid = run_as->uid;
      submit.gid = run_as->gid;
    }
    // Its namespace's account ("account[:qos]").
    const size_t colon = spec.slurm_account.find(':');
    submit.account = spec.slurm_account.substr(0, colon);
    if (colon != std::string::npos) submit.qos = spec.slurm_account.substr(colon + 1);
    // Slurm can refuse for a moment (a busy controller): the runner keeps
    // the trial Pending and tries again.
    HPT_ASSIGN_OR_RETURN(std::string id, slurm_.Submit(submit));
    auto job = std::make_unique<Job>();
    job->id = id;
    if (run_as) job->uid = run_as->uid;
    job->spec = spec;
    job->collectors = std::move(collectors);
    job->follower = std::make_unique<TrialLogFollower>(submit.output_path);
    {
      MutexLock lock(&mu_);
      jobs_[key] = Entry{std::move(job)};
    }
    cv_.notify_all();
    return JobHandle{0, kSlurmIdPrefix + id, /*queued=*/true};
  }

  std::vector<RecoveredJob> Recover(const std::vector<RunningJob>& jobs) override {
    std::vector<RecoveredJob> out(jobs.size());
    auto known = KnownJobs(RunAsUids(jobs));
    if (!known.ok()) {
      // Slurm did not answer: the jobs may run on, and a trial taken as
      // gone would be started a second time beside its job.
      for (RecoveredJob& r : out) {
        r.unknown = true;
        r.why = known.status().message();
      }
      return out;
    }
    for (size_t i = 0; i < jobs.size(); ++i) {
      const LaunchSpec& spec = jobs[i].spec;
      const SlurmJob* found = FindJob(*known, jobs[i]);
      if (!found) continue;
      const std::string id = found->id;
      auto job = std::make_unique<Job>();
      job->id = id;
      if (auto run_as = ResolveRunAs(spec.run_as_user); run_as.ok()) job->uid = run_as->uid;
      job->spec = spec;
      auto collectors = NewTrialCollectors(spec, false);
      if (!collectors.ok()) continue;
      job->collectors = std::move(*collectors);
      job->follower = std::make_unique<TrialLogFollower>(
          std::filesystem::absolute(spec.log_path).string());
      // Requeues before now are the controller's to read from the answer.
      job->restarts = found->restarts;
      job->requeued = found->restarts > 0 && !Runs(*found, false) && !found->finished();
      out[i].running = Runs(*found, job->requeued);
      out[i].restarts = found->restarts;
      MutexLock lock(&mu_);
      out[i].attached =
          jobs_.try_emplace(Key(spec.experiment, spec.trial), Entry{std::move(job)}).second;
      out[i].job_id = kSlurmIdPrefix + id;
    }
    cv_.notify_all();
    return out;
  }

  std::vector<bool> StillRunning(const std::vector<RunningJob>& jobs) const override {
    std::vector<bool> out(jobs.size(), false);
    auto known = KnownJobs(RunAsUids(jobs));
    if (!known.ok()) return out;  // unreachable: the next restart looks again
    for (size_t i = 0; i < jobs.size(); ++i) {
      if (jobs[i].job_id.rfind(kSlurmIdPrefix, 0) != 0) continue;  // only a stored id
      const SlurmJob* found = FindJob(*known, jobs[i]);
      out[i] = found && !found->finished();
    }
    return out;
  }

  void Kill(const std::string& experiment, const std::string& trial) override {
    {
      MutexLock lock(&mu_);
      auto it = jobs_.find(Key(experiment, trial));
      if (it == jobs_.end()) return;
      it->second.kill_requested = true;
    }
    cv_.notify_all();
  }

  int Running() const override {
    MutexLock lock(&mu_);
    return static_cast<int>(jobs_.size());
  }

  StatusOr<LogRange> ReadLog(const LogQuery& q) const override {
    if (q.tail >= 0) return ReadTrialLogTail(q.log_path, q.tail);
    return ReadTrialLog(q.log_path, q.offset, q.limit);
  }

 private:
  void Loop();
  // New lines of `job`'s output (and metrics file) as observations.
  void Follow(Job& job, bool finish, std::vector<api::Observation>& out);

  // Slurm's jobs for recovery, which asks once per experiment at start-up:
  // one squeue answers the experiments that ask within a second or two
  // (about the same users: `users`, beside this process's).
  StatusOr<std::map<std::string, SlurmJob>> KnownJobs(const std::set<uid_t>& users) const
      EXCLUDES(known_mu_) {
    MutexLock lock(&known_mu_);
    const auto now = std::chrono::steady_clock::now();
    const bool asked = std::includes(known_users_.begin(), known_users_.end(), users.begin(),
                                     users.end());
    if (!known_ || !asked || now - known_at_ > std::chrono::seconds(2)) {
      known_users_.insert(users.begin(), users.end());
      auto jobs = slurm_.Jobs(known_users_);
      if (!jobs.ok()) return jobs.status();
      known_ = std::move(*jobs);
      known_at_ = now;
    }
    return *known_;
  }

  ExecutorListener* const listener_;
  const int shards_per_gpu_;
  const SlurmCli slurm_;
  mutable Mutex known_mu_;
  mutable std::optional<std::map<std::string, SlurmJob>> known_ GUARDED_BY(known_mu_);
  mutable std::chrono::steady_clock::time_point known_at_ GUARDED_BY(known_mu_);
  mutable std::set<uid_t> known_users_ GUARDED_BY(known_mu_);
  std::thread thread_;
  mutable Mutex mu_;
  std::condition_variable_any cv_;  // waited on with mu_
  bool stopping_ GUARDED_BY(mu_) = false;
  // The map and each Entry's kill_requested; the Jobs themselves are the
  // thread's alone (only it erases an entry, so its Job* stays valid).
  std::map<Key, Entry> jobs_ GUARDED_BY(mu_);
};

void SlurmExecutor::Follow(Job& job, bool finish, std::vector<api::Observation>& out) {
  auto on_line = [&](std::string_view line) { TakeLine(job, line, out); };
  constexpr size_t kLimit = 1 << 20;
  std::string data;
  do {  // at the end, all of it
    data.clear();
    job.follower->Read(data, kLimit, finish);
    job.lines.Append(data, on_line);
  } while (finish && data.size() >= kLimit);
  if (finish) job.lines.Flush(on_line);
  if (job.collectors.file) {
    auto on_file_line = [&](std::string_view line) {
      if (auto o = job.collectors.file_parser->ParseLine(line)) out.push_back(*o);
    };
    finish ? job.collectors.file->Finish(on_file_line) : job.collectors.file->Poll(on_file_line);
  }
}

void SlurmExecutor::Loop() {
  while (true) {
    std::vector<std::pair<Key, Job*>> jobs;
    {
      MutexLock lock(&mu_);
      // One poll interval, or less when woken (a new job, a kill, stop).
      cv_.wait_for(mu_, kPollInterval);
      if (stopping_) return;
      for (auto& [key, entry] : jobs_) jobs.push_back({key, entry.job.get()});
    }
    if (jobs.empty()) continue;
    for (auto& [key, job] : jobs) {
      bool cancel = false;
      {
        MutexLock lock(&mu_);
        cancel = jobs_.at(key).kill_requested && !job->cancelled;
      }
      if (cancel && slurm_.Cancel(job->id).ok()) job->cancelled = true;
    }
    std::set<uid_t> users;
    for (auto& [key, job] : jobs) {
      if (job->uid) users.insert(*job->uid);
    }
    auto known = slurm_.Jobs(users);
    for (auto& [key, job] : jobs) {
      std::optional<SlurmJob> state;
      if (known.ok()) {
        auto it = known->find(job->id);
        if (it != known->end()) state = it->second;
      }
      std::vector<api::Observation> observations;
      if (state && Requeued(*state, job->restarts)) {
        // Back in the queue, same id: what its run printed goes first, its
        // last unterminated line included; the next run appends to the log.
        job->restarts = std::max(job->restarts, state->restarts);
        if (!job->requeued) {
          Follow(*job, false, observations);
          Job& requeued = *job;  // a lambda cannot capture a structured binding (clang)
          job->lines.Flush([&](std::string_view line) { TakeLine(requeued, line, observations); });
          for (const auto& o : observations) listener_->OnObservation(key.first, key.second, o);
          observations.clear();
          job->requeued = true;
          job->running = false;
          listener_->OnRequeued(key.first, key.second, RequeueNote(*state, job->tail.Join()));
        }
        continue;  // not over, whatever the state says now
      }
      // Gone from the controller without an end seen: purged meanwhile.
      const bool ended = known.ok() && (!state || state->finished());
      if (!job->running && state && Runs(*state, job->requeued)) {
        job->running = true;  // out of the queue
        job->requeued = false;
        listener_->OnRunning(key.first, key.second);
      }
      Follow(*job, ended, observations);
      for (const auto& o : observations) listener_->OnObservation(key.first, key.second, o);
      if (!ended) continue;
      bool killed = false;
      {
        MutexLock lock(&mu_);  // Kill() may set it meanwhile
        killed = jobs_.at(key).kill_requested;
      }
      ExitInfo info;
      if (state) {
        info = ExitOf(*state, killed);
      } else {
        info.kind = ExitKind::kSignaled;
        info.signal = SIGKILL;
      }
      info.log_tail = job->tail.Join();
      for (const auto& parser : {job->collectors.stdout_parser, job->collectors.file_parser}) {
        if (parser) {
          for (std::string& name : parser->OtherNames()) info.other_metrics.push_back(name);
        }
      }
      std::string note = "slurm: job " + job->id + " " + (state ? state->state : "vanished");
      info.log_tail += (info.log_tail.empty() ? "" : "\n") + note;
      {
        MutexLock lock(&mu_);
        jobs_.erase(key);  // `job` is gone now
      }
      listener_->OnExit(key.first, key.second, info);
    }
  }
}

}  // namespace

std::unique_ptr<Executor> NewSlurmExecutor(ExecutorListener* listener,
                                           const SlurmOptions& options) {
  return std::make_unique<SlurmExecutor>(listener, options);
}

}  // namespace hpt::runner
