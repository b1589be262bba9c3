#pragma once
// Controller: every experiment's ExperimentRunner, created when the
// experiment is and on start-up recovery, and the routing of API calls and
// executor callbacks to them. No HTTP here: server/ maps routes onto these
// methods.
//
// Threads (docs/architecture.md): API calls run on the caller's thread and
// take only the experiment's own runner lock (and briefly the map's);
// executor callbacks are posted to the experiment's strand on a small work
// pool and return at once; a sweep thread re-posts work for experiments
// waiting for GPUs or with writes the store refused. One experiment's slow
// algorithm call, store commit or trial start never holds up another
// experiment.

#include <chrono>
#include <condition_variable>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <thread>
#include <vector>

#include "api/mutex.h"
#include "controller/draining_trials.h"
#include "controller/experiment_runner.h"
#include "controller/work_pool.h"

namespace hpt::controller {

struct ControllerOptions {
  std::string server_url;  // handed to trials as HPT_URL
  // This hpt binary: a trial command whose first word is `hpt` runs it, so
  // examples (hpt nas darts ...) need no install. "": looked up in PATH.
  std::string hpt_binary;
  std::string token;       // admin token; trials get a TrialToken of it
  std::string log_dir;     // <log_dir>/<experiment>/<trial>.log
  int64_t max_log_bytes = 0;
  int worker_threads = 4;
  // What the admission broker shares out between namespaces (admission.h):
  // the executor's GPUs, CPU cores, bytes of memory. A resource whose
  // capacity is 0 is unknown: not limited by the broker (the executor
  // still answers for its GPUs).
  api::ResourceAmounts capacity;
  // hpt serve --containers podman: a template that names an image runs in
  // it (api/container.h); else only with trialTemplate.executor container.
  bool containers = false;
  // Whether podman is installed here: else an experiment whose trials run
  // in containers is refused.
  bool podman_installed = false;
  // Where the time comes from (tests: tests/testing/fake_clock.h); never null.
  const api::Clock* clock = api::RealClock();
  // How many experiments keep their state (spec, trials, curves) in memory
  // at most, besides those with work under way (ExperimentRunner::Idle()
  // false); past it the least recently used idle ones are dropped, and
  // built again from the store when next used (controller_eviction.cc).
  // 0: no cap.
  int max_loaded_experiments = 0;
};


class Controller : public runner::ExecutorListener {
 public:
  Controller(storage::Store* store, const Registry<suggestion::Algorithm>* algorithms,
             const Registry<earlystop::Policy>* policies, ControllerOptions options);
  ~Controller() override;

  // Attaches the executors (each must call back into this controller),
  // loads every experiment, recovers from a previous run and starts the
  // sweep. Recovery (ExperimentRunner::Recover): runner-run trials stored
  // as Running are handed to their executor, which re-attaches those it
  // can follow (their output and end are then delivered as if this server
  // had started them); only a trial that is gone becomes Failed
  // (ServerRestarted), what is left of it killed; one the executor cannot
  // tell about yet keeps its phase and is asked about again.
  Status Start(const std::map<std::string, runner::Executor*>& executors,
               const std::string& default_executor);
  // One executor, which every experiment uses.
  Status Start(runner::Executor* executor);
  // Which trials may start: namespaces' quotas, weights and guarantees are
  // set here (SetNamespace); the store checks an experiment's creation
  // against quota.experiments (storage/tenancy_store.h).
  AdmissionBroker& admission() { return *admission_; }
  // Stops the sweep and every use of the executor, and waits for the work
  // in flight; work queued later (the executor's last callbacks) still runs
  // until destruction. Call before destroying the executor.
  void Shutdown();

  // The namespaces' settings the controller acts on (runAsUser for the
  // launches; quotas and shares for admission): loaded from the store by
  // Start(), kept current by whoever changes one in the store (the API).
  void SetNamespace(const api::Namespace& ns);
  void RemoveNamespace(const std::string& name);
  std::optional<api::Namespace> FindNamespace(const std::string& name) const;

