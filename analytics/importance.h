#pragma once
// How much each parameter matters to the objective, from an experiment's
// finished trials: the dashboard's importance chart and
// GET /api/v1/experiments/{name}/importance.
//
// Two methods:
//   kGp      the Gaussian process bayesianoptimization fits (same unit-cube
//            encoding, output warping, Matérn-5/2 ARD kernel and priors);
//            a parameter's importance comes from its fitted length scale.
//   kFanova  fANOVA (fanova.h: Hutter et al. 2014, as Optuna's
//            FanovaImportanceEvaluator): a random forest of 64 regression
//            trees fitted to (parameters -> objective); a parameter's
//            importance is the share of the forest's predicted variance
//            over the space that it explains alone, averaged over the
//            trees, with the spread across trees as its uncertainty.
//            Numbers are integrated on the scale they are drawn on (log for
//            logUniform and logNormal, as the original fANOVA does; Optuna
//            3 integrates them on their linear range instead, which gives
//            the top decade of a log-uniform learning rate 90% weight).
// By default kGp is used for bayesianoptimization experiments (the model
// their suggestions came from) and kFanova otherwise, or when the GP
// cannot be fitted. A kGp ranking is checked against fANOVA on the same
// trials: both are returned, and when they disagree the summary says so.
//
// It reuses the model of suggestion/'s bayesianoptimization (an arrow
// analytics -> suggestion), but is no algorithm: nothing suggests from it.
// A pure function of (spec, history[, the algorithm's state]), like the
// algorithms: deterministic
// (the GP fit's random starts come from a fixed seed), thread-safe, and
// never an error: what cannot be computed is an empty list and a note.
// fANOVA uses the objective values as they are (as Optuna does); the GP
// its warped ones (as bayesianoptimization does).

#include <cstdint>
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
  // >= 0; the list's importances sum to 1. kFanova: exactly 0 only for a
  // parameter no tree ever split on.
  double importance = 0;
  // kFanova: the standard deviation of the importance across the forest's
  // trees, on the same scale (each tree's share divided by the sum of the
  // mean shares).
  std::optional<double> stddev;
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
  // kFanova: the share of the objective's variance (as the forest predicts
  // it) that the parameters' main effects explain together, in [0, 1];
  // the rest comes from interactions. nullopt for kGp.
  std::optional<double> main_effects;
  // kGp only: fANOVA's importances of the same trials (most important
  // first), the check on the GP's ranking; empty when fANOVA could not be
  // computed.
  std::vector<ParameterImportance> fanova;
  // kGp only: false when the check fails: a parameter's GP importance lies
  // more than max(0.2, 2 stddev) from its fANOVA importance. The note then
  // names the parameter and both numbers.
  bool agrees = true;
  // kGp only: the length scales are the suggestion model's (from
  // ImportanceOptions::model_state), not a fit of the importance's own.
  bool from_model = false;
  std::string note;  // for a person: why the list is empty, or a fallback
};

struct ImportanceOptions {
  // Forces a method; by default chosen from spec.algorithm.name as above.
  std::optional<ImportanceMethod> method;
  // The fANOVA forest (Optuna's settings; a fixed seed).
  int trees = 64;
  uint64_t seed = 0x5eed'fa40'7a5e'ed01;
  // fANOVA fits on at most this many trials: past it, a uniform sample of
  // them (seeded by `seed`), so a first call at 10,000 trials costs what
  // one at 2,000 does (bench/README.md, "GP at scale"). The GP fits on at
  // most 250 (gp_fit.h) whatever the history.
  int max_fanova_trials = 2000;
  // The experiment's bayesianoptimization state (api::Experiment::
  // algorithm_state). kGp takes the length scales of the last fit it holds
  // when that fit is of this space (the model the suggestions came from;
  // past the local model's threshold, the one around the incumbent), and
  // fits nothing; otherwise, or when empty, it fits its own.
  std::string model_state;
};

// Uses the trials that the server ranks (Succeeded and EarlyStopped) and
// that have an objective value (api::ObjectiveValue, metricStrategies
// applied); others are not counted in `trials`.
ImportanceSummary ComputeImportance(const api::ExperimentSpec& spec,
                                    const std::vector<api::Trial>& history,
                                    const ImportanceOptions& options = {});

// The check of a GP ranking against fANOVA's on the same trials (what sets
// ImportanceSummary::agrees): empty when every parameter's GP importance
// lies within max(0.2, 2 stddev) of its fANOVA importance, else a note
// for a person naming the parameter furthest outside, with both numbers
// ("<0.1%" for a share that is tiny but not 0).
std::string CompareWithFanova(const std::vector<ParameterImportance>& gp,
                              const std::vector<ParameterImportance>& fanova);

}  // namespace hpt::analytics
