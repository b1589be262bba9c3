#pragma once
// CurveBook: one experiment's objective curves, one per trial, and its
// early-stopping policy. The curves are read from the store once, at the
// first decision, then kept in step as observations arrive and trials end,
// so a decision costs the policy's own work and no store reads or copies.
//
// Not thread-safe: ExperimentRunner owns one per experiment and guards it
// with its own mutex.

#include <map>
#include <memory>
#include <string>
#include <vector>

#include "api/status.h"
#include "api/types.h"
#include "earlystop/policy.h"
#include "storage/store.h"

namespace hpt::controller {

class CurveBook {
 public:
  // `policy` null: the experiment has no early stopping (every decision
  // is "continue", and nothing is read). `metric`: the objective's.
  CurveBook(std::unique_ptr<earlystop::Policy> policy, std::string metric);

  bool enabled() const { return policy_ != nullptr; }

  // Adds `observation`'s value of the metric, if it has one, to `trial`'s
  // curve (a step seen before takes the new value). Before the first
  // decision nothing is kept: the load reads it from the store.
  void Append(const api::Trial& trial, const api::Observation& observation);
  // The trial's phase changed (policies compare with finished trials).
  void SetPhase(const std::string& trial, api::TrialPhase phase);
  // The next decision reads every curve from the store again (after
  // trials were imported with their observations).
  void Reload() { loaded_ = false; }

  // The policy's decision for `trial`, one of `trials` (the experiment's,
  // in creation order), read from `store` first when not loaded yet.
  // Unavailable while the store cannot be read; NotFound for a trial not
  // in `trials`; the policy's own error.
  StatusOr<earlystop::StopDecision> Evaluate(const api::ExperimentSpec& spec,
                                             const std::vector<api::Trial>& trials,
                                             const std::string& trial, storage::Store& store);

 private:
  void Load(const std::string& experiment, const std::vector<api::Trial>& trials,
            storage::Store& store);

  const std::unique_ptr<earlystop::Policy> policy_;
  const std::string metric_;
  bool loaded_ = false;
  std::vector<earlystop::TrialCurve> curves_;
  std::map<std::string, size_t> index_;  // of curves_, by trial
};

}  // namespace hpt::controller
