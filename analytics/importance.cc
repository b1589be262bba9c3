#include "analytics/importance.h"

#include <Eigen/Core>
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <random>

#include "analytics/fanova.h"
#include "analytics/trial_encoding.h"
#include "suggestion/bayesian_optimization.h"
#include "suggestion/bo_data.h"
#include "suggestion/gaussian_process.h"
#include "suggestion/gp_fit.h"
#include "suggestion/output_transform.h"
#include "suggestion/prior.h"
#include "suggestion/search_space.h"
#include "suggestion/unit_cube.h"

namespace hpt::analytics {
namespace {

// The model bayesianoptimization fits (suggestion/), reused as it is.
using suggestion::BayesianOptimization;
using suggestion::BoState;
using suggestion::CheckSearchSpace;
using suggestion::FitHyperparameters;
using suggestion::FitOptions;
using suggestion::GpHyperparameters;
using suggestion::ParseState;
using suggestion::UnitCube;
using suggestion::WarpOutputs;

// The GP fit's random starts: fixed, so the same history always gives the
// same importances (a page that polls must not see them jitter).
constexpr uint64_t kFitSeed = 0x1d9f5a3c2b7e4f61;

struct Row {
  const api::Trial* trial;
  double value;  // to minimise (negated for maximize)
};

std::vector<Row> UsableRows(const api::ExperimentSpec& spec,
                            const std::vector<api::Trial>& history) {
  const double sign =
      spec.objective.type == api::ObjectiveType::kMaximize ? -1 : 1;
  std::vector<Row> rows;
  for (const api::Trial& t : history) {
    if (t.phase != api::TrialPhase::kSucceeded &&
        t.phase != api::TrialPhase::kEarlyStopped) {
      continue;
    }
    std::optional<double> v = api::ObjectiveValue(t, spec.objective);
    if (v && std::isfinite(*v)) rows.push_back({&t, sign * *v});
  }
  return rows;
}

// Scales raw scores (>= 0) to sum to 1 and ranks them, most important
// first; false when they have no positive, finite sum.
bool NormaliseAndRank(std::vector<ParameterImportance>* list) {
  double sum = 0;
  for (const auto& p : *list) sum += p.importance;
  if (!(sum > 0) || !std::isfinite(sum)) return false;
  for (auto& p : *list) p.importance /= sum;
  std::stable_sort(
      list->begin(), list->end(),
      [](const auto& a, const auto& b) { return a.importance > b.importance; });
  return true;
}

// Importance from the ARD length scales of the GP that bayesianoptimization
// fits. A length scale l says how far (in the unit cube) the objective
// takes to change: the kernel's squared distance weighs a coordinate by
// 1/l^2, so a change across a parameter's whole range moves the model by an
// amount that grows with 1/l^2. Importance is therefore proportional to
// 1/l^2, normalised to sum to 1. A categorical parameter is a one-hot block:
// switching category moves two of its coordinates by 1, so its weight is
// 2 * mean(1/l_k^2) over the block, and its reported length scale the one a
// single coordinate with that weight would have. nullopt when the space or
// the fit does not allow it.
std::optional<std::vector<ParameterImportance>> GpImportance(
    const api::ExperimentSpec& spec, const std::vector<Row>& rows,
    const std::string& model_state, int* used, bool* from_model) {
  if (spec.parameters.empty() || !CheckSearchSpace(spec.parameters).ok()) {
    return std::nullopt;
  }
  const UnitCube cube(spec.parameters);
  std::vector<Eigen::VectorXd> points;
  std::vector<double> values;
  for (const Row& r : rows) {
    std::optional<Eigen::VectorXd> x = cube.Encode(r.trial->assignment);
    if (!x) continue;  // a hand-made trial outside the space
    points.push_back(std::move(*x));
    values.push_back(r.value);
  }
  const auto n = static_cast<Eigen::Index>(points.size());
  if (n < kMinImportanceTrials) return std::nullopt;
  Eigen::MatrixXd x(cube.dim(), n);
  Eigen::VectorXd raw(n);
  for (Eigen::Index i = 0; i < n; ++i) {
    x.col(i) = points[static_cast<size_t>(i)];
    raw[i] = values[static_cast<size_t>(i)];
  }
  // The suggestion model's fit when it is one of this space (dim + 2
  // hyperparameters); else a fit of our own, on the same warping
  // bayesianoptimization applies before it fits.
  Eigen::VectorXd theta;
  std::optional<BoState> state = ParseState(model_state);
  *from_model = state && state->theta &&
                state->theta->size() == cube.dim() + 2 &&
                state->theta->allFinite();
  if (*from_model) {
    theta = *state->theta;
  } else {
    Eigen::VectorXd y = WarpOutputs(raw).values;
    std::mt19937_64 rng(kFitSeed);
    theta = FitHyperparameters(x, y, std::nullopt, FitOptions{}, rng);
  }
  if (theta.size() != cube.dim() + 2 || !theta.allFinite()) return std::nullopt;
  const Eigen::VectorXd l = GpHyperparameters::FromTheta(theta).lengthscales;

  std::vector<ParameterImportance> list;
  int offset = 0;
  for (const api::ParameterSpec& p : spec.parameters) {
    const bool onehot = p.type == api::ParameterType::kCategorical;
    const int width =
        onehot ? static_cast<int>(p.feasible_space.list.size()) : 1;
    double weight = 0;
    for (int k = 0; k < width; ++k)
      weight += 1 / (l[offset + k] * l[offset + k]);
    if (onehot) weight = 2 * weight / width;
    list.push_back({p.name, weight, std::nullopt, 1 / std::sqrt(weight)});
    offset += width;
  }
  if (!NormaliseAndRank(&list)) return std::nullopt;
  *used = static_cast<int>(n);
  return list;
}

// fANOVA (fanova.h) over every usable row: importance is each parameter's
// mean share of the trees' variance, scaled with its stddev so the list
// sums to 1. nullopt when no tree varies (then nothing can be said).
std::optional<std::vector<ParameterImportance>> FanovaImportance(
    const api::ExperimentSpec& spec, const std::vector<Row>& rows,
    const ImportanceOptions& options, double* main_effects) {
  // Past options.max_fanova_trials, a uniform sample of them (seeded, in
  // history order): the forest's cost grows as n log n per tree.
  std::vector<size_t> picked(rows.size());
  for (size_t i = 0; i < rows.size(); ++i) picked[i] = i;
  const size_t cap = static_cast<size_t>(std::max(1, options.max_fanova_trials));
  if (picked.size() > cap) {
    std::mt19937_64 rng(options.seed);
    std::shuffle(picked.begin(), picked.end(), rng);
    picked.resize(cap);
    std::sort(picked.begin(), picked.end());
  }
  std::vector<const api::Assignment*> assignments;
  Eigen::VectorXd y(static_cast<Eigen::Index>(picked.size()));
  for (size_t k = 0; k < picked.size(); ++k) {
    assignments.push_back(&rows[picked[k]].trial->assignment);
    y[static_cast<Eigen::Index>(k)] = rows[picked[k]].value;
  }
  const EncodedTrials encoded = EncodeTrials(spec.parameters, assignments);
  ForestOptions forest;
  forest.trees = std::max(1, options.trees);
  forest.seed = options.seed;
  const FanovaResult r = Fanova(encoded.x, y, encoded.groups, forest);
  double sum = 0;
  for (double m : r.mean) sum += m;
  if (r.trees == 0 || !(sum > 0)) return std::nullopt;
  *main_effects = std::min(1.0, sum);
  std::vector<ParameterImportance> list;
  for (size_t j = 0; j < spec.parameters.size(); ++j) {
    list.push_back({spec.parameters[j].name, r.mean[j] / sum, r.stddev[j] / sum,
                    std::nullopt});
  }
  if (!NormaliseAndRank(&list)) return std::nullopt;
  return list;
}

// "41%", "0.3%", "<0.1%" (tiny but not 0), "0%".
std::string Percent(double share) {
  if (share <= 0) return "0%";
  if (share < 0.0005) return "<0.1%";
  char buf[32];
  std::snprintf(buf, sizeof buf, share >= 0.1 ? "%.0f%%" : "%.1f%%",
                100 * share);
  return buf;
}

}  // namespace

const char* ToString(ImportanceMethod method) {
  return method == ImportanceMethod::kGp ? "gp" : "fanova";
}

ImportanceSummary ComputeImportance(const api::ExperimentSpec& spec,
                                    const std::vector<api::Trial>& history,
                                    const ImportanceOptions& options) {
  ImportanceSummary s;
  s.metric = spec.objective.metric_name;
  s.method =
      options.method.value_or(spec.algorithm.name == BayesianOptimization::kName
                                  ? ImportanceMethod::kGp
                                  : ImportanceMethod::kFanova);
  const std::vector<Row> rows = UsableRows(spec, history);
  s.trials = static_cast<int>(rows.size());
  if (spec.parameters.empty()) {
    s.note = "the experiment has no parameters";
    return s;
  }
  if (s.trials < kMinImportanceTrials) {
    s.note = "importance needs at least " +
             std::to_string(kMinImportanceTrials) +
             " finished trials with a value of " + s.metric + "; there are " +
             std::to_string(s.trials);
    return s;
  }
  const auto [lo, hi] = std::minmax_element(
      rows.begin(), rows.end(),
      [](const Row& a, const Row& b) { return a.value < b.value; });
  if (lo->value == hi->value) {
    s.note = "every trial has the same value of " + s.metric;
    return s;
  }
  if (s.method == ImportanceMethod::kGp) {
    int used = 0;
    if (auto list = GpImportance(spec, rows, options.model_state, &used,
                                 &s.from_model)) {
      s.parameters = std::move(*list);
      s.trials = used;
      double ignored = 0;
      if (auto check = FanovaImportance(spec, rows, options, &ignored)) {
        s.fanova = std::move(*check);
        s.note = CompareWithFanova(s.parameters, s.fanova);
        s.agrees = s.note.empty();
      }
      return s;
    }
    s.method = ImportanceMethod::kFanova;
    s.note =
        "the Gaussian process could not be fitted to these trials; fANOVA "
        "instead";
  }
  double main_effects = 0;
  if (auto list = FanovaImportance(spec, rows, options, &main_effects)) {
    s.parameters = std::move(*list);
    s.main_effects = main_effects;
  } else {
    if (!s.note.empty()) s.note += "; ";
    s.note += "no parameter explains any of the variance of " + s.metric;
  }
  return s;
}

std::string CompareWithFanova(const std::vector<ParameterImportance>& gp,
                              const std::vector<ParameterImportance>& fanova) {
  const ParameterImportance* worst = nullptr;
  double gp_share = 0;
  double worst_excess = 0;
  for (const ParameterImportance& f : fanova) {
    for (const ParameterImportance& g : gp) {
      if (g.name != f.name) continue;
      const double tolerance = std::max(0.2, 2 * f.stddev.value_or(0));
      const double excess = std::abs(g.importance - f.importance) - tolerance;
      if (excess > worst_excess) {
        worst_excess = excess;
        worst = &f;
        gp_share = g.importance;
      }
    }
  }
  if (!worst) return "";
  return "the GP and fANOVA disagree on " + worst->name + ": GP " +
         Percent(gp_share) + ", fANOVA " + Percent(worst->importance) +
         " \u00b1 " + Percent(worst->stddev.value_or(0)) +
         "; read this ranking with care";
}

}  // namespace hpt::analytics
