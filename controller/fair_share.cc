// FairShare's bookkeeping and its choice (fair_share.h); preemption's
// victims are in fair_share_preempt.cc, the messages in fair_share_text.cc.
#include "controller/fair_share.h"

#include <algorithm>
#include <limits>
#include <optional>
#include <tuple>

namespace hpt::controller {

namespace {

constexpr double kEps = FairShare::kEps;

}  // namespace

FairShare::Amounts FairShare::Vec(const api::ResourceAmounts& r) {
  return {r.gpu, r.cpu, static_cast<double>(r.memory)};
}

FairShare::FairShare(api::ResourceAmounts capacity)
    : capacity_(capacity), cap_(Vec(capacity)) {
  for (int r = 0; r < kResources; ++r) unknown_ |= cap_[r] > 0 ? 0 : 1u << r;
}

FairShare::Tenant& FairShare::TenantOf(const std::string& ns) {
  auto [it, fresh] = tenants_.try_emplace(ns);
  if (fresh) it->second.policy.name = ns;
  return it->second;
}

void FairShare::SetNamespace(const api::Namespace& ns) {
  Tenant& t = TenantOf(ns.name);
  t.policy = ns;
  if (!(t.policy.weight > 0)) t.policy.weight = 1;
}

void FairShare::RemoveNamespace(const std::string& name) {
  Tenant& t = TenantOf(name);
  t.policy = api::Namespace{};
  t.policy.name = name;
}

FairShare::Amounts FairShare::Free() const {
  Amounts free{};
  for (int r = 0; r < kResources; ++r) {
    free[r] = cap_[r] > 0 ? cap_[r] - used_[r] : std::numeric_limits<double>::infinity();
  }
  return free;
}

double FairShare::Share(const Tenant& t) const {
  double share = 0;
  for (int r = 0; r < kResources; ++r) {
    if (cap_[r] > 0) share = std::max(share, t.used[r] / cap_[r]);
  }
  return share / t.policy.weight;
}

bool FairShare::BelowGuarantee(const Tenant& t) const {
  const Amounts g = Vec(t.policy.guaranteed);
  for (int r = 0; r < kResources; ++r) {
    if (g[r] > 0 && t.used[r] + kEps < g[r]) return true;
  }
  return false;
}

bool FairShare::IsRefused(const Waiter& w, int64_t now_ms) const {
  return w.refused_epoch == epoch_ && now_ms < w.refused_until_ms;
}

unsigned FairShare::Asks(const Amounts& amounts) {
  unsigned bits = 0;
  for (int r = 0; r < kResources; ++r) bits |= amounts[r] > 0 ? 1u << r : 0;
  return bits;
}

unsigned FairShare::ShortOf(const Amounts& amounts, const Amounts& free) const {
  unsigned bits = 0;
  // Only what it asks for: a resource used past its capacity (or quota)
  // holds back no trial that asks for none of it.
  for (int r = 0; r < kResources; ++r) {
    bits |= amounts[r] > 0 && amounts[r] > free[r] + kEps ? 1u << r : 0;
  }
  return bits;
}

bool FairShare::RunningFull(const Tenant& t) {
  const std::optional<int>& limit = t.policy.quota.running_trials;
  return limit && t.running + 1 > *limit;
}

FairShare::Amounts FairShare::Room(const Tenant& t) {
  const api::NamespaceQuota& q = t.policy.quota;
  const std::array<std::optional<double>, kResources> limits = {
      q.gpu, q.cpu, q.memory ? std::optional<double>(*q.memory) : std::nullopt};
  Amounts room{};
  for (int r = 0; r < kResources; ++r) {
    room[r] = limits[r] ? *limits[r] - t.used[r] : std::numeric_limits<double>::infinity();
  }
  return room;
}

bool FairShare::FitsQuota(const Tenant& t, const Waiter& w) const {
  return !RunningFull(t) && ShortOf(w.amounts, Room(t)) == 0;
}

// The namespaces with waiters in order of weighted dominant share, then
// their waiters by priority and age; the first one that fits goes.
FairShare::Choice FairShare::Choose(int64_t now_ms) {
  struct Entry {
    bool guaranteed_first;  // false sorts first: under its guarantee
    double share;
    double running;
    int64_t since_ms;  // its first waiter's
    uint64_t seq;
    Tenant* tenant;
  };
  std::vector<Entry> order;
  order.reserve(tenants_.size());
  for (auto& [name, t] : tenants_) {
    if (t.waiting.empty()) continue;
    const WaitKey& head = t.waiting.begin()->first;
    order.push_back({!BelowGuarantee(t), Share(t), t.running / t.policy.weight, head.since_ms,
                     head.seq, &t});
  }
  // Equal shares: the namespace that has waited longest.
  std::sort(order.begin(), order.end(), [](const Entry& a, const Entry& b) {
    return std::tie(a.guaranteed_first, a.share, a.running, a.since_ms, a.seq) <
           std::tie(b.guaranteed_first, b.share, b.running, b.since_ms, b.seq);
  });
  Choice choice;
  const Amounts free = Free();
  unsigned blocked = 0;  // resources an earlier waiter is short of
  for (const Entry& e : order) {
    Tenant& t = *e.tenant;
    if (RunningFull(t)) continue;  // every waiter of it is over its quota
    const Amounts room = Room(t);
    // Resources of which none of its waiters fits its quota. (What is free
    // is the loop's: a waiter short of it holds it for itself.)
    const unsigned none_fits = NoneFits(t, room);
    for (const auto& [key, w] : t.waiting) {
      // Every waiter left asks for a resource held for an earlier one or
      // one its quota has no room for: the rest of the namespace neither.
      bool open = false;
      for (unsigned asks = 0; asks < t.by_asks.size() && !open; ++asks) {
        open = t.by_asks[asks] > 0 && (asks & (blocked | none_fits)) == 0;
      }
      if (!open) break;
      if (IsRefused(*w, now_ms)) {
        // The executor had no room for what it asks and the broker cannot
        // tell when there is: later waiters for that wait behind it.
        blocked |= w->asks & unknown_;
        continue;
      }
      if ((w->asks & blocked) || ShortOf(w->amounts, room) != 0) continue;
      const unsigned short_of = ShortOf(w->amounts, free);
      if (short_of == 0) {
        choice.chosen = w;
        return choice;
      }
      for (int r = 0; r < kResources; ++r) {
        if ((short_of >> r & 1) && !choice.short_of[r]) choice.short_of[r] = w;
      }
      blocked |= short_of;
    }
  }
  return choice;
}

FairShare::Waiter& FairShare::Upsert(const AdmissionRequest& request) {
  auto [it, fresh] = waiters_.try_emplace(request.experiment);
  Waiter& w = it->second;
  const Amounts amounts = Vec(request.resources);
  if (!fresh) {
    const AdmissionRequest& was = w.request;
    if (was.trial == request.trial && was.priority == request.priority &&
        was.namespace_name == request.namespace_name && w.amounts == amounts) {
      return w;  // the same wait: its place and its refusal stay
    }
    Unlink(w);
  }
  w = Waiter{};
  w.request = request;
  w.amounts = amounts;
  w.asks = Asks(amounts);
  w.key = {-request.priority, request.since_ms, ++seq_};
  Tenant& t = TenantOf(request.namespace_name);
  t.waiting.emplace(w.key, &w);
  ++t.by_asks[w.asks];
  for (int r = 0; r < kResources; ++r) {
    if (amounts[r] > 0) t.amounts[r].insert(amounts[r]);
  }
  return w;
}

void FairShare::Unlink(Waiter& w) {
  Tenant& t = TenantOf(w.request.namespace_name);
  t.waiting.erase(w.key);
  --t.by_asks[w.asks];
  for (int r = 0; r < kResources; ++r) {
    if (w.amounts[r] > 0) t.amounts[r].erase(t.amounts[r].find(w.amounts[r]));
  }
}

unsigned FairShare::NoneFits(const Tenant& t, const Amounts& room) {
  unsigned bits = 0;
  for (int r = 0; r < kResources; ++r) {
    if (!t.amounts[r].empty() && *t.amounts[r].begin() > room[r] + kEps) bits |= 1u << r;
  }
  return bits;
}

void FairShare::Erase(const std::string& experiment) {
  auto it = waiters_.find(experiment);
  if (it == waiters_.end()) return;
  Unlink(it->second);
  waiters_.erase(it);
}

void FairShare::AddGrant(const AdmissionRequest& request, const Amounts& amounts,
                         int64_t start_ms) {
  Grant& g = grants_[request.experiment][request.trial];
  g.request = request;
  g.amounts = amounts;
  g.start_ms = start_ms;
  g.seq = ++seq_;
  Tenant& t = TenantOf(request.namespace_name);
  for (int r = 0; r < kResources; ++r) {
    t.used[r] += amounts[r];
    used_[r] += amounts[r];
  }
  ++t.running;
}

void FairShare::DropGrant(Grant& g) {
  Tenant& t = TenantOf(g.request.namespace_name);
  for (int r = 0; r < kResources; ++r) {
    t.used[r] -= g.amounts[r];
    used_[r] -= g.amounts[r];
  }
  --t.running;
  if (!g.preempted_for.empty()) {
    Tenant& beneficiary = TenantOf(g.preempted_for);
    for (int r = 0; r < kResources; ++r) beneficiary.incoming[r] -= g.amounts[r];
  }
}

bool FairShare::Granted(const std::string& experiment, const std::string& trial) const {
  auto it = grants_.find(experiment);
  return it != grants_.end() && it->second.count(trial) > 0;
}

Decision FairShare::Admit(const AdmissionRequest& request, int64_t now_ms) {
  Decision d;
  if (Granted(request.experiment, request.trial)) {
    d.verdict = Verdict::kAdmitted;
    return d;
  }
  const Amounts amounts = Vec(request.resources);
  for (int r = 0; r < kResources; ++r) {
    if (cap_[r] > 0 && amounts[r] > cap_[r] + kEps) {
      Erase(request.experiment);
      d.verdict = Verdict::kNeverFits;
      d.message = NeverFitsMessage(r, amounts[r]);
      return d;
    }
  }
  Waiter& w = Upsert(request);
  Tenant& t = TenantOf(request.namespace_name);
  if (!FitsQuota(t, w)) {
    d.verdict = Verdict::kQuotaExceeded;
    d.message = QuotaShortfall(t, w);
    return d;
  }
  if (IsRefused(w, now_ms)) {
    d.message = w.refused_message;
    return d;
  }
  const Choice choice = Choose(now_ms);
  if (choice.chosen == &w) {
    AddGrant(request, amounts, now_ms);
    Erase(request.experiment);
    d.verdict = Verdict::kAdmitted;
    return d;
  }
  const Amounts free = Free();
  d.victims = Preempt(w, free);
  d.message = WhyWaiting(w, choice, free);
  if (choice.chosen) d.next = choice.chosen->request.experiment;
  return d;
}

void FairShare::Refused(const std::string& experiment, const std::string& trial,
                        const std::string& message, int64_t now_ms) {
  auto exp = grants_.find(experiment);
  if (exp == grants_.end()) return;
  auto it = exp->second.find(trial);
  if (it == exp->second.end()) return;
  const AdmissionRequest request = it->second.request;
  DropGrant(it->second);
  exp->second.erase(it);
  if (exp->second.empty()) grants_.erase(exp);
  Waiter& w = Upsert(request);
  w.refused_epoch = epoch_;
  w.refused_until_ms = now_ms + kRetryMs;
  w.refused_message = message;
}

bool FairShare::Release(const std::string& experiment, const std::string& trial) {
  auto exp = grants_.find(experiment);
  if (exp == grants_.end()) return false;
  auto it = exp->second.find(trial);
  if (it == exp->second.end()) return false;
  DropGrant(it->second);
  exp->second.erase(it);
  if (exp->second.empty()) grants_.erase(exp);
  ++epoch_;  // room again: refused waiters may try again
  return true;
}

void FairShare::Claim(const AdmissionRequest& request, int64_t started_ms) {
  if (Granted(request.experiment, request.trial)) return;
  AddGrant(request, Vec(request.resources), started_ms);
  auto w = waiters_.find(request.experiment);
  if (w != waiters_.end() && w->second.request.trial == request.trial) Erase(request.experiment);
}

bool FairShare::Withdraw(const std::string& experiment) {
  if (!waiters_.count(experiment)) return false;
  Erase(experiment);
  return true;
}

void FairShare::Forget(const std::string& experiment, const std::vector<std::string>& keep) {
  Erase(experiment);
  auto exp = grants_.find(experiment);
  if (exp == grants_.end()) return;
  for (auto it = exp->second.begin(); it != exp->second.end();) {
    if (std::find(keep.begin(), keep.end(), it->first) != keep.end()) {
      ++it;
      continue;
    }
    DropGrant(it->second);
    it = exp->second.erase(it);
    ++epoch_;
  }
  if (exp->second.empty()) grants_.erase(exp);
}

std::string FairShare::Next(int64_t now_ms) {
  const Choice choice = Choose(now_ms);
  return choice.chosen ? choice.chosen->request.experiment : "";
}

NamespaceUse FairShare::Use(const std::string& ns) const {
  NamespaceUse use;
  auto it = tenants_.find(ns);
  if (it == tenants_.end()) return use;
  const Tenant& t = it->second;
  use.used = {t.used[kGpu], t.used[kCpu], static_cast<int64_t>(t.used[kMemory])};
  use.running = t.running;
  use.waiting = static_cast<int>(t.waiting.size());
  return use;
}

}  // namespace hpt::controller
