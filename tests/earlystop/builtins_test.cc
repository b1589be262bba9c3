#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "earlystop/policy.h"

namespace hpt::earlystop {
namespace {

TEST(RegistryTest, BuiltinsAreRegisteredSorted) {
  Registry<Policy> registry;
  RegisterBuiltins(registry);
  EXPECT_EQ(registry.Names(),
            (std::vector<std::string>{"asha", "hyperband", "medianstop", "patient",
                                      "percentile", "threshold"}));
  EXPECT_TRUE(registry.Create("asha").ok());
  EXPECT_TRUE(registry.Create("hyperband").ok());
  EXPECT_TRUE(registry.Create("medianstop").ok());
  EXPECT_EQ(registry.Create("mean").status().code(), StatusCode::kNotFound);
}

TEST(RegistryDeathTest, RegisteringBuiltinsTwiceIsABug) {
  Registry<Policy> registry;
  RegisterBuiltins(registry);
  EXPECT_DEATH(RegisterBuiltins(registry), "HPT_CHECK");
}

}  // namespace
}  // namespace hpt::earlystop
