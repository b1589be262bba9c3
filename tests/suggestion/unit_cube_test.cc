#include "suggestion/unit_cube.h"

#include <gtest/gtest.h>

#include <cmath>
#include <map>
#include <random>
#include <string>

#include "tests/suggestion/spec_builders.h"

namespace hpt::suggestion {
namespace {

using api::Distribution;
using api::ParameterType;
using testing::DoubleParam;
using testing::IntParam;
using testing::ListParam;

// Name=value pairs, comparable with ==.
std::vector<std::string> Text(const api::Assignment& a) {
  std::vector<std::string> out;
  for (const auto& p : a) out.push_back(p.name + "=" + p.value);
  return out;
}

std::vector<api::ParameterSpec> MixedSpace() {
  return {
      DoubleParam("lr", 1e-5, 1e-1, std::nullopt, Distribution::kLogUniform),
      DoubleParam("momentum", 0, 0.99),
      IntParam("layers", 1, 8),
      IntParam("units", 16, 1024, std::nullopt, Distribution::kLogUniform),
      IntParam("batch", 8, 128, 8),
      DoubleParam("dropout", 0, 0.5, 0.1),
      ListParam(ParameterType::kDiscrete, "width", {"64", "8", "32", "16"}),
      ListParam(ParameterType::kCategorical, "opt", {"sgd", "adam", "rmsprop"}),
  };
}

TEST(UnitCubeTest, DimensionCountsOneHotCoordinates) {
  UnitCube cube(MixedSpace());
  EXPECT_EQ(cube.dim(), 10);
  int categorical = 0;
  for (bool c : cube.categorical()) categorical += c;
  EXPECT_EQ(categorical, 3);
  ASSERT_EQ(cube.OneHotBlocks().size(), 1u);
  EXPECT_EQ(cube.OneHotBlocks()[0], std::make_pair(7, 3));
}

// Every parameter type survives point -> assignment -> point -> assignment.
TEST(UnitCubeTest, DecodeEncodeRoundTrips) {
  UnitCube cube(MixedSpace());
  std::mt19937_64 rng(3);
  std::uniform_real_distribution<double> u;
  for (int i = 0; i < 500; ++i) {
    Eigen::VectorXd x(cube.dim());
    for (int d = 0; d < cube.dim(); ++d) x[d] = u(rng);
    api::Assignment a = cube.Decode(x);
    std::optional<Eigen::VectorXd> back = cube.Encode(a);
    ASSERT_TRUE(back.has_value());
    EXPECT_EQ(Text(cube.Decode(*back)), Text(a));
    // Project is the same canonical point, computed without text.
    Eigen::VectorXd projected = cube.Project(x);
    EXPECT_LT((projected - *back).cwiseAbs().maxCoeff(), 1e-12);
    EXPECT_EQ(cube.Project(projected), projected);
  }
}

TEST(UnitCubeTest, ValuesAreWhatEachTypeAllows) {
  UnitCube cube(MixedSpace());
  Eigen::VectorXd x = Eigen::VectorXd::Ones(cube.dim());
  api::Assignment top = cube.Decode(x);
  EXPECT_EQ(top[0].value, "0.1");
  EXPECT_EQ(top[1].value, "0.99");
  EXPECT_EQ(top[2].value, "8");
  EXPECT_EQ(top[3].value, "1024");
  EXPECT_EQ(top[4].value, "128");
  EXPECT_EQ(top[5].value, "0.5");
  EXPECT_EQ(top[6].value, "64");  // the largest value, not the last entry
  x.setZero();
  api::Assignment bottom = cube.Decode(x);
  EXPECT_EQ(bottom[0].value, "1e-05");
  EXPECT_EQ(bottom[1].value, "0");
  EXPECT_EQ(bottom[2].value, "1");
  EXPECT_EQ(bottom[3].value, "16");
  EXPECT_EQ(bottom[6].value, "8");
  EXPECT_EQ(bottom[7].value, "sgd");  // ties go to the first category
  x[8] = 0.5;
  EXPECT_EQ(cube.Decode(x)[7].value, "adam");
}

TEST(UnitCubeTest, LogParametersAreUniformInLogSpace) {
  UnitCube cube(
      {DoubleParam("lr", 1e-4, 1, std::nullopt, Distribution::kLogUniform)});
  Eigen::VectorXd x(1);
  x[0] = 0.5;
  EXPECT_NEAR(std::stod(cube.Decode(x)[0].value), 1e-2, 1e-12);
  EXPECT_NEAR((*cube.Encode({{"lr", "0.001"}}))[0], 0.25, 1e-12);
}

TEST(UnitCubeTest, GridValuesGetEqualCells) {
  UnitCube cube({IntParam("k", 0, 3)});
  std::map<std::string, int> counts;
  for (int i = 0; i < 400; ++i) {
    Eigen::VectorXd x(1);
    x[0] = (i + 0.5) / 400;
    ++counts[cube.Decode(x)[0].value];
  }
  EXPECT_EQ(counts, (std::map<std::string, int>{
                        {"0", 100}, {"1", 100}, {"2", 100}, {"3", 100}}));
  EXPECT_DOUBLE_EQ((*cube.Encode({{"k", "2"}}))[0], 0.625);
}

TEST(UnitCubeTest, EncodeRejectsWhatTheSpaceCannotHold) {
  UnitCube cube(MixedSpace());
  Eigen::VectorXd x = Eigen::VectorXd::Constant(cube.dim(), 0.3);
  api::Assignment a = cube.Decode(x);
  api::Assignment missing(a.begin(), a.end() - 1);
  EXPECT_FALSE(cube.Encode(missing).has_value());
  api::Assignment unknown = a;
  unknown[7].value = "adagrad";
  EXPECT_FALSE(cube.Encode(unknown).has_value());
  api::Assignment text = a;
  text[1].value = "fast";
  EXPECT_FALSE(cube.Encode(text).has_value());
  // Out-of-range numbers (a trial made by hand) are clamped, not rejected.
  api::Assignment wide = a;
  wide[1].value = "7";
  ASSERT_TRUE(cube.Encode(wide).has_value());
  EXPECT_EQ((*cube.Encode(wide))[1], 1.0);
  // Discrete values match by number when the text differs.
  api::Assignment numeric = a;
  numeric[6].value = "32.0";
  ASSERT_TRUE(cube.Encode(numeric).has_value());
  EXPECT_EQ(cube.Decode(*cube.Encode(numeric))[6].value, "32");
}

TEST(UnitCubeTest, SinglePointRanges) {
  UnitCube cube({DoubleParam("a", 2, 2), IntParam("b", 5, 5),
                 ListParam(ParameterType::kCategorical, "c", {"only"})});
  Eigen::VectorXd x = Eigen::VectorXd::Constant(cube.dim(), 0.9);
  api::Assignment a = cube.Decode(x);
  EXPECT_EQ(a[0].value, "2");
  EXPECT_EQ(a[1].value, "5");
  EXPECT_EQ(a[2].value, "only");
  EXPECT_EQ(cube.Project(x), *cube.Encode(a));
}

}  // namespace
}  // namespace hpt::suggestion
