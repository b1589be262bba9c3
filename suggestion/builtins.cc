#include <memory>

#include "suggestion/algorithm.h"
#include "suggestion/bayesian_optimization.h"
#include "suggestion/cmaes.h"
#include "suggestion/darts.h"
#include "suggestion/factor_cache.h"
#include "suggestion/fit_worker.h"
#include "suggestion/grid_search.h"
#include "suggestion/hyperband.h"
#include "suggestion/nsga2.h"
#include "suggestion/pbt.h"
#include "suggestion/random_search.h"
#include "suggestion/sobol_search.h"
#include "suggestion/tpe.h"

namespace hpt::suggestion {

void RegisterBuiltins(Registry<Algorithm>& registry, Status darts_available) {
  // A name registered twice is a start-up bug, not a user error.
  HPT_CHECK(registry
                .Register(GridSearch::kName,
                          [] { return std::make_unique<GridSearch>(); })
                .ok());
  HPT_CHECK(registry
                .Register(RandomSearch::kName,
                          [] { return std::make_unique<RandomSearch>(); })
                .ok());
  HPT_CHECK(registry
                .Register(Hyperband::kName,
                          [] { return std::make_unique<Hyperband>(); })
                .ok());
  HPT_CHECK(registry
                .Register(SobolSearch::kName,
                          [] { return std::make_unique<SobolSearch>(); })
                .ok());
  HPT_CHECK(registry
                .Register(Tpe::kName, [] { return std::make_unique<Tpe>(false); })
                .ok());
  HPT_CHECK(registry
                .Register(Tpe::kMultivariateName, [] { return std::make_unique<Tpe>(true); })
                .ok());
  HPT_CHECK(registry
                .Register(Cmaes::kName, [] { return std::make_unique<Cmaes>(); })
                .ok());
  HPT_CHECK(registry
                .Register(Nsga2::kName, [] { return std::make_unique<Nsga2>(); })
                .ok());
  HPT_CHECK(registry
                .Register(Pbt::kName, [] { return std::make_unique<Pbt>(); })
                .ok());
  HPT_CHECK(registry
                .Register(Darts::kName,
                          [darts_available] { return std::make_unique<Darts>(darts_available); })
                .ok());
  // One factor cache and one background fit worker for every instance
  // this registry makes (the controller makes one per call): no
  // process-global state.
  HPT_CHECK(registry
                .Register(BayesianOptimization::kName,
                          [cache = NewFactorCache(), fits = std::make_shared<FitWorker>()] {
                            return std::make_unique<BayesianOptimization>(
                                cache, LocalModelOptions{}, fits);
                          })
                .ok());
}

}  // namespace hpt::suggestion
