// Several servers on one database: each experiment is driven by the server
// that holds its lease (storage/lease_store.h). The store checks the lease
// and its fencing number on every write, so a server that lost a lease
// cannot write; this file keeps the map of runners in step with the
// leases: renewals, runners dropped when their lease was lost, and
// takeovers of experiments whose server stopped renewing (it died).
//
// A takeover builds the experiment from the store and recovers it as a
// restart does (ExperimentRunner::Recover): runner-run trials stored as
// Running are handed to the executor, which re-attaches those it can
// follow from here (a local trial whose supervisor runs on this host and
// whose log this server reads; a Slurm job on the shared cluster) and
// reads their output again from the start, observations up to the last
// stored step dropped; the others are marked as the executor finds them
// (gone: Failed, ServerRestarted). Client-run trials keep their phase and
// their clients' leases run on here.
#include <spdlog/spdlog.h>

#include "controller/controller.h"

namespace hpt::controller {

StatusOr<Controller::Entry> Controller::TakeOver(const std::string& name) {
  if (auto entry = FindLoaded(name)) {
    if (leases_->HoldsLease(name)) return *entry;
    DropLost(name);  // a write found the lease lost
  }
  HPT_ASSIGN_OR_RETURN(storage::Acquired acquired, leases_->AcquireLease(name));
  if (!acquired.ours) {
    return FailedPrecondition("experiment '" + name + "' is driven by server " +
                              acquired.previous.owner + " (" + acquired.previous.owner_url +
                              "); send writes there");
  }
  // Loaded meanwhile by another caller holding the same lease: theirs.
  if (auto entry = FindLoaded(name)) return *entry;
  HPT_ASSIGN_OR_RETURN(api::Experiment exp, store_->GetExperiment(name));
  HPT_ASSIGN_OR_RETURN(std::vector<api::Trial> trials, store_->ListTrials(name));
  Entry entry = MakeEntry(std::move(exp), std::move(trials));
  {
    WriterLock lock(&map_mu_);
    if (auto it = runners_.find(name); it != runners_.end()) return it->second;
    runners_[name] = entry;
    evicted_.erase(name);
  }
  if (acquired.taken_over) {
    spdlog::warn("experiment {}: taken over from server {} ({}, host {}), whose lease expired",
                 name, acquired.previous.owner, acquired.previous.owner_url,
                 acquired.previous.owner_host);
  }
  entry.runner->Recover();
  PostReconcile(entry);
  return entry;
}

void Controller::DropLost(const std::string& name) {
  {
    WriterLock lock(&map_mu_);
    runners_.erase(name);
    evicted_.erase(name);
  }
  // Its trials now count against the new owner's admission, not ours.
  admission_->Forget(name, {});
  spdlog::warn("experiment {}: lease lost; another server drives it now", name);
}

void Controller::LeaseTick() {
  if (!leases_ || stopping_) return;
  // The sweep thread calls every 500 ms; a tick is due every lease / 3.
  const auto now = std::chrono::steady_clock::now();
  if (now < next_lease_tick_) return;
  next_lease_tick_ =
      now + std::chrono::milliseconds(leases_->identity().lease_seconds * 1000 / 3);
  auto lost = leases_->RenewLeases();
  if (!lost.ok()) {
    spdlog::error("leases: renewal failed: {}", lost.status().message());
    return;
  }
  for (const std::string& name : *lost) DropLost(name);
  // Unfinished experiments whose lease expired (or that never had one).
  auto untended = leases_->ListUntended();
  if (!untended.ok()) return;
  for (const std::string& name : *untended) {
    if (FindLoaded(name)) continue;
    auto taken = TakeOver(name);
    if (!taken.ok()) {
      spdlog::info("experiment {}: not taken over: {}", name, taken.status().message());
    }
  }
  EvictIdle();
}

std::string Controller::OwnerUrl(const std::string& experiment) {
  if (!leases_ || leases_->HoldsLease(experiment)) return "";
  auto lease = leases_->GetLease(experiment);
  if (!lease.ok() || !lease->has_value()) return "";
  const storage::Lease& l = **lease;
  if (l.expired || l.owner == leases_->identity().owner) return "";
  return l.owner_url;
}

}  // namespace hpt::controller
