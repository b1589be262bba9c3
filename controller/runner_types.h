#pragma once
// The requests ExperimentRunner takes and what it answers, and what every
// runner shares (RunnerDeps). Plain values: the server's codecs build them
// without knowing the runner.

#include <atomic>
#include <cstdint>
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "api/clock.h"
#include "api/registry.h"
#include "api/types.h"
#include "api/user_attrs.h"
#include "controller/admission.h"
#include "earlystop/policy.h"
#include "storage/store.h"
#include "suggestion/algorithm.h"
#include "trial-runner/executor.h"

namespace hpt::controller {

// Final metrics or infeasibility reported by a client-run trial.
struct Completion {
  std::map<std::string, double> metrics;
  bool infeasible = false;
  std::string reason;
  // Set by a define-by-run client: the parameters the trial asked for.
  // Parameters defined by run that it did not ask for leave its assignment.
  std::optional<std::vector<std::string>> used_parameters;
};

// Limits of an experiment that may change after creation (PATCH).
struct Limits {
  std::optional<int> max_trial_count;
  std::optional<int> parallel_trial_count;
  std::optional<int> max_failed_trial_count;
  std::optional<int> trial_lease_seconds;
  // Set over the experiment's user attributes, in the same write.
  std::optional<api::UserAttrs> user_attrs;
};

// One trial's completion in a batch.
struct NamedCompletion {
  std::string trial;
  Completion completion;
};

// A trial that ran elsewhere, added with its results (trials:import, warm
// start). Its assignment is checked against the experiment's parameters.
struct ImportedTrial {
  api::Assignment assignment;
  api::TrialPhase phase = api::TrialPhase::kSucceeded;  // or kEarlyStopped
  std::vector<api::Observation> observations;
  std::string source;  // where it came from, for its message ("" : "imported")
  std::string path;    // how a problem with it is named; "": trials[i]
};

// What trials:enqueue did.
struct EnqueueResult {
  std::vector<api::Assignment> queued;  // as checked and stored
  int skipped = 0;                      // skipIfExists: already tried or queued
  size_t queue_length = 0;              // the experiment's whole queue now
};

// What every runner shares; all outlive the runners.
struct RunnerDeps {
  storage::Store* store = nullptr;
  const Registry<suggestion::Algorithm>* algorithms = nullptr;
  const Registry<earlystop::Policy>* policies = nullptr;
  // The server's executors by name, and the one trials use unless their
  // trialTemplate.executor names another; not used once *stopping.
  const std::map<std::string, runner::Executor*>* executors = nullptr;
  std::string default_executor;
  bool containers = false;  // ControllerOptions::containers
  const std::atomic<bool>* stopping = nullptr;  // the server is shutting down
  std::string server_url;     // HPT_URL
  std::string hpt_binary;     // replaces a command's leading `hpt`
  std::string token;          // admin token; trials get a TrialToken of it
  std::string log_dir;        // <log_dir>/<experiment>/<trial>.log
  int64_t max_log_bytes = 0;  // each trial log's cap; 0: the default
  const api::Clock* clock = api::RealClock();  // never null
  // The Linux user the trials of a namespace run as (its runAsUser), by
  // the namespace's name; "" or unset: the server's own user. Called with
  // a runner's lock held, at each launch and recovery of a trial: it must
  // not call into a runner.
  std::function<std::string(const std::string& namespace_name)> run_as_user_of;

  // Its slurmAccount ("account[:qos]"), likewise; "": the executor's own.
  std::function<std::string(const std::string& namespace_name)> slurm_account_of;

  std::string SlurmAccountOf(const std::string& namespace_name) const {
    return slurm_account_of ? slurm_account_of(namespace_name) : "";
  }

  std::string RunAsUserOf(const std::string& namespace_name) const {
    return run_as_user_of ? run_as_user_of(namespace_name) : "";
  }

  // Decides which runner-run trial may start (admission.h); null: any.
  AdmissionBroker* admission = nullptr;
};

}  // namespace hpt::controller
