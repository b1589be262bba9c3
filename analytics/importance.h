#pragma once
// How much each parameter matters to the objective, from an experiment's
// finished trials: the dashboard's importance chart and
// GET /api/v1/experiments/{name}/importance.
//
// Two methods:
//   kGp      the Gaussian process bayesianoptimization fits (same unit-cube
//            encoding, output warping, Matérn-5/2 ARD kernel and priors);
//            a parameter's importance comes from its fitted length scale.
//   kFanova  fANOVA-style main effects: the share of the objective's
//            variance explained by each parameter alone, over quantile
//            bins (numbers) or categories.
// By default kGp is used for bayesianoptimization experiments (the model
// their suggestions came from) and kFanova otherwise, or when the GP
// cannot be fitted.
//
// It reuses the model of suggestion/'s bayesianoptimization (an arrow
// analytics -> suggestion), but is no algorithm: nothing suggests from it.
// A pure function of (spec, history), like the algorithms: deterministic
// (the GP fit's random starts come from a fixed seed), thread-safe, and
// never an error: what cannot be computed is an empty list and a note.

#include <optional>
#include <string>
#include <vector>

#include "api/types.h"

namespace hpt::analytics {

enum class ImportanceMethod { kGp, kFanova };

// "gp" or "fanova", as the API spells them.
const char* ToString(ImportanceMethod method);

// With fewer usable trials the list is empty (and the note says why).
inline constexpr int kMinImportanceTrials = 4;

struct ParameterImportance {
  std::string name;
  double importance = 0;  // >= 0; the list's importances sum to 1
  // kGp only: the fitted length scale in unit-cube coordinates (for a
  // categorical parameter, the one its one-hot block acts like).
  std::optional<double> length_scale;
};

struct ImportanceSummary {
  ImportanceMethod method = ImportanceMethod::kFanova;
  std::string metric;  // the objective metric
  int trials = 0;      // trials the importances were computed from
  // Most important first (ties in the spec's order); empty when too few
  // trials, no parameters, or an objective that never changes.
  std::vector<ParameterImportance> parameters;
  std::string note;  // for a person: why the list is empty, or a fallback
};

struct ImportanceOptions {
  // Forces a method; by default chosen from spec.algorithm.name as above.
  std::optional<ImportanceMethod> method;
  int max_bins = 10;  // kFanova: quantile bins per numeric parameter
};

// Uses the trials that the server ranks (Succeeded and EarlyStopped) and
// that have an objective value (api::ObjectiveValue, metricStrategies
// applied); others are not counted in `trials`.
ImportanceSummary ComputeImportance(const api::ExperimentSpec& spec,
                                    const std::vector<api::Trial>& history,
                                    const ImportanceOptions& options = {});

}  // namespace hpt::analytics
