// TrialLedger's bookkeeping beside its transitions (trial_ledger.cc): the
// writes it holds while the store refuses them, recovery deadlines, and the
// last step seen per trial.
#include <algorithm>
#include <map>
#include <tuple>

#include "controller/trial_ledger.h"

namespace hpt::controller {

using api::Trial;

namespace {

// `later`'s set fields over `earlier`'s.
storage::TrialUpdate Merged(storage::TrialUpdate earlier, const storage::TrialUpdate& later) {
  if (later.phase) earlier.phase = later.phase;
  if (later.reason) earlier.reason = later.reason;
  if (later.message) earlier.message = later.message;
  if (later.start_time_ms) earlier.start_time_ms = later.start_time_ms;
  if (later.completion_time_ms) earlier.completion_time_ms = later.completion_time_ms;
  if (later.exit_code) earlier.exit_code = later.exit_code;
  if (later.pid) earlier.pid = later.pid;
  if (later.job_id) earlier.job_id = later.job_id;
  if (later.preemptions) earlier.preemptions = later.preemptions;
  if (later.assignment) earlier.assignment = later.assignment;
  if (later.user_attrs) earlier.user_attrs = later.user_attrs;
  earlier.observations.insert(earlier.observations.end(), later.observations.begin(),
                              later.observations.end());
  return earlier;
}

}  // namespace

void DropStored(const std::vector<api::Observation>& stored,
                std::vector<api::Observation>* observations) {
  using Key = std::tuple<int64_t, int64_t, std::string, double>;
  std::map<Key, int> left;  // stored values not matched yet
  for (const api::Observation& o : stored) {
    for (const auto& [name, value] : o.metrics) ++left[{o.step, o.timestamp_ms, name, value}];
  }
  for (api::Observation& o : *observations) {
    for (auto m = o.metrics.begin(); m != o.metrics.end();) {
      auto found = left.find({o.step, o.timestamp_ms, m->first, m->second});
      if (found == left.end() || found->second == 0) {
        ++m;
        continue;
      }
      --found->second;
      m = o.metrics.erase(m);
    }
  }
  std::erase_if(*observations,
                [](const api::Observation& o) { return o.metrics.empty() && o.texts.empty(); });
}

Effects TrialLedger::WithHeldWrites(const std::string& trial, Effects effects) {
  auto held = held_.find(trial);
  if (held == held_.end()) return effects;
  Effects out = std::move(held->second);
  held_.erase(held);
  out.observations.insert(out.observations.end(), effects.observations.begin(),
                          effects.observations.end());
  if (effects.update) {
    out.update = out.update ? Merged(std::move(*out.update), *effects.update) : *effects.update;
  }
  out.kill = effects.kill;
  out.judge = effects.judge;
  out.note = std::move(effects.note);
  return out;
}

void TrialLedger::Hold(const std::string& trial, Effects effects) {
  effects.kill = false;
  effects.judge = false;
  effects.note.clear();
  if (effects.observations.empty() && !effects.update) return;
  // Nothing of the trial can be held already: Apply() and TakeHeld() take
  // it out before the write that failed.
  held_[trial] = std::move(effects);
}

std::optional<std::pair<std::string, Effects>> TrialLedger::TakeHeld() {
  if (held_.empty()) return std::nullopt;
  auto node = held_.extract(held_.begin());
  return std::make_pair(std::move(node.key()), std::move(node.mapped()));
}

std::vector<api::MetricSummary> TrialLedger::WithHeld(const Trial& trial) const {
  std::vector<api::MetricSummary> out = trial.metrics;
  auto held = held_.find(trial.name);
  if (held == held_.end()) return out;
  for (const api::Observation& o : held->second.observations) api::MergeLatest(out, o.metrics);
  return out;
}

std::vector<std::string> TrialLedger::RecoveryDue(int64_t now) {
  if (recovery_due_ms_ == 0 || now < recovery_due_ms_) return {};
  std::vector<std::string> due(unknown_.begin(), unknown_.end());
  unknown_.clear();
  recovery_due_ms_ = 0;
  return due;
}

int64_t TrialLedger::NextLeaseExpiry() const {
  const int64_t lease_ms = int64_t{spec_->trial_lease_seconds} * 1000;
  if (runner_run_ || lease_ms <= 0 || renewed_ms_.empty()) return 0;
  int64_t earliest = renewed_ms_.begin()->second;
  for (const auto& [trial, at] : renewed_ms_) earliest = std::min(earliest, at);
  return earliest + lease_ms;
}

int64_t TrialLedger::NextDeadline() const {
  const int64_t lease = NextLeaseExpiry();
  if (lease == 0) return recovery_due_ms_;
  return recovery_due_ms_ == 0 ? lease : std::min(lease, recovery_due_ms_);
}

std::optional<int64_t> TrialLedger::LastStep(const std::string& trial) const {
  auto it = last_step_.find(trial);
  if (it == last_step_.end()) return std::nullopt;
  return it->second;
}

void TrialLedger::NoteStep(const std::string& trial, int64_t step, bool known_before) {
  // Only once known: an unknown last step is read from the store when needed.
  auto it = last_step_.find(trial);
  if (it != last_step_.end()) {
    it->second = std::max(it->second, step);
  } else if (!known_before) {
    last_step_[trial] = step;
  }
}

void TrialLedger::Forget(const std::string& trial) {
  renewed_ms_.erase(trial);
  last_step_.erase(trial);
}

}  // namespace hpt::controller
