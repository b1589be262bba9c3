#include "suggestion/bayesian_optimization.h"

#include <algorithm>
#include <cmath>
#include <memory>
#include <numeric>
#include <optional>
#include <random>
#include <unordered_set>

#include "api/settings.h"
#include "api/spec_codec.h"
#include "suggestion/acquisition.h"
#include "suggestion/bo_candidates.h"
#include "suggestion/bo_data.h"
#include "suggestion/bo_refit.h"
#include "suggestion/factor_cache.h"
#include "suggestion/feasibility.h"
#include "suggestion/fit_worker.h"
#include "suggestion/gaussian_process.h"
#include "suggestion/gp_fit.h"
#include "suggestion/local_model.h"
#include "suggestion/output_transform.h"
#include "suggestion/parego.h"
#include "suggestion/random_fill.h"
#include "suggestion/rng.h"
#include "suggestion/search_space.h"
#include "suggestion/sobol_search.h"
#include "suggestion/sobol_sequence.h"
#include "suggestion/unit_cube.h"

namespace hpt::suggestion {
namespace {

using KeySet = std::unordered_set<std::string>;
using BO = BayesianOptimization;

// Sobol points skipped for being used before the design gives up.
constexpr int kMaxDesignSkips = 64;
// The local model's hyperparameter fit, on every call: one L-BFGS run of
// at most this many evaluations, warm-started from the last fit, on at
// most this many of the local model's points (gp_fit.h's subset). Each
// call continues the last one's fit, so the refit is spread over calls
// instead of stalling one of them.
constexpr int kLocalFitEvaluations = 6;
constexpr int kLocalFitPoints = 160;

struct Settings {
  std::optional<int64_t> random_state;
  int64_t initial_points = 5;
  AcquisitionKind acquisition = AcquisitionKind::kLogEi;
  double kappa = BO::kDefaultKappa;
};

StatusOr<Settings> ReadSettings(const api::ExperimentSpec& spec) {
  api::SettingsReader r(
      spec.algorithm.settings, api::kAlgorithmSettingsPath, BO::kName,
      {BO::kRandomState, BO::kInitialPoints, BO::kAcqFunc, BO::kKappa, BO::kBaseEstimator,
       BO::kAcqOptimizer});
  Settings s;
  s.random_state = r.Seed();
  int64_t initial_points =
      std::max<int64_t>(5, 2 * static_cast<int64_t>(spec.parameters.size()));
  if (api::IsMultiObjective(spec.objective)) {
    initial_points =
        std::min(initial_points, BO::kMultiObjectiveMaxInitialPoints);
  }
  s.initial_points = r.Int(BO::kInitialPoints, initial_points, {.min = 1});
  // gp_hedge, Katib's default (skopt's portfolio of EI, LCB and PI), runs
  // as log EI, the portfolio's usual winner on smooth objectives.
  const std::string acq = r.Choice(BO::kAcqFunc, "ei", {"ei", "ucb", "lcb", "gp_hedge"});
  if (acq == "ucb" || acq == "lcb") s.acquisition = AcquisitionKind::kUcb;
  r.Choice(BO::kBaseEstimator, "gp", {"gp"});
  r.Choice(BO::kAcqOptimizer, "auto", {"auto", "sampling", "lbfgs"});
  s.kappa = r.Number(BO::kKappa, BO::kDefaultKappa, {.min = 0});
  HPT_RETURN_IF_ERROR(r.ToStatus());
  return s;
}

// Accepts x's assignment into the batch unless it is used; true if taken.
bool Take(const UnitCube& cube, const api::ExperimentSpec& spec,
          const Eigen::VectorXd& x, KeySet* used,
          std::vector<api::Assignment>* batch) {
  api::Assignment a = cube.Decode(x);
  if (!used->insert(AssignmentKey(spec.parameters, a)).second) return false;
  batch->push_back(std::move(a));
  return true;
}

// Per-call work, scaled so that a call stays fast as the history grows:
// scoring a candidate costs about n^2 / 2 (its variance) plus n kernel
// evaluations.
struct Budget {
  int candidates;
  MaximizeOptions maximize;
  FitOptions fit;
};

Budget BudgetFor(int n) {
  Budget b;
  double cost = 0.5 * n * n + 40.0 * n + 200;
  b.candidates = static_cast<int>(std::clamp(2.5e7 / cost, 64.0, 1024.0));
  b.maximize.starts = n <= 200 ? 3 : 1;
  b.maximize.max_evaluations = n <= 200 ? 40 : 12;
  // Beyond the refit-every-call regime a fit also starts from the last
  // one, so fewer and shorter extra starts do.
  b.fit.random_starts = n <= kRefitEveryCallUpTo ? 2 : 1;
  b.fit.max_evaluations = n <= kRefitEveryCallUpTo ? 120 : 50;
  return b;
}

// Fits the GP to `data` and adds the acquisition's best unused points to
// `batch` until it holds `count` (fewer when proposals keep landing on used
// points). `stream` varies the fit's and the candidates' randomness between
// calls; `refit_always` refits the hyperparameters even where the refit
// schedule would reuse the last ones (the multi-objective scalar changes
// with every suggestion). `feasibility` (null without constraints) weights
// the acquisition, and only feasible points can be the incumbent. Past
// local.exact_up_to points the GP is the local model (local_model.h).
void ProposeFromModel(const UnitCube& cube, const api::ExperimentSpec& spec,
                      const Settings& settings, const LocalModelOptions& local,
                      const BoData& data,
                      const FeasibilityModel* feasibility,
                      uint64_t stream, bool refit_always, FactorCache& cache,
                      const RefitOptions& refit, FitWorker& fits, BoState& state, KeySet* used,
                      std::vector<api::Assignment>* batch, int count) {
  const int dim = cube.dim();
  const int n = static_cast<int>(data.x.cols());
  // Values to fit: warped observations, failures at the worst of them.
  std::vector<int> observed;
  for (int i = 0; i < n; ++i) {
    if (!std::isnan(data.value[i])) observed.push_back(i);
  }
  const FitValues values = ValuesToFit(data.value);
  const Eigen::VectorXd& warped = values.warped;
  const Eigen::VectorXd& y = values.y;

  bool have_theta = state.theta && state.theta->size() == dim + 2;
  // The points the GP conditions on: all of them (exact), or the local
  // model's subset around the best observed (feasible) point.
  const bool is_local = n > local.exact_up_to;
  const ModelData model =
      is_local ? LocalModelData(
                     data.x, y, data.feasible, observed,
                     have_theta
                         ? GpHyperparameters::FromTheta(*state.theta).lengthscales
                         : Eigen::VectorXd::Ones(dim),
                     local.points)
               : ModelData{data.x, y, data.feasible, observed, {}};
  const int model_n = static_cast<int>(model.x.cols());

  Budget budget = BudgetFor(model_n);
  std::unique_ptr<KernelFactor> adopted;
  if (!is_local) {
    adopted = RefitExact(data.x, data.value, y, BudgetFor(n).fit, stream,
                         refit_always, refit, fits, state);
  } else if (have_theta) {
    // Bounded: see kLocalFitEvaluations.
    std::mt19937_64 rng = MakeRng(static_cast<int64_t>(state.seed), stream);
    FitOptions bounded;
    bounded.random_starts = 0;
    bounded.centre_start = false;
    bounded.max_evaluations = kLocalFitEvaluations;
    bounded.max_points = kLocalFitPoints;
    state.theta = FitHyperparameters(model.x, model.y, state.theta, bounded, rng);
    state.fit_points = n;
    state.refit_at = 0;
  } else {
    // The local model's first fit (no state: a restart or an imported
    // history), on a bounded subset of all the points.
    std::mt19937_64 rng = MakeRng(static_cast<int64_t>(state.seed), stream);
    state.theta = FitHyperparameters(data.x, y, std::nullopt, BudgetFor(n).fit, rng);
    state.fit_points = n;
    state.refit_at = 0;
  }
  state.local_points = is_local ? model_n : 0;
  GpHyperparameters h = GpHyperparameters::FromTheta(*state.theta);
  std::unique_ptr<KernelFactor> cached;
  if (!is_local && n >= FactorCache::kMinPoints) {
    cache.Put(std::move(adopted));
    cached = cache.Take(h.ToTheta(), data.x);
  }
  GaussianProcess gp(h, model.x, model.y, std::move(cached));

  // The incumbent: the best fitted mean at an observed feasible point;
  // with constraints and none feasible yet, none (the acquisition then
  // seeks feasibility alone).
  Eigen::VectorXd fitted = gp.FittedMeans();
  double best = HUGE_VAL;
  for (int i : model.observed) {
    if (model.feasible[static_cast<size_t>(i)]) best = std::min(best, fitted[i]);
  }
  if (!feasibility && !std::isfinite(best)) {
    for (int i : model.observed) best = std::min(best, fitted[i]);
  }
  std::vector<int> top = model.observed;
  std::sort(top.begin(), top.end(), [&](int a, int b) {
    const bool fa = model.feasible[static_cast<size_t>(a)];
    const bool fb = model.feasible[static_cast<size_t>(b)];
    return fa != fb ? fa : model.y[a] < model.y[b];
  });
  top.resize(std::min<size_t>(top.size(), 5));

  // Pending points: the model is told its own mean there (kriging
  // believer), but no better than the average observation (a constant
  // liar's floor). Believing the mean alone leaves a noiseless model's
  // improvement next to a promising pending point, and the next worker
  // would get its neighbour; the floor takes that improvement away.
  const double lie_floor = warped.mean();
  auto believe = [&](const Eigen::MatrixXd& points) {
    for (Eigen::Index i = 0; i < points.cols(); ++i) {
      Eigen::VectorXd mean, variance;
      gp.Predict(points.col(i), &mean, &variance);
      double lie = std::max(mean[0], lie_floor);
      gp.Add(points.col(i), lie);
      if (std::isfinite(best)) best = std::min(best, lie);
    }
  };
  believe(data.pending);
  for (const api::Assignment& a : *batch) believe(*cube.Encode(a));

  Eigen::MatrixXd candidates =
      Candidates(cube, spec, *used, model.x, top, budget.candidates,
                 Mix(state.seed ^ stream), is_local ? &model.region : nullptr);
  if (is_local) {
    // The local model only knows its trust region.
    budget.maximize.lower = model.region.lower;
    budget.maximize.upper = model.region.upper;
  }
  while (static_cast<int>(batch->size()) < count) {
    Acquisition acquisition(gp, settings.acquisition, best, settings.kappa, feasibility);
    std::vector<ScoredPoint> proposals =
        MaximizeAcquisition(acquisition, cube, candidates, budget.maximize);
    bool taken = false;
    for (const ScoredPoint& p : proposals) {
      if ((taken = Take(cube, spec, p.x, used, batch))) break;
    }
    if (!taken) {
      // Every refined maximum was tried already (a model sure of a corner
      // or of a grid point): the best untried candidate, which sits near
      // the best points, rather than a random fill.
      Eigen::VectorXd values = acquisition.Values(candidates);
      for (double& v : values) v = std::isnan(v) ? -HUGE_VAL : v;
      std::vector<Eigen::Index> order(static_cast<size_t>(values.size()));
      std::iota(order.begin(), order.end(), 0);
      std::sort(order.begin(), order.end(),
                [&](Eigen::Index a, Eigen::Index b) { return values[a] > values[b]; });
      for (Eigen::Index i : order) {
        if ((taken = Take(cube, spec, candidates.col(i), used, batch))) break;
      }
    }
    if (!taken) break;
    believe(*cube.Encode(batch->back()));
  }
  if (!is_local) cache.Put(gp.ReleaseFactor(n));
}

}  // namespace

BayesianOptimization::BayesianOptimization(std::shared_ptr<FactorCache> cache,
                                           LocalModelOptions local,
                                           std::shared_ptr<FitWorker> fits,
                                           RefitOptions refit)
    : cache_(cache ? std::move(cache) : NewFactorCache()),
      local_(local),
      fits_(fits ? std::move(fits) : std::make_shared<FitWorker>()),
      refit_(refit) {}

Status BO::Validate(const api::ExperimentSpec& spec) const {
  HPT_RETURN_IF_ERROR(ReadSettings(spec).status());
  HPT_RETURN_IF_ERROR(CheckSearchSpace(spec.parameters));
  // A client-run experiment may start empty: its trials define the
  // parameters (define-by-run).
  if (spec.parameters.empty() && spec.trial_template) {
    return InvalidArgument("parameters: " + std::string(kName) +
                           " needs at least one parameter");
  }
  if (UnitCube(spec.parameters).dim() > SobolSequence::kMaxDimension) {
    return InvalidArgument(
        "parameters: " + std::string(kName) + " supports up to " +
        std::to_string(SobolSequence::kMaxDimension) +
        " coordinates (one per parameter, one per category)");
  }
  return Status::Ok();
}

StatusOr<Suggestion> BO::Suggest(const api::ExperimentSpec& spec,
                                 const std::vector<api::Trial>& history,
                                 std::string_view state_text, int count) {
  HPT_RETURN_IF_ERROR(Validate(spec));
  HPT_ASSIGN_OR_RETURN(Settings settings, ReadSettings(spec));
  std::optional<BoState> parsed = ParseState(state_text);
  BoState state = parsed.value_or(BoState{});
  if (!parsed) state.seed = MakeRng(settings.random_state, 0)();
  RefitOptions refit = refit_;
  refit.adopt_when_ready = !settings.random_state.has_value();

  const UnitCube cube(spec.parameters);
  const int dim = cube.dim();
  KeySet used = UsedKeys(spec, history);
  std::vector<api::Assignment> batch;
  count = std::max(count, 0);
  const bool multi = api::IsMultiObjective(spec.objective);
  const int objectives =
      static_cast<int>(api::Objectives(spec.objective).size());
  // With several objectives only data.observed is used from this: the
  // trials that have every objective, whatever the weights.
  BoData data =
      multi ? CollectData(cube, spec, history,
                          ParegoLosses(history, spec.objective,
                                       std::vector<double>(objectives, 1.0)))
            : CollectData(cube, spec, history);

  // The initial design, and more of it while no trial has a value.
  const auto seen = static_cast<int64_t>(history.size());
  int design = data.observed == 0
                   ? count
                   : static_cast<int>(std::clamp<int64_t>(
                         settings.initial_points - seen, 0, count));
  SobolSequence design_sequence(dim, state.seed);
  Eigen::VectorXd point(dim);
  uint64_t index = static_cast<uint64_t>(seen);
  for (int skips = 0;
       static_cast<int>(batch.size()) < design && skips < kMaxDesignSkips;) {
    design_sequence.Point(index++, point.data());
    if (!Take(cube, spec, point, &used, &batch)) ++skips;
  }

  if (static_cast<int>(batch.size()) < count && data.observed > 0 &&
      static_cast<int>(batch.size()) == design) {
    // Constraints: one model of them for the whole batch.
    std::mt19937_64 feasibility_rng(Mix(state.seed ^ Mix(seen) ^ 0xfea51b1e));
    // Past the exact GP's threshold, modelled near the best observed
    // (feasible) point, where the local model's candidates are.
    std::optional<Eigen::VectorXd> centre;
    if (data.x.cols() > local_.exact_up_to) {
      std::vector<int> observed;
      for (Eigen::Index i = 0; i < data.value.size(); ++i) {
        if (!std::isnan(data.value[i])) observed.push_back(static_cast<int>(i));
      }
      const int best = BestObserved(data.value, observed, data.feasible);
      if (best >= 0) centre = data.x.col(best);
    }
    const std::unique_ptr<FeasibilityModel> feasibility = FeasibilityModel::Fit(
        cube, history, BudgetFor(static_cast<int>(data.x.cols())).fit,
        feasibility_rng, centre ? &*centre : nullptr, local_.points);
    if (!multi) {
      ProposeFromModel(cube, spec, settings, local_, data, feasibility.get(), Mix(seen),
                       /*refit_always=*/false, *cache_, refit, *fits_, state, &used, &batch,
                       count);
    }
    // ParEGO: one weight vector, one scalarisation and one model per
    // suggestion; the batch's earlier points are pending for the later.
    for (int k = 0; multi && static_cast<int>(batch.size()) < count; ++k) {
      const uint64_t stream = Mix(seen) ^ Mix(static_cast<uint64_t>(k) + 1);
      std::mt19937_64 rng(Mix(state.seed ^ stream));
      const std::vector<double> weights = DrawSimplexWeights(objectives, rng);
      const BoData scalar = CollectData(
          cube, spec, history, ParegoLosses(history, spec.objective, weights));
      const size_t before = batch.size();
      ProposeFromModel(cube, spec, settings, local_, scalar, feasibility.get(), stream,
                       /*refit_always=*/true, *cache_, refit, *fits_, state, &used, &batch,
                       static_cast<int>(before) + 1);
      if (batch.size() == before) break;
    }
  }

  Suggestion suggestion;
  int missing = count - static_cast<int>(batch.size());
  if (missing > 0 || SpaceSize(spec.parameters)) {
    HPT_ASSIGN_OR_RETURN(Suggestion fill, RandomFill(spec, history, batch,
                                                     Mix(state.seed ^ seen),
                                                     std::max(missing, 0)));
    for (api::Assignment& a : fill.assignments) batch.push_back(std::move(a));
    suggestion.exhausted = fill.exhausted;
  }
  suggestion.assignments = std::move(batch);
  suggestion.state = FormatState(state);
  return suggestion;
}

}  // namespace hpt::suggestion
