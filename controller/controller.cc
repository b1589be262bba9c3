#include "controller/controller.h"

#include <filesystem>
#include <system_error>

#include "api/container.h"
#include "api/json_reader.h"

#include "controller/builtins.h"
#include "controller/command_files.h"
#include "controller/trial_token.h"
#include "api/text.h"

#include <spdlog/spdlog.h>


namespace hpt::controller {

using api::Experiment;
using api::ExperimentPhase;
using api::Trial;

namespace {

// How often experiments waiting for GPUs, or with writes the store
// refused, try again.
constexpr auto kSweepInterval = std::chrono::milliseconds(500);
// How long DELETE waits for its killed trials to exit: past the executors'
// SIGTERM grace period (3 s), then SIGKILL.
constexpr auto kDrainWait = std::chrono::milliseconds(10000);

}  // namespace

Controller::Controller(storage::Store* store,
                       const Registry<suggestion::Algorithm>* algorithms,
                       const Registry<earlystop::Policy>* policies, ControllerOptions options)
    : store_(store),
      algorithms_(algorithms),
      policies_(policies),
      options_(std::move(options)),
      admission_(std::make_unique<AdmissionBroker>(
          options_.capacity, options_.clock ? options_.clock : api::RealClock())),
      pool_(std::max(1, options_.worker_threads)) {
  deps_.store = store_;
  if (storage::LeaseStore* leases = store_->leases(); leases && leases->Leasing()) {
    leases_ = leases;
  }
  deps_.stopping = &stopping_;
  deps_.algorithms = algorithms_;
  deps_.policies = policies_;
  deps_.server_url = options_.server_url;
  deps_.hpt_binary = options_.hpt_binary;
  deps_.containers = options_.containers;
  deps_.token = options_.token;
  deps_.log_dir = options_.log_dir;
  deps_.max_log_bytes = options_.max_log_bytes;
  deps_.clock = options_.clock ? options_.clock : api::RealClock();
  deps_.admission = admission_.get();
  // The broker only posts: its callbacks come while a runner's lock is held.
  AdmissionBroker::Callbacks callbacks;
  callbacks.ready = [this](const std::string& experiment) {
    if (auto entry = FindLoaded(experiment)) PostReconcile(*entry);
  };
  callbacks.preempt = [this](const TrialRef& victim, const std::string& why) {
    auto entry = FindLoaded(victim.experiment);
    if (!entry) return;
    entry->strand->Post([runner = entry->runner, trial = victim.trial, why] {
      runner->Preempt(trial, why);
    });
  };
  admission_->SetCallbacks(std::move(callbacks));
  deps_.run_as_user_of = [this](const std::string& namespace_name) {
    MutexLock lock(&ns_mu_);
    auto it = namespaces_.find(namespace_name);
    return it == namespaces_.end() ? std::string() : it->second.run_as_user;
  };
  deps_.slurm_account_of = [this](const std::string& namespace_name) {
    MutexLock lock(&ns_mu_);
    auto it = namespaces_.find(namespace_name);
    return it == namespaces_.end() ? std::string() : it->second.slurm_account;
  };
}

Controller::~Controller() { Shutdown(); }

Status Controller::Validate(const api::ExperimentSpec& spec) const {
  HPT_RETURN_IF_ERROR(ValidateWithAlgorithms(spec, *algorithms_, *policies_));
  if (spec.trial_template && !spec.trial_template->executor.empty() && !executors_.empty() &&
      !executors_.count(api::ExecutorNameOf(*spec.trial_template, deps_.default_executor))) {
    std::vector<std::string> names;
    for (const auto& [name, _] : executors_) names.push_back(name);
    return InvalidArgument("trialTemplate.executor: '" + spec.trial_template->executor +
                           "' is not one of this server's executors (" +
                           api::Join(names, ", ") + ")");
  }
  if (spec.trial_template) {
    const api::TrialTemplate& tmpl = *spec.trial_template;
    std::string problem = api::ContainerProblem(tmpl, options_.containers,
                                                deps_.default_executor, options_.podman_installed);
    if (!problem.empty()) return InvalidArgument(problem);
    // Where trials run here: the files their command names must be here
    // (a container's are in its image).
    if (api::ExecutorNameOf(tmpl, deps_.default_executor) == "local" &&
        !api::RunsInContainer(tmpl, options_.containers, deps_.default_executor)) {
      std::error_code ec;
      api::TrialTemplate on_host = tmpl;  // its command line here: command + args
      on_host.command.insert(on_host.command.end(), tmpl.container.args.begin(),
                             tmpl.container.args.end());
      HPT_RETURN_IF_ERROR(
          CheckCommandFiles(on_host, std::filesystem::current_path(ec).string()));
    }
  }
  return Status::Ok();
}

Status Controller::Start(runner::Executor* executor) {
  return Start({{"local", executor}}, "local");
}

Status Controller::Start(const std::map<std::string, runner::Executor*>& executors,
                         const std::string& default_executor) {
  executors_ = executors;
  deps_.executors = &executors_;
  deps_.default_executor = default_executor;
  // Before any trial is recovered: a re-attached trial keeps its user.
  HPT_ASSIGN_OR_RETURN(std::vector<api::Namespace> namespaces, store_->ListNamespaces());
  for (const api::Namespace& ns : namespaces) SetNamespace(ns);
  HPT_ASSIGN_OR_RETURN(std::vector<Experiment> experiments, store_->ListExperiments());
  if (auto unreadable = store_->ListUnreadableExperiments(); unreadable.ok()) {
    // Left out rather than keeping the server down; the API lists them.
    for (const auto& row : *unreadable) spdlog::warn("skipped: {}", row.error);
  }
  for (Experiment& exp : experiments) {
    // With leases: only the unfinished experiments nobody else drives;
    // the others are taken when first used (Find) or when their lease
    // expires (LeaseTick).
    if (leases_) {
      if (api::IsFinished(exp.phase)) continue;
      auto acquired = leases_->AcquireLease(api::KeyOf(exp.spec));
      if (!acquired.ok() || !acquired->ours) continue;
    }
    auto trials = store_->ListTrials(api::KeyOf(exp.spec));
    if (!trials.ok()) {
      spdlog::error("experiment {}: cannot read its trials: {}", exp.spec.name,
                    trials.status().message());
      continue;
    }
    Entry entry = Add(std::move(exp), std::move(*trials));
    entry.runner->Recover();
    PostReconcile(entry);
    EvictIdle();  // so that start-up holds no more than the cap either
  }
  sweep_ = std::thread([this] { SweepLoop(); });
  return Status::Ok();
}

void Controller::Shutdown() {
  {
    MutexLock lock(&sweep_mu_);
    shutdown_ = true;
  }
  sweep_cv_.notify_all();
  if (sweep_.joinable()) sweep_.join();
  stopping_ = true;
  pool_.WaitIdle();
}

Controller::Entry Controller::MakeEntry(Experiment experiment, std::vector<Trial> trials) {
  Entry entry;
  entry.runner =
      std::make_shared<ExperimentRunner>(deps_, std::move(experiment), std::move(trials));
  entry.strand = pool_.NewStrand();
  entry.used = std::make_shared<std::atomic<uint64_t>>(++uses_);
  return entry;
}

Controller::Entry Controller::Add(Experiment experiment, std::vector<Trial> trials) {
  std::string name = api::KeyOf(experiment.spec);
  Entry entry = MakeEntry(std::move(experiment), std::move(trials));
  WriterLock lock(&map_mu_);
  runners_[name] = entry;
  evicted_.erase(name);
  return entry;
}

std::optional<Controller::Entry> Controller::FindLoaded(const std::string& name) {
  ReaderLock lock(&map_mu_);
  auto it = runners_.find(name);
  if (it == runners_.end()) return std::nullopt;
  it->second.used->store(++uses_);
  return it->second;
}

std::string Controller::TrialTokenFor(const std::string& experiment, const std::string& trial) {
  auto entry = FindLoaded(experiment);
  return entry ? entry->runner->TrialTokenFor(trial) : "";
}

StatusOr<Controller::Entry> Controller::Find(const std::string& name) {
  if (leases_) return TakeOver(name);
  if (auto entry = FindLoaded(name)) return *entry;
  if (IsEvicted(name)) return Reload(name);
  HPT_RETURN_IF_ERROR(store_->GetExperiment(name).status());
  // Stored by another process meanwhile: not ours to run.
  return NotFound("experiment '" + name + "' not found");
}

void Controller::PostReconcile(const Entry& entry) {
  if (!entry.runner->runner_run()) return;
  entry.strand->Post([runner = entry.runner] { runner->Reconcile(); });
}

StatusOr<Experiment> Controller::CreateExperiment(const api::ExperimentSpec& spec) {
  HPT_RETURN_IF_ERROR(Validate(spec));
  if (int stopping = draining_.Pending(api::KeyOf(spec)); stopping > 0) {
    return FailedPrecondition("experiment '" + spec.name + "' was deleted and " +
                              std::to_string(stopping) +
                              " of its trials are still stopping; try again in a few seconds");
  }
  Experiment exp;
  exp.spec = spec;
  exp.creation_time_ms = deps_.clock->NowMillis();
  if (spec.trial_template) {
    exp.phase = ExperimentPhase::kRunning;
    exp.start_time_ms = exp.creation_time_ms;
    exp.trial_token_salt = NewTrialTokenSalt();
  }
  // Warm start: the earlier experiments' trials are read (and checked)
  // before anything is stored, and imported before the first suggestion.
  std::vector<ImportedTrial> imports;
  for (size_t i = 0; i < spec.warm_start_from.size(); ++i) {
    // Earlier experiments of the same namespace.
    auto trials = TrialsOf(api::ExperimentKey(spec.namespace_name, spec.warm_start_from[i]),
                           spec, nullptr);
    if (!trials.ok()) {
      return InvalidArgument(api::JsonReader::Path("warmStart.fromExperiments", i) + ": " +
                             trials.status().message());
    }
    imports.insert(imports.end(), trials->begin(), trials->end());
  }
  HPT_RETURN_IF_ERROR(store_->CreateExperiment(exp));
  Entry entry = Add(exp, {});
  if (!imports.empty()) {
    auto imported = entry.runner->Import(imports);
    if (!imported.ok()) {
      spdlog::error("experiment {}: warm start failed: {}", spec.name,
                    imported.status().message());
    }
  }
  PostReconcile(entry);
  return exp;
}

StatusOr<Experiment> Controller::UpdateExperiment(const std::string& name,
                                                  const Limits& limits) {
  HPT_ASSIGN_OR_RETURN(Entry entry, Find(name));
  HPT_ASSIGN_OR_RETURN(Experiment exp, entry.runner->UpdateLimits(limits));
  PostReconcile(entry);  // more room: more trials
  return exp;
}

Status Controller::StopExperiment(const std::string& name) {
  HPT_ASSIGN_OR_RETURN(Entry entry, Find(name));
  return entry.runner->Stop();
}

Status Controller::DeleteExperiment(const std::string& name) {
  auto entry = FindLoaded(name);
  if (leases_ && (!entry || !leases_->HoldsLease(name))) {
    // Deleted by the server that drives it (taken over first if free).
    auto found = Find(name);
    if (found.ok()) entry = *found;
    if (!found.ok() && found.status().code() != StatusCode::kNotFound) return found.status();
  }
  // An unreadable row has no runner; deleting it is how it goes away.
  std::vector<std::string> stopping;  // killed jobs, whose exits are to come
  if (entry) {
    draining_.Begin(name);
    stopping = entry->runner->PrepareDelete();
    draining_.Expect(name, stopping);
  }
  // Its waiter goes; what its killed jobs hold is released as they exit.
  admission_->Forget(name, stopping);
  HPT_RETURN_IF_ERROR(store_->DeleteExperiment(name));
  {
    WriterLock lock(&map_mu_);
    auto it = runners_.find(name);
    // Only the runner deleted here: a create may have added a new one since.
    if (it != runners_.end() && (!entry || it->second.runner == entry->runner)) {
      runners_.erase(it);
    }
    evicted_.erase(name);
  }
  // Its killed jobs still hold their names in the executor: answered once
  // they are gone (SIGKILL comes after the grace period), a new experiment
  // of this name can start its trials.
  if (!draining_.Wait(name, kDrainWait)) {
    spdlog::warn("experiment {} deleted; {} of its trials are still stopping", name,
                 draining_.Pending(name));
  }
  RemoveExperimentFolder(name);
  return Status::Ok();
}

StatusOr<std::vector<Trial>> Controller::SuggestTrials(const std::string& name, int count,
                                                       int wait_ms) {
  HPT_ASSIGN_OR_RETURN(Entry entry, Find(name));
  return entry.runner->Suggest(count, wait_ms);
}

std::vector<std::string> Controller::Notes(const api::ExperimentSpec& spec) const {
  return EarlyStoppingNotes(spec, *policies_);
}

void Controller::OnObservation(const std::string& experiment, const std::string& trial,
                               const api::Observation& observation) {
  auto entry = FindLoaded(experiment);
  if (!entry) return;  // deleted meanwhile
  entry->strand->Post([runner = entry->runner, trial, observation] {
    runner->OnObservation(trial, observation);
  });
}

void Controller::OnExit(const std::string& experiment, const std::string& trial,
                        const runner::ExitInfo& info) {
  // Noted before the draining check: a DELETE that begins in between then
  // either sees the exit as delivered or finds it in draining_.
  auto entry = FindLoaded(experiment);
  if (entry) entry->runner->NoteExitDelivered(trial);
  if (draining_.Exited(experiment, trial)) {  // of a deleted experiment
    admission_->Release(experiment, trial);
    return;
  }
  if (!entry) return;
  entry->strand->Post([runner = entry->runner, trial, info] {
    runner->OnExit(trial, info);
    runner->Reconcile();
  });
}

void Controller::OnRunning(const std::string& experiment, const std::string& trial) {
  auto entry = FindLoaded(experiment);
  if (!entry) return;
  entry->strand->Post([runner = entry->runner, trial] { runner->OnRunning(trial); });
}

void Controller::OnRequeued(const std::string& experiment, const std::string& trial,
                            const std::string& why) {
  auto entry = FindLoaded(experiment);
  if (!entry) return;
  entry->strand->Post([runner = entry->runner, trial, why] { runner->OnRequeued(trial, why); });
}

std::string Controller::LogPath(const std::string& experiment, const std::string& trial) const {
  return api::ExperimentFolder(options_.log_dir, experiment) + "/" + trial + ".log";
}

StatusOr<runner::LogRange> Controller::ReadTrialLog(runner::LogQuery query) {
  HPT_ASSIGN_OR_RETURN(Entry entry, Find(query.experiment));
  return entry.runner->ReadLog(std::move(query));
}

int Controller::RunningProcesses() const {
  int n = 0;
  if (stopping_) return 0;
  for (const auto& [name, e] : executors_) n += e ? e->Running() : 0;
  return n;
}

void Controller::SweepLoop() {
  MutexLock lock(&sweep_mu_);
  while (!shutdown_) {
    sweep_cv_.wait_for(sweep_mu_, kSweepInterval);
    if (shutdown_) break;
    LeaseTick();
    Sweep();
  }
}

void Controller::Sweep() {
  EvictIdle();
  std::vector<Entry> waiting;
  {
    ReaderLock map_lock(&map_mu_);
    for (const auto& [name, entry] : runners_) {
      if (entry.runner->NeedsSweep()) waiting.push_back(entry);
    }
  }
  // Client-run ones too: a refused write of their end is retried here.
  for (const Entry& entry : waiting) {
    entry.strand->Post([runner = entry.runner] { runner->Reconcile(); });
  }
}

}  // namespace hpt::controller
