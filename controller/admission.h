#pragma once
// AdmissionBroker: the one place that decides which runner-run trial may
// start, shared by every ExperimentRunner (RunnerDeps::admission) and owned
// by the Controller. The policy is FairShare's (fair_share.h): quotas,
// weighted dominant-resource fair share between namespaces, priority inside
// one, preemption for guaranteed shares. The executor stays the judge of
// which card a trial gets: a trial admitted here may still be refused there
// (Unavailable), and then waits again (Refused).
//
// The runner's side, for each trial:
//   TryAdmit     before its executor's Start(); kAdmitted: start it
//   Refused      Start() answered Unavailable: it waits again
//   Release      at every end of an admitted trial (its exit, a failed
//                start); Forget() for a deleted experiment's trials
//   Claim        a trial re-attached after a restart runs already
//   Withdraw     the experiment has no trial waiting any more
//
// Callbacks: whenever a grant ends or a waiter goes, the broker calls
// `ready` for the experiment whose waiting trial now goes first, so its
// runner retries at once rather than at the next sweep; `preempt` for each
// victim a guaranteed namespace takes back. They are called on the caller's
// thread after the broker's lock is released, possibly while the caller
// holds its runner's lock: they must only post work (never call a runner
// or the broker inline).
//
// Thread-safe.

#include <functional>
#include <string>
#include <vector>

#include "api/clock.h"
#include "api/mutex.h"
#include "controller/fair_share.h"

namespace hpt::controller {

class AdmissionBroker {
 public:
  struct Callbacks {
    // The experiment's waiting trial goes next: reconcile its runner.
    std::function<void(const std::string& experiment)> ready;
    // Preempt this trial (`why` names the namespace it makes room for).
    std::function<void(const TrialRef& trial, const std::string& why)> preempt;
  };

  // `capacity`: what is shared out (0: unknown, not limited here); `clock`
  // outlives the broker.
  AdmissionBroker(api::ResourceAmounts capacity, const api::Clock* clock);
  // Before any other call.
  void SetCallbacks(Callbacks callbacks);

  api::ResourceAmounts capacity() const { return capacity_; }
  // A namespace's quota, weight and guarantee (any number of times: PATCH);
  // one never set has weight 1, no quota and no guarantee.
  void SetNamespace(const api::Namespace& ns) EXCLUDES(mu_);
  void RemoveNamespace(const std::string& name) EXCLUDES(mu_);

  Decision TryAdmit(const AdmissionRequest& request) EXCLUDES(mu_);
  void Refused(const std::string& experiment, const std::string& trial,
               const std::string& message) EXCLUDES(mu_);
  void Release(const std::string& experiment, const std::string& trial) EXCLUDES(mu_);
  void Claim(const AdmissionRequest& request, int64_t started_ms) EXCLUDES(mu_);
  void Withdraw(const std::string& experiment) EXCLUDES(mu_);
  void Forget(const std::string& experiment, const std::vector<std::string>& keep)
      EXCLUDES(mu_);

  NamespaceUse Use(const std::string& ns) const EXCLUDES(mu_);
  bool Granted(const std::string& experiment, const std::string& trial) const EXCLUDES(mu_);

 private:
  // Calls `ready` for the waiter that goes next, unless it is `except`'s.
  void NotifyNext(const std::string& next, const std::string& except) EXCLUDES(mu_);
  std::string NextLocked() REQUIRES(mu_);

  const api::ResourceAmounts capacity_;
  const api::Clock* const clock_;
  Callbacks callbacks_;  // set before use, then only read

  mutable Mutex mu_;
  FairShare policy_ GUARDED_BY(mu_);
};

}  // namespace hpt::controller
