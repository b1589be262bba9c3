#include "api/settings.h"

#include <gtest/gtest.h>

namespace hpt::api {
namespace {

using Settings = std::vector<AlgorithmSetting>;

SettingsReader Reader(const Settings& settings,
                      std::vector<std::string> supported) {
  return SettingsReader(settings, kAlgorithmSettingsPath, "hyperband",
                        std::move(supported));
}

TEST(SettingsReaderTest, AbsentSettingsTakeTheirDefaults) {
  Settings none;
  SettingsReader r = Reader(none, {"n", "x", "on", "acq", "random_state"});
  EXPECT_EQ(r.Int("n", 7), 7);
  EXPECT_EQ(r.Number("x", 2.5), 2.5);
  EXPECT_TRUE(r.Bool("on", true));
  EXPECT_EQ(r.Choice("acq", "ei", {"ei", "ucb"}), "ei");
  EXPECT_FALSE(r.OptionalInt("n").has_value());
  EXPECT_FALSE(r.OptionalText("acq").has_value());
  EXPECT_FALSE(r.Seed().has_value());
  EXPECT_FALSE(r.Has("n"));
  EXPECT_TRUE(r.ok());
  EXPECT_TRUE(r.ToStatus().ok());
}

TEST(SettingsReaderTest, ParsesKatibText) {
  Settings given = {{"n", " +12 "},           {"x", "1e-3"},
                    {"on", "FALSE"},          {"acq", " UCB"},
                    {"name", " as written "}, {"random_state", "-4"}};
  SettingsReader r =
      Reader(given, {"n", "x", "on", "acq", "name", "random_state"});
  EXPECT_EQ(r.Int("n", 0), 12);
  EXPECT_EQ(r.Number("x", 0), 1e-3);
  EXPECT_FALSE(r.Bool("on", true));
  EXPECT_EQ(r.Choice("acq", "ei", {"ei", "ucb"}), "ucb");
  EXPECT_EQ(r.OptionalText("name"), " as written ");
  EXPECT_EQ(r.Seed(), -4);
  EXPECT_TRUE(r.ToStatus().ok()) << r.ToStatus().message();
}

TEST(SettingsReaderTest, NamesEveryBadValueWithItsPath) {
  Settings given = {{"n", "3.0"},  {"x", "abc"},   {"on", "yes"},
                    {"acq", "pi"}, {"eta", "inf"}, {"random_state", "1e3"}};
  SettingsReader r =
      Reader(given, {"n", "x", "on", "acq", "eta", "random_state"});
  EXPECT_EQ(r.Int("n", 5), 5);  // the fallback
  EXPECT_EQ(r.Number("x", 1.5), 1.5);
  EXPECT_TRUE(r.Bool("on", true));
  EXPECT_EQ(r.Choice("acq", "ei", {"ei", "ucb", "lcb"}), "ei");
  EXPECT_FALSE(r.OptionalNumber("eta").has_value());
  EXPECT_FALSE(r.Seed().has_value());
  Status status = r.ToStatus();
  EXPECT_EQ(status.code(), StatusCode::kInvalidArgument);
  EXPECT_EQ(status.message(),
            "algorithm.algorithmSettings[0].value: n must be an integer, got "
            "'3.0'; "
            "algorithm.algorithmSettings[1].value: x must be a number, got "
            "'abc'; "
            "algorithm.algorithmSettings[2].value: on must be true or false, "
            "got 'yes'; "
            "algorithm.algorithmSettings[3].value: acq must be one of ei, ucb, "
            "lcb, got 'pi'; "
            "algorithm.algorithmSettings[4].value: eta must be a number, got "
            "'inf'; "
            "algorithm.algorithmSettings[5].value: random_state must be an "
            "integer, got '1e3'");
}

TEST(SettingsReaderTest, BoundsNameTheLimit) {
  Settings given = {{"eta", "1"},  {"r_l", "0.5"}, {"kappa", "-1"},
                    {"top", "11"}, {"n", "0"},     {"m", "99"},
                    {"ok", "2"}};
  SettingsReader r =
      Reader(given, {"eta", "r_l", "kappa", "top", "n", "m", "ok"});
  EXPECT_EQ(r.Number("eta", 3, {.above = 1}), 3);
  EXPECT_FALSE(r.OptionalNumber("r_l", {.min = 1}).has_value());
  EXPECT_EQ(r.Number("kappa", 1.96, {.min = 0}), 1.96);
  EXPECT_EQ(r.Number("top", 1, {.max = 10}), 1);
  EXPECT_EQ(r.Int("n", 3, {.min = 1}), 3);
  EXPECT_EQ(r.Int("m", 3, {.min = 1, .max = 10}), 3);
  EXPECT_EQ(r.Int("ok", 3, {.min = 2, .max = 2}), 2);
  EXPECT_EQ(r.ToStatus().message(),
            "algorithm.algorithmSettings[0].value: eta must be greater than "
            "1, got 1; "
            "algorithm.algorithmSettings[1].value: r_l must be at least 1, got "
            "0.5; "
            "algorithm.algorithmSettings[2].value: kappa must not be negative, "
            "got -1; "
            "algorithm.algorithmSettings[3].value: top must be at most 10, got "
            "11; "
            "algorithm.algorithmSettings[4].value: n must be at least 1, got "
            "0; "
            "algorithm.algorithmSettings[5].value: m must be at most 10, got "
            "99");
}

TEST(SettingsReaderTest, RejectsUnknownNames) {
  Settings given = {{"eta", "3"}, {"x", "1"}, {"s_max", "2"}};
  SettingsReader r = Reader(given, {"eta", "r_l"});
  EXPECT_EQ(r.Number("eta", 0), 3);
  EXPECT_EQ(r.ToStatus().message(),
            "algorithm.algorithmSettings[1].name: unknown setting 'x' for "
            "hyperband (supported: eta, r_l); "
            "algorithm.algorithmSettings[2].name: unknown setting 's_max' for "
            "hyperband (supported: eta, r_l)");

  Settings one = {{"random_state", "1"}};
  SettingsReader none(one, kEarlyStoppingSettingsPath, "grid", {});
  EXPECT_EQ(none.ToStatus().message(),
            "earlyStopping.algorithmSettings[0].name: unknown setting "
            "'random_state' for grid (grid accepts no settings)");
}

// The old copies let the last of a repeated name win (and some checked only
// that one); a repeat is now a mistake to report, whatever the values.
TEST(SettingsReaderTest, RejectsRepeatedNames) {
  Settings given = {{"eta", "2"}, {"r_l", "9"}, {"eta", "4"}, {"eta", "x"}};
  SettingsReader r = Reader(given, {"eta", "r_l"});
  EXPECT_EQ(r.Number("eta", 3), 2);  // the first, checked
  EXPECT_EQ(r.ToStatus().message(),
            "algorithm.algorithmSettings[2].name: 'eta' is already set by "
            "algorithm.algorithmSettings[0]; "
            "algorithm.algorithmSettings[3].name: 'eta' is already set by "
            "algorithm.algorithmSettings[0]");
}

TEST(SettingsReaderTest, CrossChecksNameTheirSetting) {
  Settings given = {{"r_l", "9.5"}};
  SettingsReader r = Reader(given, {"resource_name", "r_l"});
  r.Missing("resource_name", "the parameter that receives the budget");
  r.Invalid("r_l", "r_l must be an integer for int parameter 'epochs'");
  EXPECT_EQ(r.problems().size(), 2u);
  EXPECT_EQ(r.ToStatus().message(),
            "algorithm.algorithmSettings: resource_name is required (the "
            "parameter that receives the budget); "
            "algorithm.algorithmSettings[0].value: r_l must be an integer for "
            "int parameter 'epochs'");
}

TEST(SettingsReaderDeathTest, AskingForAnUndeclaredNameIsABug) {
  Settings none;
  SettingsReader r = Reader(none, {"eta"});
  EXPECT_DEATH(r.Int("n", 1), "HPT_CHECK");
}

}  // namespace
}  // namespace hpt::api
