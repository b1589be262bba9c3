#pragma once
// FairShare: which waiting trial may start next, and what the trials it let
// start use, per namespace (api::Namespace: quota, weight, guaranteed).
// A pure policy: no lock, no clock, no I/O (the time is passed in); not
// thread-safe. AdmissionBroker (admission.h) makes it thread-safe and
// tells the runners. bench/admission_main.cc times Admit().
//
// The model:
// - capacity: GPUs, CPU cores and bytes of memory; a resource whose
//   capacity is 0 is unknown: never short, and left out of shares.
// - a grant: a trial allowed to start, counted as using its resources
//   (and one of its namespace's running trials) until Release().
// - a waiter: at most one per experiment, the trial it would start next
//   (an experiment starts its trials in order: its first waiting trial
//   stands for the others).
//
// The choice (Admit, Next): namespaces in order of weighted dominant share
// (DRF: the largest of use / capacity over the known resources, divided by
// the weight; ties: running trials / weight, then the longest wait), those under
// their guaranteed share first; inside a namespace, waiters by priority
// (highest first), then the oldest wait. The first waiter in that order
// that fits the free capacity and its namespace's quota goes, but none
// overtakes an earlier waiter on a resource that one is short of (a trial
// of 2 GPUs is not starved by trials of 1). Waiters over their quota are
// passed over; so are those the executor refused since the last release
// (Refused), and after one of them, for a resource of unknown capacity it
// asks for, every later waiter that asks for it too (no one tries the
// executor again for what it just refused).
//
// Preemption: a waiter of a namespace under its guaranteed share, whose
// trial the guarantee covers and which is short of a guaranteed resource,
// gets victims: grants of other namespaces that stay at or above their own
// guarantee without them, lowest priority first, then the most recently
// started, until enough would be free (none when even all of them would
// not free enough). Victims count as used until released; the resources
// they will free are not taken a second time.

#include <array>
#include <cstdint>
#include <map>
#include <set>
#include <string>
#include <unordered_map>
#include <vector>

#include "api/status.h"
#include "api/tenancy.h"

namespace hpt::controller {

// A trial that asks to start.
struct AdmissionRequest {
  std::string namespace_name = api::kDefaultNamespace;
  std::string experiment;  // the key of its experiment's runner
  std::string trial;
  int priority = 0;  // its experiment's
  api::ResourceAmounts resources;
  int64_t since_ms = 0;  // when it began to wait (its creation)
};

struct TrialRef {
  std::string experiment;
  std::string trial;
  bool operator==(const TrialRef&) const = default;
};

enum class Verdict {
  kAdmitted,       // start it now; Release() at its end
  kWaiting,        // stays Pending (message says for what)
  kQuotaExceeded,  // stays Pending: its namespace's quota is used up
  kNeverFits,      // asks more than the capacity: it cannot start here
};

struct Decision {
  Verdict verdict = Verdict::kWaiting;
  std::string message;  // why it waits; "" when admitted
  // Trials to preempt for it (it waits for their ends).
  std::vector<TrialRef> victims;
  // Waiting: the experiment whose waiter goes first ("" : none fits now).
  std::string next;
};

// What a namespace's granted trials use.
struct NamespaceUse {
  api::ResourceAmounts used;
  int running = 0;  // granted trials
  int waiting = 0;  // experiments with a waiter
};

class FairShare {
 public:
  explicit FairShare(api::ResourceAmounts capacity);

  const api::ResourceAmounts& capacity() const { return capacity_; }
  // A namespace's policy; one never set has weight 1, no quota, no guarantee.
  void SetNamespace(const api::Namespace& ns);
  // Back to the defaults; what its trials use stays counted until released.
  void RemoveNamespace(const std::string& name);

  // The decision for `request`, which becomes (or replaces) its
  // experiment's waiter unless admitted. Admitting a trial already granted
  // answers kAdmitted again.
  Decision Admit(const AdmissionRequest& request, int64_t now_ms);
  // The executor had no room for the trial just admitted (Unavailable):
  // its grant goes, it waits again, passed over with `message` until the
  // next release or for kRetryMs.
  void Refused(const std::string& experiment, const std::string& trial,
               const std::string& message, int64_t now_ms);
  // The trial's grant ends; false when it had none.
  bool Release(const std::string& experiment, const std::string& trial);
  // A trial that runs already (re-attached after a restart) holds a grant
  // since `started_ms`, whatever the capacity and the quota say.
  void Claim(const AdmissionRequest& request, int64_t started_ms);
  // The experiment has no trial waiting any more; false when it had none.
  bool Withdraw(const std::string& experiment);
  // The experiment is gone: its waiter and its grants but `keep` (trials
  // whose ends are still to come) go.
  void Forget(const std::string& experiment, const std::vector<std::string>& keep);

