#pragma once
// A fixture for the ledger's transition tests (controller/trial_ledger.h):
// one runner-run trial "e-1", Running with job "job-1", whose every update
// the test mirrors into trial_ as the runner does; time is a fake clock's.

#include <gtest/gtest.h>

#include <string>

#include "controller/trial_ledger.h"
#include "tests/testing/fake_clock.h"

namespace hpt::controller::testing {

inline api::Observation Obs(int64_t step, double loss) {
  api::Observation o;
  o.step = step;
  o.metrics = {{"loss", loss}};
  return o;
}

class LedgerFixture : public ::testing::Test {
 protected:
  LedgerFixture() {
    spec_.name = "e";
    spec_.objective.metric_name = "loss";
    spec_.trial_template.emplace();
    trial_.name = "e-1";
    trial_.phase = api::TrialPhase::kRunning;
    trial_.job_id = "job-1";
    trial_.pid = 4242;
  }

  // Applies `e` and mirrors its update into trial_, as the runner does.
  Effects Carry(const TrialEvent& e) {
    Effects effects = ledger_.Apply(trial_, e, clock_.NowMillis());
    if (effects.update) storage::ApplyTrialUpdate(*effects.update, trial_);
    return effects;
  }
  Effects Exit(runner::ExitKind kind) {
    runner::ExitInfo info;
    info.kind = kind;
    return Carry(event::Exited{info});
  }
  runner::JobHandle Job(const std::string& id) {
    runner::JobHandle job;
    job.id = id;
    job.pid = 77;
    return job;
  }

  hpt::testing::FakeClock clock_;
  api::ExperimentSpec spec_;
  api::Trial trial_;
  TrialLedger ledger_{&spec_, /*runner_run=*/true};
};

}  // namespace hpt::controller::testing
