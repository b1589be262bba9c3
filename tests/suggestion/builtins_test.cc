#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "suggestion/algorithm.h"

namespace hpt::suggestion {
namespace {

TEST(RegistryTest, BuiltinsAreRegisteredSorted) {
  Registry<Algorithm> registry;
  RegisterBuiltins(registry);
  EXPECT_EQ(registry.Names(),
            (std::vector<std::string>{"bayesianoptimization", "cmaes", "darts", "grid",
                                      "hyperband", "multivariate-tpe", "nsga2", "pbt", "random",
                                      "sobol", "tpe"}));
  EXPECT_TRUE(registry.Create("grid").ok());
  EXPECT_TRUE(registry.Create("random").ok());
  StatusOr<std::unique_ptr<Algorithm>> missing = registry.Create("no-such-algorithm");
  EXPECT_EQ(missing.status().code(), StatusCode::kNotFound);
}

TEST(RegistryDeathTest, RegisteringBuiltinsTwiceIsABug) {
  Registry<Algorithm> registry;
  RegisterBuiltins(registry);
  EXPECT_DEATH(RegisterBuiltins(registry), "HPT_CHECK");
}

}  // namespace
}  // namespace hpt::suggestion