  // The experiment whose waiter would be admitted now ("" : none).
  std::string Next(int64_t now_ms);
  NamespaceUse Use(const std::string& ns) const;
  bool Granted(const std::string& experiment, const std::string& trial) const;
  // How long a refused waiter is passed over at most.
  static constexpr int64_t kRetryMs = 1000;

  // Indices of the resources in the vectors below.
  static constexpr int kGpu = 0, kCpu = 1, kMemory = 2, kResources = 3;
  using Amounts = std::array<double, kResources>;
  static Amounts Vec(const api::ResourceAmounts& r);
  static constexpr double kEps = 1e-9;  // below this, amounts are equal

 private:
  struct WaitKey {
    int neg_priority;
    int64_t since_ms;
    uint64_t seq;
    bool operator<(const WaitKey& o) const {
      if (neg_priority != o.neg_priority) return neg_priority < o.neg_priority;
      if (since_ms != o.since_ms) return since_ms < o.since_ms;
      return seq < o.seq;
    }
  };
  struct Waiter {
    AdmissionRequest request;
    Amounts amounts{};
    unsigned asks = 0;  // Asks(amounts)
    WaitKey key{};
    uint64_t refused_epoch = 0;  // refused at this release epoch (0: not)
    int64_t refused_until_ms = 0;
    std::string refused_message;
  };
  struct Grant {
    AdmissionRequest request;
    Amounts amounts{};
    int64_t start_ms = 0;
    uint64_t seq = 0;
    std::string preempted_for;  // the namespace it is preempted for ("" : none)
  };
  struct Tenant {
    api::Namespace policy;
    Amounts used{};
    Amounts incoming{};  // what victims preempted for it will free
    int running = 0;
    std::map<WaitKey, Waiter*> waiting;  // priority order
    // Waiters by the set of resources they ask for (bit r: resource r).
    std::array<int, 1 << kResources> by_asks{};
    // What its waiters ask for of each resource, when they ask for some:
    // the smallest tells when none of them can fit.
    std::array<std::multiset<double>, kResources> amounts;
  };
  // What Choose() found.
  struct Choice {
    Waiter* chosen = nullptr;
    // Per resource, the first waiter in order short of it (blocking later ones).
    std::array<const Waiter*, kResources> short_of{};
  };

  Tenant& TenantOf(const std::string& ns);
  Amounts Free() const;
  double Share(const Tenant& t) const;
  bool BelowGuarantee(const Tenant& t) const;
  bool IsRefused(const Waiter& w, int64_t now_ms) const;
  static unsigned Asks(const Amounts& amounts);
  // Resources of which `amounts` is more than `free`.
  unsigned ShortOf(const Amounts& amounts, const Amounts& free) const;
  // The resources of which even the smallest ask of `t`'s waiters is
  // more than `room` has.
  static unsigned NoneFits(const Tenant& t, const Amounts& room);
  // Its runningTrials quota is used up.
  static bool RunningFull(const Tenant& t);
  // What its quota leaves of each resource (infinite without a quota).
  static Amounts Room(const Tenant& t);
  bool FitsQuota(const Tenant& t, const Waiter& w) const;
  // "" when `w` fits its namespace's quota, else the quota's message.
  std::string QuotaShortfall(const Tenant& t, const Waiter& w) const;
  Choice Choose(int64_t now_ms);
  Waiter& Upsert(const AdmissionRequest& request);
  void Unlink(Waiter& w);
  void Erase(const std::string& experiment);
  void AddGrant(const AdmissionRequest& request, const Amounts& amounts, int64_t start_ms);
  void DropGrant(Grant& g);
  std::vector<TrialRef> Preempt(Waiter& w, const Amounts& free);
  std::string WhyWaiting(const Waiter& w, const Choice& choice, const Amounts& free) const;
  std::string NeverFitsMessage(int resource, double asks) const;

  const api::ResourceAmounts capacity_;
  const Amounts cap_;
  unsigned unknown_ = 0;  // resources whose capacity is unknown (bit r)
  std::map<std::string, Tenant> tenants_;
  std::unordered_map<std::string, Waiter> waiters_;  // by experiment
  std::map<std::string, std::map<std::string, Grant>> grants_;  // experiment -> trial
  Amounts used_{};
  uint64_t seq_ = 0;
  uint64_t epoch_ = 1;  // bumped by every release
};

}  // namespace hpt::controller
