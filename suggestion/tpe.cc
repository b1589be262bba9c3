#include "suggestion/tpe.h"

#include <algorithm>
#include <cmath>
#include <optional>
#include <unordered_set>

#include "api/conditions.h"
#include "api/constraints.h"
#include "api/settings.h"
#include "api/spec_codec.h"
#include "suggestion/parzen.h"
#include "suggestion/prior.h"
#include "suggestion/random_search.h"
#include "suggestion/rng.h"
#include "suggestion/search_space.h"
#include "suggestion/single_objective.h"

namespace hpt::suggestion {
namespace {

using api::ParameterSpec;
using api::ParameterType;
using Point = std::vector<double>;

// Fresh candidate sets tried before a used point of a finite space is
// given up for a random unused one.
constexpr int kMaxRedraws = 10;

// The defaults: Optuna 3.1's for "tpe"; for "multivariate-tpe" a larger
// good fraction and more candidates (tpe.h, "multivariate-tpe's defaults").
constexpr int64_t kCandidates = 24, kMultivariateCandidates = 48;
constexpr double kGamma = 0.10, kMultivariateGamma = 0.15;

struct Settings {
  std::optional<int64_t> random_state;
  int64_t startup = 10;
  int64_t candidates = kCandidates;
  double gamma = kGamma;  // the good model's fraction of the ranked trials
};

StatusOr<Settings> ReadSettings(const api::ExperimentSpec& spec, const char* name,
                                bool multivariate) {
  api::SettingsReader r(spec.algorithm.settings, api::kAlgorithmSettingsPath, name,
                        {api::kRandomState, Tpe::kStartupTrials, Tpe::kEiCandidates});
  Settings s;
  s.random_state = r.Seed();
  s.startup = r.Int(Tpe::kStartupTrials, 10, {.min = 0});
  s.candidates = r.Int(Tpe::kEiCandidates, multivariate ? kMultivariateCandidates : kCandidates,
                       {.min = 1, .max = 10000});
  s.gamma = multivariate ? kMultivariateGamma : kGamma;
  HPT_RETURN_IF_ERROR(r.ToStatus());
  return s;
}

// One parameter in the estimator's space: log for logUniform, the range
// widened by half a step for a grid (so its ends are as likely as the rest),
// a list's index for discrete and categorical.
struct Dim {
  const ParameterSpec* p = nullptr;
  ParzenDimension parzen;
  bool log = false;
  double step = 0;  // > 0: values on min + k * step
};

std::vector<Dim> MakeDims(const std::vector<ParameterSpec>& parameters) {
  std::vector<Dim> dims;
  for (const ParameterSpec& p : parameters) {
    Dim d;
    d.p = &p;
    const api::FeasibleSpace& fs = p.feasible_space;
    if (p.type == ParameterType::kDiscrete || p.type == ParameterType::kCategorical) {
      d.parzen.categorical = true;
      d.parzen.choices = static_cast<int>(fs.list.size());
      dims.push_back(d);
      continue;
    }
    d.log = IsLogScale(fs.distribution);
    if (fs.distribution == api::Distribution::kNormal ||
        fs.distribution == api::Distribution::kLogNormal) {
      d.parzen.prior_sigma = 1.0 / 6;  // prior.h: sigma a sixth of the range
    }
    d.step = p.type == ParameterType::kInt ? fs.step.value_or(1) : fs.step.value_or(0);
    double low = *fs.min - d.step / 2, high = *fs.max + d.step / 2;
    if (d.log) {
      low = std::log(low > 0 ? low : *fs.min);
      high = std::log(high);
    }
    if (!d.log) d.parzen.step = d.step;
    d.parzen.low = low;
    d.parzen.high = std::max(high, low + 1e-12);
    dims.push_back(d);
  }
  return dims;
}

std::optional<double> Encode(const Dim& d, const std::string& text) {
  const api::FeasibleSpace& fs = d.p->feasible_space;
  if (d.parzen.categorical) {
    auto it = std::find(fs.list.begin(), fs.list.end(), text);
    if (it == fs.list.end()) return std::nullopt;
    return static_cast<double>(it - fs.list.begin());
  }
  char* end = nullptr;
  const double v = std::strtod(text.c_str(), &end);
  if (end == text.c_str() || !std::isfinite(v) || (d.log && v <= 0)) return std::nullopt;
  return std::clamp(d.log ? std::log(v) : v, d.parzen.low, d.parzen.high);
}

std::string Decode(const Dim& d, double x) {
  const api::FeasibleSpace& fs = d.p->feasible_space;
  if (d.parzen.categorical) return fs.list[static_cast<size_t>(x)];
  const double v = d.log ? std::exp(x) : x;
  if (d.step > 0) {
    const int64_t top = *GridSize(*d.p) - 1;
    return GridValue(*d.p, std::clamp<int64_t>(std::llround((v - *fs.min) / d.step), 0, top));
  }
  return api::FormatDouble(std::clamp(v, *fs.min, *fs.max));
}

// A trial's point, one coordinate per parameter (dims are the spec's
// parameters in order); NaN for a conditional parameter inactive in it.
std::optional<Point> EncodeTrial(const std::vector<ParameterSpec>& parameters,
                                 const std::vector<Dim>& dims, const api::Assignment& a) {
  std::vector<bool> active;
  if (api::HasConditions(parameters)) active = api::ActiveParameters(parameters, a);
  Point x;
  for (size_t i = 0; i < dims.size(); ++i) {
    const Dim& d = dims[i];
    if (!active.empty() && !active[i]) {
      x.push_back(NAN);
      continue;
    }
    const std::string* text = api::FindValue(a, d.p->name);
    std::optional<double> v = text ? Encode(d, *text) : std::nullopt;
    if (!v) return std::nullopt;  // made by hand outside the space
    x.push_back(*v);
  }
  return x;
}

// The points' coordinates in `group`, of the points that have them all: a
// conditional parameter's estimator sees only the trials where it was
// active, as Optuna's does.
std::vector<Point> Columns(const std::vector<Point>& points, const std::vector<size_t>& group) {
  std::vector<Point> out;
  for (const Point& x : points) {
    Point y;
    for (size_t d : group) {
      if (std::isnan(x[d])) break;
      y.push_back(x[d]);
    }
    if (y.size() == group.size()) out.push_back(std::move(y));
  }
  return out;
}

// Optuna's group decomposition (TPESampler(group=True),
// _GroupDecomposedSearchSpace): each point splits the groups so far into
// the part it has and the part it lacks, and what it has beyond them is a
// new group; so parameters that always appear together share a group.
// Parameters no point has are groups of their own. Groups are ordered by
// their first parameter.
std::vector<std::vector<size_t>> Groups(size_t dims, const std::vector<Point>& points) {
  std::vector<std::vector<size_t>> groups;
  for (const Point& x : points) {
    std::vector<bool> fresh(dims);
    for (size_t d = 0; d < dims; ++d) fresh[d] = !std::isnan(x[d]);
    std::vector<std::vector<size_t>> next;
    for (const std::vector<size_t>& g : groups) {
      std::vector<size_t> in, out;
      for (size_t d : g) {
        (std::isnan(x[d]) ? out : in).push_back(d);
        fresh[d] = false;
      }
      for (auto* part : {&in, &out}) {
        if (!part->empty()) next.push_back(std::move(*part));
      }
    }
    std::vector<size_t> added;
    for (size_t d = 0; d < dims; ++d) {
      if (fresh[d]) added.push_back(d);
    }
    if (!added.empty()) next.push_back(std::move(added));
    groups = std::move(next);
  }
  std::vector<bool> grouped(dims, false);
  for (const auto& g : groups) {
    for (size_t d : g) grouped[d] = true;
  }
  for (size_t d = 0; d < dims; ++d) {
    if (!grouped[d]) groups.push_back({d});
  }
  std::sort(groups.begin(), groups.end());
  return groups;
}

// The candidate drawn from the good model l with the largest l(x) / g(x),
// per group of parameters: all of them jointly (multivariate), their
// co-occurring groups (multivariate, conditional), or one at a time.
Point Propose(const std::vector<Dim>& dims, const std::vector<std::vector<size_t>>& groups,
              const std::vector<Point>& below, const std::vector<Point>& above,
              int candidates, bool multivariate, std::mt19937_64& rng) {
  auto best_of = [&](const std::vector<ParzenDimension>& pd, const std::vector<Point>& good,
                     const std::vector<Point>& bad) {
    const ParzenEstimator l(pd, good, multivariate), g(pd, bad, multivariate);
    Point best;
    double best_score = -INFINITY;
    for (int i = 0; i < candidates; ++i) {
      Point x = l.Sample(rng);
      const double score = l.LogPdf(x) - g.LogPdf(x);
      if (best.empty() || score > best_score) {
        best_score = score;
        best = std::move(x);
      }
    }
    return best;
  };
  Point x(dims.size());
  for (const std::vector<size_t>& group : groups) {
    std::vector<ParzenDimension> pd;
    for (size_t d : group) pd.push_back(dims[d].parzen);
    const Point best = best_of(pd, Columns(below, group), Columns(above, group));
    for (size_t j = 0; j < group.size(); ++j) x[group[j]] = best[j];
  }
  return x;
}

}  // namespace

Status Tpe::Validate(const api::ExperimentSpec& spec) const {
  HPT_RETURN_IF_ERROR(RequireSingleObjective(spec, name()));
  HPT_RETURN_IF_ERROR(ReadSettings(spec, name(), multivariate_).status());
  return CheckSearchSpace(spec.parameters);
}

StatusOr<Suggestion> Tpe::Suggest(const api::ExperimentSpec& spec,
                                  const std::vector<api::Trial>& history,
                                  std::string_view /*state*/, int count) {
  HPT_RETURN_IF_ERROR(Validate(spec));
  HPT_ASSIGN_OR_RETURN(Settings settings, ReadSettings(spec, name(), multivariate_));
  const std::vector<Dim> dims = MakeDims(spec.parameters);
  const double sign = spec.objective.type == api::ObjectiveType::kMaximize ? -1 : 1;

  // Ranked trials (a loss to minimise) and the running ones, in creation order.
  struct Row {
    Point x;
    double loss;
    size_t order;
    double violation = 0;  // with constraints: 0 feasible, inf without values
  };
  const bool constrained = api::AnyConstraints(history);
  std::vector<Row> done;
  std::vector<Point> running;
  for (size_t i = 0; i < history.size(); ++i) {
    const api::Trial& t = history[i];
    std::optional<Point> x = EncodeTrial(spec.parameters, dims, t.assignment);
    if (!x) continue;
    if (!api::IsFinished(t.phase)) {
      running.push_back(std::move(*x));
      continue;
    }
    if (t.phase != api::TrialPhase::kSucceeded && t.phase != api::TrialPhase::kEarlyStopped) {
      continue;
    }
    if (std::optional<double> v = api::ObjectiveValue(t, spec.objective); v && std::isfinite(*v)) {
      const double violation = !constrained          ? 0
                               : api::HasConstraints(t) ? api::Violation(api::ConstraintValues(t))
                                                        : INFINITY;
      done.push_back({std::move(*x), sign * *v, i, violation});
    }
  }
  const api::ExperimentSpec random_spec = SeedOnlySpec(spec);
  RandomSearch random;
  if (static_cast<int64_t>(done.size()) < settings.startup || dims.empty()) {
    return random.Suggest(random_spec, history, "", count);
  }

  // The groups of parameters that share an estimator: every parameter on
  // its own (tpe), all together (multivariate-tpe), or for conditional
  // parameters Optuna's group decomposition of the ranked trials.
  std::vector<std::vector<size_t>> groups;
  if (!multivariate_) {
    for (size_t d = 0; d < dims.size(); ++d) groups.push_back({d});
  } else if (!api::HasConditions(spec.parameters)) {
    groups.emplace_back();
    for (size_t d = 0; d < dims.size(); ++d) groups.back().push_back(d);
  } else {
    std::vector<Point> points;
    for (const Row& r : done) points.push_back(r.x);
    groups = Groups(dims.size(), points);
  }
  // The best min(ceil(gamma n), 25) trials make the good model; the rest,
  // the running ones and this batch's earlier points the bad one (constant
  // liar). With constraints, as Optuna's constrained TPE: feasible trials
  // rank before infeasible ones (and those without values last), feasible
  // ones by loss, infeasible ones by their violation.
  std::vector<Row> ranked = done;
  std::stable_sort(ranked.begin(), ranked.end(), [](const Row& a, const Row& b) {
    if ((a.violation > 0) != (b.violation > 0)) return a.violation <= 0;
    return a.violation > 0 ? a.violation < b.violation : a.loss < b.loss;
  });
  const size_t n_below = std::min<size_t>(
      static_cast<size_t>(std::ceil(settings.gamma * static_cast<double>(ranked.size()))), 25);
  std::vector<Row> below_rows(ranked.begin(), ranked.begin() + static_cast<long>(n_below));
  std::vector<Row> above_rows(ranked.begin() + static_cast<long>(n_below), ranked.end());
  auto by_order = [](const Row& a, const Row& b) { return a.order < b.order; };
  std::sort(below_rows.begin(), below_rows.end(), by_order);
  std::sort(above_rows.begin(), above_rows.end(), by_order);
  std::vector<Point> below, above;
  for (Row& r : below_rows) below.push_back(std::move(r.x));
  for (Row& r : above_rows) above.push_back(std::move(r.x));
  for (Point& x : running) above.push_back(std::move(x));

  const bool finite = SpaceSize(spec.parameters).has_value();
  std::unordered_set<std::string> seen;
  if (finite) {
    for (const api::Trial& t : history) seen.insert(AssignmentKey(spec.parameters, t.assignment));
  }
  std::mt19937_64 rng = MakeRng(settings.random_state, history.size());
  Suggestion suggestion;
  std::vector<api::Trial> with_batch = history;  // for the random fallback
  for (int i = 0; i < count; ++i) {
    std::optional<api::Assignment> chosen;
    for (int attempt = 0; attempt <= kMaxRedraws && !chosen; ++attempt) {
      const Point x = Propose(dims, groups, below, above, static_cast<int>(settings.candidates),
                              multivariate_, rng);
      api::Assignment a;
      for (size_t d = 0; d < dims.size(); ++d) a.push_back({dims[d].p->name, Decode(dims[d], x[d])});
      a = api::PruneInactive(spec.parameters, a);
      if (!finite || seen.insert(AssignmentKey(spec.parameters, a)).second) chosen = std::move(a);
    }
    if (!chosen) {  // the good region's points are used: any unused one
      HPT_ASSIGN_OR_RETURN(Suggestion fill, random.Suggest(random_spec, with_batch, "", 1));
      suggestion.exhausted = fill.exhausted;
      if (fill.assignments.empty()) break;
      chosen = std::move(fill.assignments[0]);
      seen.insert(AssignmentKey(spec.parameters, *chosen));
    }
    if (std::optional<Point> x = EncodeTrial(spec.parameters, dims, *chosen)) {
      above.push_back(std::move(*x));
    }
    api::Trial placeholder;
    placeholder.assignment = *chosen;
    placeholder.phase = api::TrialPhase::kRunning;
    with_batch.push_back(std::move(placeholder));
    suggestion.assignments.push_back(std::move(*chosen));
    if (suggestion.exhausted) break;
  }
  return suggestion;
}

}  // namespace hpt::suggestion
