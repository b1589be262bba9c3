// The exit -> phase table of TrialLedger (controller/trial_ledger.h).
#include "api/experiment_status.h"
#include "api/quantity.h"
#include "api/text.h"
#include "controller/trial_ledger.h"

namespace hpt::controller {

using api::TrialPhase;

storage::TrialUpdate ExitUpdate(const api::Trial& reported, const runner::ExitInfo& info,
                                const api::ExperimentSpec& spec, int64_t now) {
  storage::TrialUpdate update;
  update.completion_time_ms = now;
  // A command that never started has no exit code (not 0).
  if (info.kind != runner::ExitKind::kStartFailed) update.exit_code = info.exit_code;
  // Output the log lost (a full disk) is named in every message.
  const std::string lost =
      info.log_bytes_lost > 0 ? std::to_string(info.log_bytes_lost) +
                                    " bytes of the trial's output were lost: " + info.log_error
                              : "";
  const std::string log_tail = info.log_tail.empty() ? "" : "; log tail:\n" + info.log_tail;
  const std::string tail = (lost.empty() ? "" : "; " + lost) + log_tail;
  switch (info.kind) {
    case runner::ExitKind::kExited:
      if (info.exit_code != 0) {
        update.phase = TrialPhase::kFailed;
        update.reason = "ExitCode";
        update.message = "exited with code " + std::to_string(info.exit_code) + tail;
      } else if (info.metrics_lost) {
        // Its metrics were read from that output: what was stored is a
        // partial curve, whose last value is no result to tune on.
        update.phase = TrialPhase::kFailed;
        update.reason = "LogIncomplete";
        update.message = lost + "; the metrics it printed there were lost with it" + log_tail;
      } else if (const std::string missing = api::MissingObjective(reported, spec.objective);
                 !missing.empty()) {
        std::string printed = api::ReportedMetrics(reported);
        if (!info.other_metrics.empty()) {
          printed += "; other names with a number: " + api::Join(info.other_metrics, ", ");
        }
        std::vector<std::string> names = info.other_metrics;
        for (const auto& m : reported.metrics) names.push_back(m.name);
        if (const std::string like = api::ClosestName(missing, names); !like.empty()) {
          printed += "; did you mean '" + like + "'?";
        }
        update.phase = TrialPhase::kMetricsUnavailable;
        update.reason = "MetricsUnavailable";
        update.message = "exited 0 without reporting the objective metric '" + missing +
                         "' (it reported: " + printed + ")" + tail;
      } else if (!lost.empty()) {
        // The metrics were read from the output itself, whole: the result
        // stands, and only the log is short.
        update.phase = TrialPhase::kSucceeded;
        update.reason = "LogIncomplete";
        update.message =
            lost + " (from its log only: its metrics were read from the output itself)";
      } else {
        update.phase = TrialPhase::kSucceeded;
        update.reason = "Completed";
      }
      break;
    case runner::ExitKind::kSignaled:
      update.phase = TrialPhase::kFailed;
      update.reason = "Signal";
      update.message = "killed by signal " + std::to_string(info.signal) + tail;
      break;
    case runner::ExitKind::kTimedOut:
      update.phase = TrialPhase::kFailed;
      update.reason = "Timeout";
      update.message = "ran past timeoutSeconds " +
                       std::to_string(spec.trial_template ? spec.trial_template->timeout_seconds
                                                          : 0) +
                       tail;
      break;
    case runner::ExitKind::kKilled:
      update.phase = TrialPhase::kKilled;
      update.reason = "Killed";
      if (!lost.empty()) update.message = lost;
      break;
    case runner::ExitKind::kPreempted:
      // The ledger makes such a trial Pending to start again (OnExited);
      // asked here, it ended by the cluster's signal.
      update.phase = TrialPhase::kFailed;
      update.reason = "Signal";
      update.message = "preempted by its cluster" + tail;
      break;
    case runner::ExitKind::kStartFailed:
      update.phase = TrialPhase::kFailed;
      update.reason = "StartFailed";
      update.message = info.log_tail;
      break;
  }
  // Over its memory limit: what a user must see, whatever the exit code.
  if (info.oom_killed && update.phase == TrialPhase::kFailed) {
    const int64_t memory = spec.trial_template ? spec.trial_template->resources.memory : 0;
    update.reason = "OOMKilled";
    update.message = "went over its memory limit of " + api::FormatBytes(memory) +
                     " and was killed by the kernel's OOM killer" + tail;
  }
  return update;
}

}  // namespace hpt::controller
