#include "suggestion/rng.h"

#include <gtest/gtest.h>

namespace hpt::suggestion {
namespace {

TEST(RngTest, RandomStateSeedsRepeatably) {
  EXPECT_EQ(MakeRng(5, 0)(), MakeRng(5, 0)());
  EXPECT_NE(MakeRng(5, 0)(), MakeRng(6, 0)());
  EXPECT_NE(MakeRng(5, 0)(), MakeRng(5, 1)());
}

TEST(RngTest, ReadOnlySeedAcceptsRandomStateAlone) {
  api::ExperimentSpec spec;
  spec.algorithm = {"random", {{"random_state", " 42 "}}};
  StatusOr<std::optional<int64_t>> seed = ReadOnlySeed(spec, "random");
  ASSERT_TRUE(seed.ok());
  EXPECT_EQ(**seed, 42);

  spec.algorithm.settings = {{"random_state", "x"}, {"eta", "3"}};
  EXPECT_EQ(ReadOnlySeed(spec, "random").status().message(),
            "algorithm.algorithmSettings[1].name: unknown setting 'eta' for "
            "random (supported: random_state); "
            "algorithm.algorithmSettings[0].value: random_state must be an "
            "integer, got 'x'");
}

}  // namespace
}  // namespace hpt::suggestion
