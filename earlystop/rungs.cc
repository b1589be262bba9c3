#include "earlystop/rungs.h"

#include <cmath>
#include <cstdint>
#include <optional>

#include "api/spec_codec.h"
#include "earlystop/curve.h"

namespace hpt::earlystop {
namespace {

// Guards rung arithmetic in floating point: 1 * 3^4 must reach step 81.
constexpr double kSlack = 1e-9;

}  // namespace

StopDecision JudgeAtRung(const api::ExperimentSpec& spec,
                         const TrialCurve& trial,
                         const std::vector<const TrialCurve*>& peers,
                         const Rungs& rungs) {
  std::optional<int64_t> step = LastStep(trial);
  if (!step) return StopDecision{};
  const double last = static_cast<double>(*step);
  double rung = rungs.first;
  if (last < rung - kSlack) return StopDecision{};
  int k = 0;
  while (rung * rungs.eta <= last * (1 + kSlack)) {
    rung *= rungs.eta;
    ++k;
  }
  // Snap 2.9999999 back to the integer rung it stands for.
  if (std::abs(rung - std::round(rung)) < kSlack * rung)
    rung = std::round(rung);
  if (rung >= rungs.last * (1 - kSlack)) return StopDecision{};

  const api::ObjectiveType type = spec.objective.type;
  const CurvePoint* mine = FirstAtOrAfter(trial, rung);
  if (mine == nullptr) return StopDecision{};
  int reached = 1;
  int better = 0;
  for (const TrialCurve* other : peers) {
    if (other->name == trial.name) continue;
    const CurvePoint* p = FirstAtOrAfter(*other, rung);
    if (p == nullptr) continue;
    ++reached;
    if (api::IsBetter(p->value, mine->value, type)) ++better;
  }
  int keep = static_cast<int>(std::floor(reached / rungs.eta + kSlack));
  if (keep < 1) keep = 1;
  if (better < keep) return StopDecision{};
  return StopDecision{
      true, spec.objective.metric_name + " " + api::FormatDouble(mine->value) +
                " at step " + std::to_string(mine->step) + " (rung " +
                std::to_string(k) + ", step " + api::FormatDouble(rung) +
                ") is not in the top " + std::to_string(keep) + " of the " +
                std::to_string(reached) + " trials that reached the rung; " +
                std::to_string(better) + " did better"};
}

}  // namespace hpt::earlystop
