#include "analytics/importance.h"

#include <Eigen/Core>
#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <map>
#include <random>

#include "suggestion/bayesian_optimization.h"
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
using suggestion::CheckSearchSpace;
using suggestion::FitHyperparameters;
using suggestion::FitOptions;
using suggestion::GpHyperparameters;
using suggestion::IsLogScale;
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
    const api::ExperimentSpec& spec, const std::vector<Row>& rows, int* used) {
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
  // The same warping bayesianoptimization applies before it fits.
  Eigen::VectorXd y = WarpOutputs(raw).values;
  std::mt19937_64 rng(kFitSeed);
  Eigen::VectorXd theta =
      FitHyperparameters(x, y, std::nullopt, FitOptions{}, rng);
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
    list.push_back({p.name, weight, 1 / std::sqrt(weight)});
    offset += width;
  }
  if (!NormaliseAndRank(&list)) return std::nullopt;
  *used = static_cast<int>(n);
  return list;
}

// Bin of each row's value of parameter `p` (-1: the row has no usable
// value). Numbers (log-scaled for logUniform and logNormal) go into up to
// `max_bins` quantile bins, each distinct value its own bin when there are few;
// categories, and values that are not numbers, are bins by their text.
std::vector<int> Bins(const api::ParameterSpec& p, const std::vector<Row>& rows,
                      int max_bins) {
  std::vector<int> bins(rows.size(), -1);
  std::vector<const std::string*> text(rows.size(), nullptr);
  std::vector<double> number(rows.size(), NAN);
  bool numeric = p.type != api::ParameterType::kCategorical;
  for (size_t i = 0; i < rows.size(); ++i) {
    text[i] = api::FindValue(rows[i].trial->assignment, p.name);
    if (!text[i] || !numeric) continue;
    char* end = nullptr;
    double v = std::strtod(text[i]->c_str(), &end);
    if (end == text[i]->c_str() || *end != '\0' || !std::isfinite(v)) {
      numeric = false;
      continue;
    }
    const bool log = IsLogScale(p.feasible_space.distribution);
    number[i] = log && v > 0 ? std::log(v) : v;
  }
  if (!numeric) {
    std::map<std::string, int> ids;
    for (size_t i = 0; i < rows.size(); ++i) {
      if (text[i])
        bins[i] =
            ids.emplace(*text[i], static_cast<int>(ids.size())).first->second;
    }
    return bins;
  }
  std::vector<double> sorted;
  for (double v : number) {
    if (!std::isnan(v)) sorted.push_back(v);
  }
  std::sort(sorted.begin(), sorted.end());
  std::vector<double> distinct = sorted;
  distinct.erase(std::unique(distinct.begin(), distinct.end()), distinct.end());
  std::vector<double> edges;  // a value's bin: the edges at or below it
  if (static_cast<int>(distinct.size()) <= max_bins) {
    edges.assign(distinct.begin() + (distinct.empty() ? 0 : 1), distinct.end());
  } else {
    // About three trials a bin at least, so that a bin's mean means something.
    const int count =
        std::clamp(static_cast<int>(sorted.size()) / 3, 2, max_bins);
    for (int k = 1; k < count; ++k)
      edges.push_back(sorted[sorted.size() * k / count]);
  }
  for (size_t i = 0; i < rows.size(); ++i) {
    if (std::isnan(number[i])) continue;
    bins[i] = static_cast<int>(
        std::upper_bound(edges.begin(), edges.end(), number[i]) -
        edges.begin());
  }
  return bins;
}

// fANOVA-style main effects: for each parameter, the variance of the
// objective's mean within its bins (the conditional mean) over the total
// variance. With few trials a bin's mean is noisy, and noise alone gives
// every parameter some between-bin variance; so (k - 1) within-bin mean
// squares are taken off it first (the epsilon-squared correction), which
// leaves a parameter that does not matter near 0. Only when that leaves
// every parameter at 0 are the uncorrected shares used. The warped values
// (as the GP sees them) keep one diverged run from being all the variance.
std::optional<std::vector<ParameterImportance>> FanovaImportance(
    const api::ExperimentSpec& spec, const std::vector<Row>& rows, int max_bins,
    bool* uncorrected) {
  Eigen::VectorXd raw(static_cast<Eigen::Index>(rows.size()));
  for (size_t i = 0; i < rows.size(); ++i)
    raw[static_cast<Eigen::Index>(i)] = rows[i].value;
  const Eigen::VectorXd y = WarpOutputs(raw).values;
  std::vector<ParameterImportance> corrected;
  std::vector<ParameterImportance> plain;
  for (const api::ParameterSpec& p : spec.parameters) {
    std::vector<int> bins = Bins(p, rows, std::max(2, max_bins));
    std::map<int, std::pair<double, int>> sums;  // bin -> (sum, count)
    double total = 0;
    int n = 0;
    for (size_t i = 0; i < rows.size(); ++i) {
      if (bins[i] < 0) continue;
      auto& s = sums[bins[i]];
      s.first += y[static_cast<Eigen::Index>(i)];
      s.second += 1;
      total += y[static_cast<Eigen::Index>(i)];
      ++n;
    }
    double between = 0, all = 0;
    if (n > 0) {
      const double mean = total / n;
      for (size_t i = 0; i < rows.size(); ++i) {
        if (bins[i] >= 0)
          all += std::pow(y[static_cast<Eigen::Index>(i)] - mean, 2);
      }
      for (const auto& [bin, s] : sums)
        between += s.second * std::pow(s.first / s.second - mean, 2);
    }
    const auto k = static_cast<int>(sums.size());
    double share = all > 0 ? between / all : 0;
    double within = n > k ? (all - between) / (n - k) : 0;
    double adjusted =
        all > 0 ? std::max(0.0, (between - (k - 1) * within) / all) : 0;
    corrected.push_back({p.name, adjusted, std::nullopt});
    plain.push_back({p.name, share, std::nullopt});
  }
  if (NormaliseAndRank(&corrected)) return corrected;
  *uncorrected = true;
  if (NormaliseAndRank(&plain)) return plain;
  return std::nullopt;
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
    if (auto list = GpImportance(spec, rows, &used)) {
      s.parameters = std::move(*list);
      s.trials = used;
      return s;
    }
    s.method = ImportanceMethod::kFanova;
    s.note =
        "the Gaussian process could not be fitted to these trials; "
        "fANOVA-style main effects instead";
  }
  bool uncorrected = false;
  if (auto list =
          FanovaImportance(spec, rows, options.max_bins, &uncorrected)) {
    s.parameters = std::move(*list);
    if (uncorrected) {
      if (!s.note.empty()) s.note += "; ";
      s.note +=
          "no parameter's effect stands out from the noise yet: shares of the "
          "raw variance";
    }
  } else {
    s.note = "no parameter explains any of the variance of " + s.metric;
  }
  return s;
}

}  // namespace hpt::analytics