  Status Validate(const api::ExperimentSpec& spec) const;
  // For a valid spec: EarlyStoppingNotes (builtins.h) with this server's
  // policies.
  std::vector<std::string> Notes(const api::ExperimentSpec& spec) const;
  StatusOr<api::Experiment> CreateExperiment(const api::ExperimentSpec& spec);
  Status StopExperiment(const std::string& name);
  // PATCH: new limits; a finished experiment with room left runs again.
  StatusOr<api::Experiment> UpdateExperiment(const std::string& name, const Limits& limits);
  Status DeleteExperiment(const std::string& name);

  // Waits up to `wait_ms` for a free parallelTrialCount slot.
  StatusOr<std::vector<api::Trial>> SuggestTrials(const std::string& name, int count,
                                                  int wait_ms = 0);
  // Renews a client-run trial's lease; the lease's length in seconds.
  StatusOr<int> Heartbeat(const std::string& experiment, const std::string& trial);
  StatusOr<api::Trial> CompleteTrial(const std::string& experiment, const std::string& trial,
                                     const Completion& completion);
  StatusOr<std::vector<api::Trial>> CompleteTrials(const std::string& experiment,
                                                   const std::vector<NamedCompletion>& batch);
  // Define-by-run: see ExperimentRunner::SuggestParameter.
  StatusOr<api::ParameterAssignment> SuggestParameter(const std::string& experiment,
                                                      const std::string& trial,
                                                      const api::ParameterSpec& asked);
  // Warm start (controller_warm_start.cc): see ExperimentRunner::Enqueue
  // and ::Import.
  StatusOr<EnqueueResult> Enqueue(const std::string& name,
                                  const std::vector<api::Assignment>& assignments,
                                  bool skip_if_exists);
  StatusOr<std::vector<api::Trial>> Import(const std::string& name,
                                           const std::vector<ImportedTrial>& trials);
  // The Succeeded and EarlyStopped trials of experiment `source` whose
  // parameters fit `target`'s and that report its objectives, with their
  // observations; the others are listed in *skipped ("name: why").
  StatusOr<std::vector<ImportedTrial>> TrialsOf(const std::string& source,
                                                const api::ExperimentSpec& target,
                                                std::vector<std::string>* skipped);

  // The experiment's objective, which gives its trials their objective value.
  StatusOr<api::Objective> Objective(const std::string& experiment);
  Status AddObservations(const std::string& experiment, const std::string& trial,
                         const std::vector<api::Observation>& observations);
  Status StopTrial(const std::string& experiment, const std::string& trial);
  // Sets `attrs` over the user attributes of `trial`, stored before it
  // returns; InvalidArgument past the limits (api/user_attrs.h), NotFound
  // without the trial. (An experiment's: UpdateExperiment's Limits.)
  Status SetUserAttrs(const std::string& experiment, const std::string& trial,
                      const api::UserAttrs& attrs);
  StatusOr<earlystop::StopDecision> ShouldStop(const std::string& experiment,
                                               const std::string& trial);

  // The token the server gave the trial (controller/trial_token.h), to
  // check a caller's against; "" when it gave none: no such experiment (a
  // deleted one included), a client-run one, or no admin token.
  std::string TrialTokenFor(const std::string& experiment, const std::string& trial);

  std::string LogPath(const std::string& experiment, const std::string& trial) const;
  // A piece of a trial's log, read through the executor (query's log_path
  // is filled in). Unavailable once the server is shutting down.
  StatusOr<runner::LogRange> ReadTrialLog(runner::LogQuery query);
  int RunningProcesses() const;
  // One pass of the sweep, now: posts Reconcile() for every experiment that
  // waits for GPUs, has writes to retry, or whose deadline (a lease, a
  // recovery retry) has come. The sweep thread does this every 500 ms;
  // tests call it after advancing a fake clock.
  void Sweep();
  // Several servers on one database (storage/lease_store.h; on when the
  // store's leasing was started before this controller was built): this
  // server drives only the experiments it holds leases for
  // (controller_leases.cc). LeaseTick() renews them, drops the experiments
  // whose lease was lost, and takes over unfinished experiments whose
  // lease expired (their trials recovered as after a restart). The sweep
  // thread calls it every 500 ms; it acts every lease_seconds / 3.
  void LeaseTick();
  // The URL of the live server that drives `experiment`, when that is
  // another server (its lease has not expired); "" otherwise (this server
  // drives it or may take it, no leases, no such experiment).
  std::string OwnerUrl(const std::string& experiment);

