// ExperimentRunner's define-by-run parameters (Optuna's trial.suggest_*):
// a client-run trial asks for a parameter by its definition; one the
// experiment has not seen joins its space, stored, and the trial gets a
// value of it.
#include <spdlog/spdlog.h>

#include <algorithm>

#include "api/conditions.h"
#include "api/settings.h"
#include "api/spec_codec.h"
#include "controller/builtins.h"
#include "controller/experiment_runner.h"

namespace hpt::controller {

using api::ParameterSpec;
using api::Trial;

namespace {

// "double [0.001, 1] logUniform", as a message shows a definition.
std::string Describe(const ParameterSpec& p) {
  const api::FeasibleSpace& fs = p.feasible_space;
  std::string out = api::ToString(p.type);
  if (!fs.list.empty()) {
    out += " [";
    for (size_t i = 0; i < fs.list.size(); ++i) out += (i ? ", " : "") + fs.list[i];
    return out + "]";
  }
  out += " [" + (fs.min ? api::FormatDouble(*fs.min) : "?") + ", " +
         (fs.max ? api::FormatDouble(*fs.max) : "?") + "]";
  if (fs.step) out += " step " + api::FormatDouble(*fs.step);
  if (fs.distribution != api::Distribution::kUniform) {
    out += " ";
    out += api::ToString(fs.distribution);
  }
  return out;
}

bool SameDistribution(const ParameterSpec& a, const ParameterSpec& b) {
  const api::FeasibleSpace &x = a.feasible_space, &y = b.feasible_space;
  // An int's step defaults to 1, whether written or not.
  auto step = [](const ParameterSpec& p) {
    return p.type == api::ParameterType::kInt && !p.feasible_space.step
               ? std::optional<double>(1)
               : p.feasible_space.step;
  };
  return a.type == b.type && x.min == y.min && x.max == y.max && step(a) == step(b) &&
         x.list == y.list && x.distribution == y.distribution;
}

}  // namespace

StatusOr<api::ParameterAssignment> ExperimentRunner::SuggestParameter(const std::string& trial,
                                                                      ParameterSpec asked) {
  Locked lock(this);
  if (runner_run_) {
    return FailedPrecondition("experiment '" + name_ +
                              "' runs its trials from its trialTemplate: declare its "
                              "parameters in spec.parameters");
  }
  Trial* t = FindLocked(trial);
  if (!t) return NotFound("trial '" + trial + "' not found in experiment '" + name_ + "'");
  if (api::IsFinished(t->phase)) {
    return FailedPrecondition("trial '" + trial + "' is already " + api::ToString(t->phase) +
                              ": a trial asks for its parameters while it runs");
  }
  if (asked.parent) {
    return InvalidArgument("parameter.parent: a parameter defined by a trial has no parent; "
                           "the trial asks for it only where it applies");
  }
  auto& params = exp_.spec.parameters;
  auto known = std::find_if(params.begin(), params.end(),
                            [&](const ParameterSpec& p) { return p.name == asked.name; });
  if (known != params.end()) {
    // Optuna's rule: a name keeps its distribution for the whole study.
    if (!SameDistribution(*known, asked)) {
      return InvalidArgument("parameter '" + asked.name + "': defined as " + Describe(*known) +
                             ", asked for as " + Describe(asked) +
                             "; a parameter keeps one definition in an experiment");
    }
  } else {
    asked.defined_by_run = true;
    api::ExperimentSpec next = exp_.spec;
    next.parameters.push_back(asked);
    Status valid = ValidateWithAlgorithms(next, *deps_.algorithms, *deps_.policies);
    if (!valid.ok()) {
      // Paths of the new entry read as the request's field.
      std::string message = valid.message();
      const std::string path = "parameters[" + std::to_string(params.size()) + "]";
      for (size_t at = message.find(path); at != std::string::npos; at = message.find(path)) {
        message.replace(at, path.size(), "parameter");
      }
      return InvalidArgument(message);
    }
    storage::ExperimentUpdate update;
    update.spec = next;
    // The algorithm's state describes the space it was made for; it starts
    // again from the history in the grown space.
    update.algorithm_state = "";
    HPT_RETURN_IF_ERROR(deps_.store->UpdateExperiment(name_, update));
    exp_.spec = std::move(next);
    exp_.algorithm_state.clear();
    known = params.end() - 1;
    spdlog::info("experiment {}: parameter '{}' ({}) joined the space, defined by trial {}",
                 name_, asked.name, Describe(asked), trial);
  }
  if (const std::string* value = api::FindValue(t->assignment, known->name)) {
    return api::ParameterAssignment{known->name, *value};
  }
  // The trial was made before the parameter joined (or enqueued without
  // it): a draw from its prior, as Optuna's independent sampler does
  // before it has history. Later trials get the algorithm's values.
  api::ExperimentSpec prior = exp_.spec;
  prior.algorithm = {};
  prior.algorithm.name = "random";
  // A seeded experiment draws it from its seed, the trial's position and
  // the parameter, so that a run repeats, in any experiment of that seed
  // (as Optuna's seeded samplers do).
  for (const api::AlgorithmSetting& s : exp_.spec.algorithm.settings) {
    if (s.name != api::kRandomState) continue;
    const std::string key =
        s.value + '\0' + std::to_string(t->index) + '\0' + known->name;
    uint64_t h = 1469598103934665603ull;  // FNV-1a
    for (unsigned char c : key) h = (h ^ c) * 1099511628211ull;
    prior.algorithm.settings.push_back(
        {std::string(api::kRandomState), std::to_string(h >> 2)});
  }
  prior.parameters = {*known};
  prior.parameters[0].defined_by_run = false;
  HPT_ASSIGN_OR_RETURN(auto random, deps_.algorithms->Create("random"));
  HPT_ASSIGN_OR_RETURN(auto drawn, random->Suggest(prior, {}, "", 1));
  const std::string* value =
      drawn.assignments.empty() ? nullptr : api::FindValue(drawn.assignments[0], known->name);
  if (!value) return Internal("no value could be drawn for parameter '" + known->name + "'");
  api::ParameterAssignment out{known->name, *value};
  storage::TrialUpdate update;
  update.assignment = t->assignment;
  update.assignment->push_back(out);
  HPT_RETURN_IF_ERROR(WriteNowLocked(*t, update));
  ApplyLocked(*t, event::Renewed{});
  return out;
}

// The trial's assignment without the parameters defined by run that it did
// not ask for (`used`): such a parameter stays inactive in it, as Optuna
// records only what a trial suggested. Unset when nothing is dropped.
std::optional<api::Assignment> ExperimentRunner::UsedAssignmentLocked(
    const Trial& t, const std::vector<std::string>& used) const {
  api::Assignment kept;
  for (const api::ParameterAssignment& a : t.assignment) {
    auto p = std::find_if(exp_.spec.parameters.begin(), exp_.spec.parameters.end(),
                          [&](const ParameterSpec& s) { return s.name == a.name; });
    const bool dropped = p != exp_.spec.parameters.end() && p->defined_by_run &&
                         std::find(used.begin(), used.end(), a.name) == used.end();
    if (!dropped) kept.push_back(a);
  }
  if (kept.size() == t.assignment.size()) return std::nullopt;
  return kept;
}

}  // namespace hpt::controller
