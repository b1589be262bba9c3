// What FairShare tells a waiting trial (fair_share.h): the quota it is
// over, what it is short of, or who goes first.
#include <algorithm>
#include <cstdio>

#include "api/quantity.h"
#include "controller/fair_share.h"

namespace hpt::controller {

namespace {

// The names the quota and the trial's resources use.
constexpr const char* kNames[] = {"gpu", "cpu", "memory"};

std::string Amount(int resource, double value) {
  if (resource == FairShare::kMemory) return api::FormatBytes(static_cast<int64_t>(value));
  char text[32];
  std::snprintf(text, sizeof text, "%g", value);
  return text;
}

// What a trial asks for, as the executor says it ("1 GPU", "0.5 of a
// GPU", "2 CPU cores", "4Gi of memory").
std::string Need(int resource, double value) {
  const std::string n = Amount(resource, value);
  if (resource == FairShare::kMemory) return n + " of memory";
  if (resource == FairShare::kGpu) {
    return value < 1 ? n + " of a GPU" : n + (value == 1 ? " GPU" : " GPUs");
  }
  return n + (value == 1 ? " CPU core" : " CPU cores");
}

std::string TwoPlaces(double share) {
  char text[32];
  std::snprintf(text, sizeof text, "%.2f", share);
  return text;
}

}  // namespace

std::string FairShare::QuotaShortfall(const Tenant& t, const Waiter& w) const {
  const std::string prefix = "namespace " + t.policy.name + ": quota ";
  const api::NamespaceQuota& q = t.policy.quota;
  const std::array<std::optional<double>, kResources> limits = {
      q.gpu, q.cpu, q.memory ? std::optional<double>(*q.memory) : std::nullopt};
  for (int r = 0; r < kResources; ++r) {
    if (limits[r] && w.amounts[r] > 0 && t.used[r] + w.amounts[r] > *limits[r] + kEps) {
      return prefix + kNames[r] + " " + Amount(r, *limits[r]) + " in use " +
             Amount(r, t.used[r]) + " (this trial asks " + Amount(r, w.amounts[r]) + ")";
    }
  }
  if (q.running_trials && t.running + 1 > *q.running_trials) {
    return prefix + "runningTrials " + std::to_string(*q.running_trials) + " in use " +
           std::to_string(t.running);
  }
  return "";
}

std::string FairShare::NeverFitsMessage(int resource, double asks) const {
  return std::string("asks for ") + kNames[resource] + " " + Amount(resource, asks) +
         ", more than the " + Amount(resource, cap_[resource]) + " this server shares out";
}

std::string FairShare::WhyWaiting(const Waiter& w, const Choice& choice,
                                  const Amounts& free) const {
  std::string why;
  const unsigned short_of = ShortOf(w.amounts, free);
  const Tenant& mine = tenants_.at(w.request.namespace_name);
  if (short_of != 0) {
    why = "waiting for ";
    bool first = true;
    for (int r = 0; r < kResources; ++r) {
      if (!(short_of >> r & 1)) continue;
      why += std::string(first ? "" : ", ") + Need(r, w.amounts[r]) + " (" +
             Amount(r, std::max(0.0, free[r])) + " of " + Amount(r, cap_[r]) + " free)";
      first = false;
    }
  } else if (choice.chosen) {
    const AdmissionRequest& next = choice.chosen->request;
    if (next.namespace_name == w.request.namespace_name) {
      why = "waiting behind experiment " + next.experiment + " (priority " +
            std::to_string(next.priority) + ") of its namespace";
    } else {
      const Tenant& theirs = tenants_.at(next.namespace_name);
      why = "waiting for its fair share: namespace " + next.namespace_name +
            " goes first (weighted dominant share " + TwoPlaces(Share(theirs)) + ", " +
            w.request.namespace_name + "'s " + TwoPlaces(Share(mine)) + ")";
    }
  } else {
    why = "waiting for its turn";
    for (int r = 0; r < kResources; ++r) {
      const Waiter* ahead = choice.short_of[r];
      if (ahead && ahead != &w && (w.amounts[r] > 0)) {
        why = "waiting behind experiment " + ahead->request.experiment + " of namespace " +
              ahead->request.namespace_name + ", which needs " + kNames[r] + " first";
        break;
      }
    }
  }
  bool coming = false;
  for (int r = 0; r < kResources; ++r) coming = coming || mine.incoming[r] > kEps;
  if (coming) why += "; trials of other namespaces are being preempted for its guaranteed share";
  return why;
}

}  // namespace hpt::controller