  // Returns once none of the work posted to the experiments' strands runs
  // or waits (work posted meanwhile included): tests, after Sweep().
  void WaitIdle() { pool_.WaitIdle(); }
  // How many experiments have their state in memory now (the rest were
  // dropped under ControllerOptions::max_loaded_experiments).
  size_t LoadedExperiments() const;

  // runner::ExecutorListener: posted to the experiment's strand.
  void OnObservation(const std::string& experiment, const std::string& trial,
                     const api::Observation& observation) override;
  void OnExit(const std::string& experiment, const std::string& trial,
              const runner::ExitInfo& info) override;
  void OnRunning(const std::string& experiment, const std::string& trial) override;
  void OnRequeued(const std::string& experiment, const std::string& trial,
                  const std::string& why) override;

 private:
  struct Entry {
    std::shared_ptr<ExperimentRunner> runner;
    std::shared_ptr<Strand> strand;
    // When it was last found (uses_), for the least recently used.
    std::shared_ptr<std::atomic<uint64_t>> used;
  };
  // The experiment's entry; NotFound, or the store's reason (an unreadable
  // row) when there is none.
  StatusOr<Entry> Find(const std::string& name);
  std::optional<Entry> FindLoaded(const std::string& name);
  Entry Add(api::Experiment experiment, std::vector<api::Trial> trials);
  Entry MakeEntry(api::Experiment experiment, std::vector<api::Trial> trials);
  void PostReconcile(const Entry& entry);
  // The cap on loaded experiments (controller_eviction.cc): Reload builds
  // a dropped one again from the store; EvictIdle drops the least recently
  // used idle ones past options_.max_loaded_experiments.
  StatusOr<Entry> Reload(const std::string& name);
  void EvictIdle();
  bool IsEvicted(const std::string& name) const;
  void RemoveExperimentFolder(const std::string& key);
  void SweepLoop();
  // Leases (controller_leases.cc). TakeOver: the lease, then the
  // experiment built from the store and recovered as Start() does;
  // FailedPrecondition naming the server that drives it.
  StatusOr<Entry> TakeOver(const std::string& name);
  // Drops a runner whose lease was lost (its trials are the new owner's).
  void DropLost(const std::string& name);

  storage::Store* store_;
  storage::LeaseStore* leases_ = nullptr;  // null: one server per database
  std::chrono::steady_clock::time_point next_lease_tick_;  // sweep thread's
  const Registry<suggestion::Algorithm>* algorithms_;
  const Registry<earlystop::Policy>* policies_;
  ControllerOptions options_;
  // Before deps_ and pool_: the work they run uses it until they are gone.
  std::unique_ptr<AdmissionBroker> admission_;
  std::atomic<bool> stopping_{false};
  std::map<std::string, runner::Executor*> executors_;  // set by Start()
  RunnerDeps deps_;
  WorkPool pool_;

  DrainingTrials draining_;  // the killed jobs of deleted experiments

  // A leaf lock: taken under a runner's lock (deps_.run_as_user_of).
  mutable Mutex ns_mu_;
  std::map<std::string, api::Namespace> namespaces_ GUARDED_BY(ns_mu_);

  mutable SharedMutex map_mu_;
  std::map<std::string, Entry> runners_ GUARDED_BY(map_mu_);
  std::set<std::string> evicted_ GUARDED_BY(map_mu_);  // dropped, stored
  std::atomic<uint64_t> uses_{0};

  Mutex sweep_mu_;
  std::condition_variable_any sweep_cv_;
  bool shutdown_ GUARDED_BY(sweep_mu_) = false;
  std::thread sweep_;
};

}  // namespace hpt::controller
