#pragma once
// Controller: the experiment lifecycle. It validates and stores experiments,
// asks each experiment's algorithm for trials, starts runner-run trials on
// the executor (keeping parallelTrialCount running), takes client-run
// trials' results, and ends experiments on goal, maxTrialCount,
// maxFailedTrialCount or an exhausted search space.
//
// Thread-safe. Lifecycle changes (create, suggest, complete, stop, trial
// exits) are serialised by one mutex, so an algorithm sees a consistent
// history and two callers never get the same trial. Observations are written
// without it.

#include <condition_variable>
#include <map>
#include <memory>
#include <mutex>
#include <set>
#include <string>
#include <thread>
#include <vector>

#include "api/registry.h"
#include "api/types.h"
#include "earlystop/policy.h"
#include "storage/store.h"
#include "suggestion/algorithm.h"
#include "trial-runner/executor.h"
#include "trial-runner/gpu_pool.h"

namespace hpt::server {

struct ControllerOptions {
  std::string server_url;  // handed to trials as HPT_URL
  std::string token;       // admin token; trials get a TrialToken of it
  std::string log_dir;     // <log_dir>/<experiment>/<trial>.log
  int64_t max_log_bytes = 0;  // each trial log's cap; 0: the default
  std::vector<int> gpus;   // GPU ids trials may use
};

// The spec's own rules plus the algorithm's name and settings, every
// problem with its field path.
Status ValidateWithAlgorithms(const api::ExperimentSpec& spec,
                              const Registry<suggestion::Algorithm>& algorithms,
                              const Registry<earlystop::Policy>& policies);

// Final metrics or infeasibility reported by a client-run trial.
struct Completion {
  std::map<std::string, double> metrics;
  bool infeasible = false;
  std::string reason;
};

class Controller : public runner::ExecutorListener {
 public:
  Controller(storage::Store* store, const Registry<suggestion::Algorithm>* algorithms,
             const Registry<earlystop::Policy>* policies, ControllerOptions options);
  ~Controller() override;

  // Attaches the executor (which must call back into this controller),
  // recovers from a previous run and starts the reconcile thread: Running
  // experiments resume; runner-run trials that were Running become Failed
  // (ServerRestarted), their leftover processes killed.
  Status Start(runner::Executor* executor);
  // Stops the reconcile thread. Running trials are left to the executor.
  void Shutdown();

  // Full validation: the spec's own rules plus the algorithm and its settings.
  Status Validate(const api::ExperimentSpec& spec) const;
  // Validates, stores and (with a trialTemplate) starts the experiment.
  StatusOr<api::Experiment> CreateExperiment(const api::ExperimentSpec& spec);
  Status StopExperiment(const std::string& name);
  Status DeleteExperiment(const std::string& name);

  // Client-run experiments: up to `count` new Running trials.
  StatusOr<std::vector<api::Trial>> SuggestTrials(const std::string& name, int count);
  Status CompleteTrial(const std::string& experiment, const std::string& trial,
                       const Completion& completion);
  // Stores observations for a Running trial (FailedPrecondition otherwise).
  Status AddObservations(const std::string& experiment, const std::string& trial,
                         const std::vector<api::Observation>& observations);
  // Kills a runner-run trial or ends a client-run one, as Killed.
  Status StopTrial(const std::string& experiment, const std::string& trial);

  // The experiment's early-stopping verdict on a trial now. A client-run
  // trial told to stop becomes EarlyStopped when it completes.
  StatusOr<earlystop::StopDecision> ShouldStop(const std::string& experiment,
                                               const std::string& trial);

  std::string LogPath(const std::string& experiment, const std::string& trial) const;
  int RunningProcesses() const;

  // runner::ExecutorListener
  void OnObservation(const std::string& experiment, const std::string& trial,
                     const api::Observation& observation) override;
  void OnExit(const std::string& experiment, const std::string& trial,
              const runner::ExitInfo& info) override;

 private:
  void ReconcileLoop();
  void MarkDirty(const std::string& experiment);
  // Brings one runner-run experiment forward: ends it or starts trials.
  void ReconcileLocked(const std::string& name);
  // Ends the experiment if a stop condition holds; true when it did.
  bool FinishIfDoneLocked(const api::Experiment& exp,
                          const std::vector<api::Trial>& trials);
  void FinishLocked(const api::Experiment& exp, const std::vector<api::Trial>& trials,
                    api::ExperimentPhase phase, const std::string& reason,
                    const std::string& message);
  // Asks the algorithm for up to `count` trials and stores them.
  StatusOr<std::vector<api::Trial>> CreateTrialsLocked(
      const api::Experiment& exp, const std::vector<api::Trial>& history,
      int count, api::TrialPhase phase);
  // Starts a Pending trial; false when it must wait for GPUs.
  bool StartTrialLocked(const api::Experiment& exp, const api::Trial& trial);
  void KillActiveLocked(const std::string& experiment,
                        const std::vector<api::Trial>& trials, const std::string& reason);
  Status RecoverLocked();
  // A client-run experiment's trials, read from the store once and then
  // kept in step by SuggestTrials and CompleteTrial, so neither re-reads
  // the whole history (ask/tell's hot path). Metrics of Running trials may
  // lag; a trial is re-read from the store when it completes.
  StatusOr<std::vector<api::Trial>*> ClientHistoryLocked(const std::string& name);
  // The policy's verdict on `trial` given every trial's objective curve.
  StatusOr<earlystop::StopDecision> EvaluateStopping(const api::Experiment& exp,
                                                     const std::string& trial);
  // Kills a runner-run trial the policy stops after it reported.
  void StopIfHopeless(const std::string& experiment, const std::string& trial);
  // Specs never change, so the runner's hot path reads them from here.
  std::shared_ptr<const api::Experiment> CachedExperiment(const std::string& name);

  storage::Store* store_;
  const Registry<suggestion::Algorithm>* algorithms_;
  const Registry<earlystop::Policy>* policies_;
  ControllerOptions options_;
  runner::Executor* executor_ = nullptr;
  runner::GpuPool gpu_pool_;

  mutable std::mutex mu_;  // lifecycle changes
  std::set<std::string> active_;     // runner-run experiments that are Running
  std::set<std::string> exhausted_;  // experiments whose algorithm ran out
  std::map<std::string, std::vector<int>> trial_gpus_;  // "exp/trial" -> ids
  std::set<std::string> stop_advised_;  // "exp/trial" told :shouldStop true
  std::map<std::string, std::vector<api::Trial>> client_history_;

  std::mutex cache_mu_;
  std::map<std::string, std::shared_ptr<const api::Experiment>> experiments_;

  std::mutex dirty_mu_;
  std::condition_variable dirty_cv_;
  std::set<std::string> dirty_;
  bool shutdown_ = false;
  std::thread thread_;
};

}  // namespace hpt::server
