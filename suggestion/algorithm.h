#pragma once
// Algorithm: a suggestion engine. Stateless between calls, as Katib's
// suggestion services are: each call receives the spec, the full trial
// history and the opaque state it handed back last time.
//
// The server serialises calls per experiment; an instance may be created
// per call, so keep nothing in members that must survive a call.

#include <string>
#include <string_view>
#include <vector>

#include "api/registry.h"
#include "api/status.h"
#include "api/types.h"

namespace hpt::suggestion {

// Where a new trial's training starts (pbt): the server gives the trial a
// checkpoint folder of its own before it starts, a copy of `parent`'s
// folder when `parent` names an earlier trial, else an empty one.
struct Lineage {
  std::string parent;  // an earlier trial's name; "": a fresh start
  int generation = 0;
};

// The algorithm setting (Katib's name) that says at which absolute path a
// trial command expects its checkpoint folder; the server rewrites that
// path to the trial's own folder (controller/checkpoints.h), whichever
// algorithm has the setting.
inline constexpr char kTrialDirSetting[] = "suggestion_trial_dir";

struct Suggestion {
  std::vector<api::Assignment> assignments;  // one per new trial
  std::string state;       // opaque; stored by the server, handed back next call
  bool exhausted = false;  // e.g. grid finished: the experiment can end
  // Empty (the trials need no checkpoint folders), or one per assignment.
  std::vector<Lineage> lineage;
};

class Algorithm {
 public:
  virtual ~Algorithm() = default;
  // InvalidArgument naming the setting (algorithm.algorithmSettings[i]) or
  // parameter the algorithm cannot handle. Called before an experiment is
  // stored.
  virtual Status Validate(const api::ExperimentSpec& spec) const = 0;
  // Up to `count` new assignments. `history` holds every trial created so
  // far (any phase) in creation order. Fewer than `count` (with exhausted
  // set) when the search space has run out.
  virtual StatusOr<Suggestion> Suggest(const api::ExperimentSpec& spec,
                                       const std::vector<api::Trial>& history,
                                       std::string_view state, int count) = 0;
};

// Registers every built-in algorithm ("bayesianoptimization", "cmaes",
// "darts", "grid", "hyperband", "multivariate-tpe", "nsga2", "pbt",
// "random", "sobol", "tpe"). `darts_available`: whether this
// build can run a DARTS search (nas::DartsAvailable()); darts validates
// either way and reports the reason when it cannot.
void RegisterBuiltins(Registry<Algorithm>& registry,
                      Status darts_available = Status::Ok());

}  // namespace hpt::suggestion
