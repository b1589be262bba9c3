#include <memory>

#include "suggestion/algorithm.h"
#include "suggestion/grid_search.h"
#include "suggestion/random_search.h"

namespace hpt::suggestion {

void RegisterBuiltins(Registry<Algorithm>& registry) {
  // A name registered twice is a start-up bug, not a user error.
  HPT_CHECK(registry
                .Register(GridSearch::kName,
                          [] { return std::make_unique<GridSearch>(); })
                .ok());
  HPT_CHECK(registry
                .Register(RandomSearch::kName,
                          [] { return std::make_unique<RandomSearch>(); })
                .ok());
}

}  // namespace hpt::suggestion
