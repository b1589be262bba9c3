#include "suggestion/bo_refit.h"

#include <algorithm>
#include <cmath>
#include <optional>
#include <random>
#include <utility>
#include <vector>

#include "suggestion/output_transform.h"
#include "suggestion/rng.h"

namespace hpt::suggestion {
namespace {

// Separates a background fit's generator from the calls' streams.
constexpr uint64_t kBackgroundStream = 0xb0c6f17e5ull;

int Lag(int refit_at, const RefitOptions& options) {
  return std::max(options.min_lag, refit_at * options.lag_percent / 100);
}

// The fit an inline refit at n_r points would have made (bo_refit.h).
FitJob BackgroundJob(const Eigen::MatrixXd& x, const Eigen::VectorXd& value,
                     int n_r, const Eigen::VectorXd& warm, const FitOptions& fit,
                     uint64_t seed) {
  FitJob job;
  job.x = x.leftCols(n_r);
  job.y = ValuesToFit(value.head(n_r)).y;
  job.warm_start = warm;
  job.options = fit;
  job.options.cancel = nullptr;
  job.seed = static_cast<int64_t>(seed);
  job.stream = Mix(static_cast<uint64_t>(n_r)) ^ kBackgroundStream;
  job.build_factor = true;
  return job;
}

}  // namespace

FitValues ValuesToFit(const Eigen::VectorXd& value) {
  const auto n = value.size();
  std::vector<Eigen::Index> observed;
  for (Eigen::Index i = 0; i < n; ++i) {
    if (!std::isnan(value[i])) observed.push_back(i);
  }
  FitValues out;
  if (observed.empty()) {
    out.y = Eigen::VectorXd::Zero(n);
    return out;
  }
  Eigen::VectorXd raw(static_cast<Eigen::Index>(observed.size()));
  for (size_t i = 0; i < observed.size(); ++i) {
    raw[static_cast<Eigen::Index>(i)] = value[observed[i]];
  }
  out.warped = WarpOutputs(raw).values;
  out.y = Eigen::VectorXd::Constant(n, out.warped.maxCoeff());
  for (size_t i = 0; i < observed.size(); ++i) {
    out.y[observed[i]] = out.warped[static_cast<Eigen::Index>(i)];
  }
  return out;
}

std::unique_ptr<KernelFactor> RefitExact(const Eigen::MatrixXd& x,
                                         const Eigen::VectorXd& value,
                                         const Eigen::VectorXd& y,
                                         const FitOptions& fit, uint64_t stream,
                                         bool refit_always,
                                         const RefitOptions& options,
                                         FitWorker& worker, BoState& state) {
  const int n = static_cast<int>(x.cols());
  auto have_theta = [&] {
    return state.theta && state.theta->size() == x.rows() + 2;
  };
  // A background fit that can no longer be adopted as scheduled (the
  // history shrank, the state is not this model's) is forgotten.
  if (state.refit_at > 0 && (refit_always || !have_theta() || state.refit_at > n ||
                             state.refit_at <= state.fit_points)) {
    state.refit_at = 0;
  }
  std::unique_ptr<KernelFactor> factor;
  auto adopt = [&](FitResult result) {
    state.theta = std::move(result.theta);
    state.fit_points = state.refit_at;
    state.refit_at = 0;
    factor = std::move(result.factor);
  };
  if (state.refit_at > 0 && options.adopt_when_ready) {
    const FitJob job =
        BackgroundJob(x, value, state.refit_at, *state.theta, fit, state.seed);
    bool known = true;
    std::optional<FitResult> done = worker.TakeIfDone(job, &known);
    if (done) {
      adopt(std::move(*done));
    } else if (!known) {
      worker.Submit(job);  // lost (a restart, another process): again
    }
  } else if (state.refit_at > 0 && n >= state.refit_at + Lag(state.refit_at, options)) {
    const FitJob job =
        BackgroundJob(x, value, state.refit_at, *state.theta, fit, state.seed);
    std::optional<FitResult> done = worker.Take(job);
    adopt(done ? std::move(*done) : RunFitJob(job));
  }
  if (state.refit_at > 0) return factor;  // one background fit at a time

  const int interval = state.fit_points > options.background_from
                           ? state.fit_points * options.interval_percent / 100
                           : state.fit_points / 10;
  const bool due = refit_always || !have_theta() || n <= kRefitEveryCallUpTo ||
                   n < state.fit_points || n >= state.fit_points + std::max(1, interval);
  if (!due) return factor;
  if (refit_always || !have_theta() || n < state.fit_points ||
      n <= options.background_from) {
    std::mt19937_64 rng = MakeRng(static_cast<int64_t>(state.seed), stream);
    std::optional<Eigen::VectorXd> warm;
    if (have_theta()) warm = state.theta;
    state.theta = FitHyperparameters(x, y, warm, fit, rng);
    state.fit_points = n;
    return nullptr;  // built with other hyperparameters
  }
  worker.Submit(BackgroundJob(x, value, n, *state.theta, fit, state.seed));
  state.refit_at = n;
  return factor;
}

}  // namespace hpt::suggestion
