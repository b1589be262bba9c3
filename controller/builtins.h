#pragma once
// Every built-in algorithm, early-stopping policy and executor, registered
// once for the server and for `hpt validate` (which needs no server), and
// the full validation of an experiment spec against them.

#include <map>
#include <memory>
#include <string>
#include <vector>

#include "api/registry.h"
#include "api/status.h"
#include "api/types.h"
#include "earlystop/policy.h"
#include "suggestion/algorithm.h"
#include "trial-runner/executor.h"

namespace hpt::controller {

struct Builtins {
  Registry<suggestion::Algorithm> algorithms;
  Registry<earlystop::Policy> policies;
  runner::ExecutorRegistry executors;
};

// A registry of every built-in; each call builds a new one.
std::unique_ptr<Builtins> NewBuiltins();

// Registered algorithms this build cannot run, with why ("darts" without
// libtorch); empty when every one can.
std::map<std::string, std::string> UnavailableAlgorithms();

// The spec's own rules plus the algorithm's name and settings and the
// early-stopping policy's, every problem with its field path.
Status ValidateWithAlgorithms(const api::ExperimentSpec& spec,
                              const Registry<suggestion::Algorithm>& algorithms,
                              const Registry<earlystop::Policy>& policies);

// For a spec that validates: why its early-stopping policy can never stop
// a trial, one line each (Policy::Notes), for `hpt validate`, `hpt run`
// and the server's reply to a new experiment. Empty without a policy.
std::vector<std::string> EarlyStoppingNotes(
    const api::ExperimentSpec& spec, const Registry<earlystop::Policy>& policies);

// ValidateWithAlgorithms against the built-ins.
Status ValidateExperimentSpec(const api::ExperimentSpec& spec);

}  // namespace hpt::controller
