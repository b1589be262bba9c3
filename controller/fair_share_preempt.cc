// FairShare's preemption for guaranteed shares (fair_share.h): which
// trials of other namespaces a waiter under its guarantee takes back.
#include <algorithm>
#include <tuple>

#include "controller/fair_share.h"

namespace hpt::controller {

// Victims for `w` (none when it is not under its guarantee, not short of a
// guaranteed resource, already has enough coming from earlier victims, or
// when taking every eligible trial would still not free enough).
std::vector<TrialRef> FairShare::Preempt(Waiter& w, const Amounts& free) {
  const std::string& ns = w.request.namespace_name;
  Tenant& n = TenantOf(ns);
  const unsigned short_of = ShortOf(w.amounts, free);
  if (short_of == 0) return {};
  const Amounts guaranteed = Vec(n.policy.guaranteed);
  Amounts need{};
  bool needed = false;
  for (int r = 0; r < kResources; ++r) {
    if (!(short_of >> r & 1)) continue;
    // Only what the guarantee covers is taken back.
    if (guaranteed[r] <= 0 || n.used[r] + w.amounts[r] > guaranteed[r] + kEps) return {};
    need[r] = w.amounts[r] - free[r] - n.incoming[r];
    needed = needed || need[r] > kEps;
  }
  if (!needed) return {};  // victims already stopping free enough

  std::vector<Grant*> candidates;
  for (auto& [experiment, trials] : grants_) {
    for (auto& [trial, g] : trials) {
      if (!g.preempted_for.empty() || g.request.namespace_name == ns) continue;
      if (Asks(g.amounts) & short_of) candidates.push_back(&g);
    }
  }
  // Lowest priority first, then the most recently started.
  std::sort(candidates.begin(), candidates.end(), [](const Grant* a, const Grant* b) {
    return std::make_tuple(a->request.priority, -a->start_ms, -static_cast<int64_t>(a->seq)) <
           std::make_tuple(b->request.priority, -b->start_ms, -static_cast<int64_t>(b->seq));
  });
  std::map<std::string, Amounts> left;  // other namespaces' use without the victims
  std::vector<Grant*> victims;
  for (Grant* g : candidates) {
    bool helps = false;
    for (int r = 0; r < kResources; ++r) {
      helps = helps || ((short_of >> r & 1) && need[r] > kEps && g->amounts[r] > 0);
    }
    if (!helps) continue;
    Tenant& m = TenantOf(g->request.namespace_name);
    Amounts& use = left.try_emplace(g->request.namespace_name, m.used).first->second;
    // Never below the victim's own namespace's guarantee.
    const Amounts theirs = Vec(m.policy.guaranteed);
    bool stays_above = true;
    for (int r = 0; r < kResources; ++r) {
      if (g->amounts[r] > 0 && theirs[r] > 0 && use[r] - g->amounts[r] < theirs[r] - kEps) {
        stays_above = false;
      }
    }
    if (!stays_above) continue;
    victims.push_back(g);
    bool enough = true;
    for (int r = 0; r < kResources; ++r) {
      use[r] -= g->amounts[r];
      need[r] -= g->amounts[r];
      enough = enough && (!(short_of >> r & 1) || need[r] <= kEps);
    }
    if (enough) break;
  }
  for (int r = 0; r < kResources; ++r) {
    if ((short_of >> r & 1) && need[r] > kEps) return {};  // not enough to take back
  }
  std::vector<TrialRef> out;
  for (Grant* g : victims) {
    g->preempted_for = ns;
    for (int r = 0; r < kResources; ++r) n.incoming[r] += g->amounts[r];
    out.push_back({g->request.experiment, g->request.trial});
  }
  return out;
}

}  // namespace hpt::controller
