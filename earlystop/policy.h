#pragma once
// Policy: an early-stopping rule (Katib's earlyStopping block). A pure
// function of the spec and the objective metric's learning curves: no
// storage, no clock, no state between calls, so the same curves always give
// the same decision and a restarted server decides as before.
//
// The controller asks for a decision whenever a running trial reports a
// new point, passing that trial's curve and the curves of every other trial
// of the experiment. A policy never stops a trial for lack of data: with no
// points, too few steps or too few other trials it answers "continue".
//
// Thread safety: instances keep nothing in members; const calls may run
// concurrently.

#include <cstdint>
#include <string>
#include <vector>

#include "api/registry.h"
#include "api/status.h"
#include "api/types.h"

namespace hpt::earlystop {

// One intermediate value of the objective metric.
using CurvePoint = api::MetricPoint;

// A trial's objective metric over its steps. Points are in strictly
// increasing step order (MakeCurve in curve.h builds them so from stored
// observations). Points whose value is not finite are ignored by every
// policy, as if they had not been reported.
struct TrialCurve {
  std::string name;
  api::TrialPhase phase = api::TrialPhase::kRunning;
  std::vector<CurvePoint> points;
};

struct StopDecision {
  bool stop = false;
  // When stopping, why, for a person: names the metric, the step and the
  // comparison ("best loss 0.9 by step 5 is worse than the median 0.4 of 3
  // succeeded trials' values at that step"). Empty otherwise.
  std::string reason;
};

class Policy {
 public:
  virtual ~Policy() = default;

  // InvalidArgument naming the setting (earlyStopping.algorithmSettings[i].
  // name or .value) the policy does not accept. Called before an experiment
  // is stored.
  virtual Status Validate(const api::ExperimentSpec& spec) const = 0;

  // Whether `trial` should stop now. `others` holds the curves of the other
  // trials of the experiment, any phase; an entry named like `trial` is
  // skipped, so passing every trial's curve is fine. A trial whose phase is
  // already finished is never stopped. InvalidArgument as Validate when the
  // spec's settings are invalid.
  virtual StatusOr<StopDecision> ShouldStop(
      const api::ExperimentSpec& spec, const TrialCurve& trial,
      const std::vector<TrialCurve>& others) const = 0;

  // For a spec Validate accepts: one line for a person per reason this
  // policy can never stop a trial of the experiment (e.g. it waits for as
  // many succeeded trials as maxTrialCount allows). Empty when it may fire.
  // Not an error: the experiment runs, without early stopping.
  virtual std::vector<std::string> Notes(
      const api::ExperimentSpec& /*spec*/) const {
    return {};
  }
};

// Registers every built-in policy ("asha", "hyperband", "medianstop",
// "patient", "percentile", "threshold"). "patient" creates the policy it
// wraps from `registry`, which must outlive every policy created from it.
void RegisterBuiltins(Registry<Policy>& registry);

}  // namespace hpt::earlystop
