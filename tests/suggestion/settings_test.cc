#include "suggestion/settings.h"

#include <gtest/gtest.h>

namespace hpt::suggestion {
namespace {

api::AlgorithmSpec WithSettings(std::vector<api::AlgorithmSetting> settings) {
  api::AlgorithmSpec spec;
  spec.name = "random";
  spec.settings = std::move(settings);
  return spec;
}

TEST(SettingsTest, IntSettingParsesOrNamesTheValue) {
  StatusOr<std::optional<int64_t>> absent = IntSetting(WithSettings({}), "n");
  ASSERT_TRUE(absent.ok());
  EXPECT_FALSE(absent->has_value());

  StatusOr<std::optional<int64_t>> present =
      IntSetting(WithSettings({{"m", "x"}, {"n", "-12"}}), "n");
  ASSERT_TRUE(present.ok());
  EXPECT_EQ(**present, -12);

  StatusOr<std::optional<int64_t>> bad =
      IntSetting(WithSettings({{"m", "x"}, {"n", "3.0"}}), "n");
  ASSERT_FALSE(bad.ok());
  EXPECT_EQ(bad.status().message(),
            "algorithm.algorithmSettings[1].value: n must be an integer, got "
            "'3.0'");
}

TEST(SettingsTest, CheckSettingNamesListsSupported) {
  Status status = CheckSettingNames(WithSettings({{"eta", "3"}, {"x", "1"}}),
                                    "hyperband", {"eta", "r_l"});
  EXPECT_EQ(status.message(),
            "algorithm.algorithmSettings[1].name: unknown setting 'x' for "
            "hyperband (supported: eta, r_l)");
  EXPECT_TRUE(CheckSettingNames(WithSettings({{"r_l", "9"}}), "hyperband",
                                {"eta", "r_l"})
                  .ok());
}

TEST(SettingsTest, RandomStateSeedsRepeatably) {
  EXPECT_EQ(MakeRng(5, 0)(), MakeRng(5, 0)());
  EXPECT_NE(MakeRng(5, 0)(), MakeRng(6, 0)());
  EXPECT_NE(MakeRng(5, 0)(), MakeRng(5, 1)());
}

}  // namespace
}  // namespace hpt::suggestion
