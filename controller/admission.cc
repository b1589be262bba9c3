// AdmissionBroker (admission.h): FairShare under a lock, and the runners
// told what follows from each change.
#include "controller/admission.h"

#include <utility>

namespace hpt::controller {

AdmissionBroker::AdmissionBroker(api::ResourceAmounts capacity, const api::Clock* clock)
    : capacity_(capacity), clock_(clock ? clock : api::RealClock()), policy_(capacity) {}

void AdmissionBroker::SetCallbacks(Callbacks callbacks) { callbacks_ = std::move(callbacks); }

std::string AdmissionBroker::NextLocked() { return policy_.Next(clock_->NowMillis()); }

void AdmissionBroker::NotifyNext(const std::string& next, const std::string& except) {
  if (!next.empty() && next != except && callbacks_.ready) callbacks_.ready(next);
}

void AdmissionBroker::SetNamespace(const api::Namespace& ns) {
  std::string next;
  {
    MutexLock lock(&mu_);
    policy_.SetNamespace(ns);
    next = NextLocked();  // a raised quota may let a waiter go
  }
  NotifyNext(next, "");
}

void AdmissionBroker::RemoveNamespace(const std::string& name) {
  std::string next;
  {
    MutexLock lock(&mu_);
    policy_.RemoveNamespace(name);
    next = NextLocked();
  }
  NotifyNext(next, "");
}

Decision AdmissionBroker::TryAdmit(const AdmissionRequest& request) {
  Decision decision;
  std::string next;
  {
    MutexLock lock(&mu_);
    decision = policy_.Admit(request, clock_->NowMillis());
    // Admitted: whoever goes after it may fit too (a release of two GPUs).
    next = decision.verdict == Verdict::kAdmitted ? NextLocked() : decision.next;
  }
  for (const TrialRef& victim : decision.victims) {
    if (callbacks_.preempt) {
      callbacks_.preempt(victim, "preempted for namespace " + request.namespace_name +
                                     "'s guaranteed share");
    }
  }
  // The waiter that goes first is told, in case nothing else will tell it.
  NotifyNext(next, request.experiment);
  return decision;
}

void AdmissionBroker::Refused(const std::string& experiment, const std::string& trial,
                              const std::string& message) {
  std::string next;
  {
    MutexLock lock(&mu_);
    policy_.Refused(experiment, trial, message, clock_->NowMillis());
    next = NextLocked();
  }
  NotifyNext(next, experiment);
}

void AdmissionBroker::Release(const std::string& experiment, const std::string& trial) {
  std::string next;
  {
    MutexLock lock(&mu_);
    if (!policy_.Release(experiment, trial)) return;
    next = NextLocked();
  }
  NotifyNext(next, "");
}

void AdmissionBroker::Claim(const AdmissionRequest& request, int64_t started_ms) {
  MutexLock lock(&mu_);
  policy_.Claim(request, started_ms);
}

void AdmissionBroker::Withdraw(const std::string& experiment) {
  std::string next;
  {
    MutexLock lock(&mu_);
    if (!policy_.Withdraw(experiment)) return;
    next = NextLocked();
  }
  NotifyNext(next, experiment);
}

void AdmissionBroker::Forget(const std::string& experiment,
                             const std::vector<std::string>& keep) {
  std::string next;
  {
    MutexLock lock(&mu_);
    policy_.Forget(experiment, keep);
    next = NextLocked();
  }
  NotifyNext(next, experiment);
}

NamespaceUse AdmissionBroker::Use(const std::string& ns) const {
  MutexLock lock(&mu_);
  return policy_.Use(ns);
}

bool AdmissionBroker::Granted(const std::string& experiment, const std::string& trial) const {
  MutexLock lock(&mu_);
  return policy_.Granted(experiment, trial);
}

}  // namespace hpt::controller
