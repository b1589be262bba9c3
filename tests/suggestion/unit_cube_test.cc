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
std::vector<std::string> CubeText(const api::Assignment& a) {
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
    EXPECT_EQ(CubeText(cube.Decode(*back)), CubeText(a));
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

// Katib's normal and logNormal, with and without a grid.
std::vector<api::ParameterSpec> NormalSpace() {
  return {
      DoubleParam("x", -2, 4, std::nullopt, Distribution::kNormal),
      DoubleParam("lr", 1e-4, 1, std::nullopt, Distribution::kLogNormal),
      IntParam("n", 0, 12, std::nullopt, Distribution::kNormal),
      IntParam("batch_size", 32, 64, std::nullopt, Distribution::kLogNormal),
      DoubleParam("step", 0.01, 0.05, 0.01, Distribution::kNormal),
      DoubleParam("wd", 0.1, 1.2, 0.3, Distribution::kLogNormal),
  };
}

TEST(UnitCubeTest, NormalDecodeEncodeRoundTrips) {
  UnitCube cube(NormalSpace());
  ASSERT_EQ(cube.dim(), 6);
  std::mt19937_64 rng(5);
  std::uniform_real_distribution<double> u;
  for (int i = 0; i < 2000; ++i) {
    Eigen::VectorXd x(cube.dim());
    for (int d = 0; d < cube.dim(); ++d) x[d] = u(rng);
    api::Assignment a = cube.Decode(x);
    std::optional<Eigen::VectorXd> back = cube.Encode(a);
    ASSERT_TRUE(back.has_value());
    api::Assignment again = cube.Decode(*back);
    // Grid values exactly; continuous ones to within a few ulps (the CDF
    // and its inverse round differently).
    for (int d : {2, 3, 4, 5}) EXPECT_EQ(again[d].value, a[d].value);
    for (int d : {0, 1}) {
      double v = std::stod(a[d].value);
      EXPECT_NEAR(std::stod(again[d].value), v, 1e-14 * std::fabs(v) + 1e-15);
    }
    Eigen::VectorXd projected = cube.Project(x);
    EXPECT_LT((projected - *back).cwiseAbs().maxCoeff(), 1e-12);
    EXPECT_LT((cube.Project(projected) - projected).cwiseAbs().maxCoeff(), 1e-15);
  }
}

TEST(UnitCubeTest, EveryNormalGridValueEncodesToItself) {
  UnitCube cube(NormalSpace());
  Eigen::VectorXd x = Eigen::VectorXd::Constant(cube.dim(), 0.5);
  api::Assignment centre = cube.Decode(x);
  for (int b = 32; b <= 64; ++b) {
    api::Assignment a = centre;
    a[3].value = std::to_string(b);
    EXPECT_EQ(cube.Decode(*cube.Encode(a))[3].value, a[3].value);
  }
  for (const char* v : {"0.01", "0.02", "0.03", "0.04", "0.05"}) {
    api::Assignment a = centre;
    a[4].value = v;
    EXPECT_EQ(cube.Decode(*cube.Encode(a))[4].value, v);
  }
}

TEST(UnitCubeTest, NormalMapsTheCubeThroughItsCdf) {
  UnitCube cube(NormalSpace());
  Eigen::VectorXd x = Eigen::VectorXd::Constant(cube.dim(), 0.5);
  api::Assignment centre = cube.Decode(x);
  EXPECT_EQ(centre[0].value, "1");
  EXPECT_NEAR(std::stod(centre[1].value), 1e-2, 1e-12);
  EXPECT_EQ(centre[2].value, "6");
  EXPECT_EQ(centre[3].value, "45");
  EXPECT_EQ(centre[4].value, "0.03");
  x.setZero();
  EXPECT_EQ(cube.Decode(x)[0].value, "-2");
  EXPECT_EQ(cube.Decode(x)[1].value, "1e-04");
  x.setOnes();
  EXPECT_EQ(cube.Decode(x)[0].value, "4");
  EXPECT_EQ(cube.Decode(x)[3].value, "64");
  api::Assignment a = centre;
  EXPECT_NEAR((*cube.Encode(a))[0], 0.5, 1e-15);
  // Two sigma below the centre: (Phi(-2) - Phi(-3)) / (Phi(3) - Phi(-3));
  // for lr one decade is 1.5 sigma.
  a[0].value = "-1";
  a[1].value = "0.001";
  EXPECT_NEAR((*cube.Encode(a))[0], 0.0214581666, 1e-9);
  EXPECT_NEAR((*cube.Encode(a))[1], 0.0656345030, 1e-9);
  // Out-of-range numbers clamp to the ends.
  a[0].value = "-9";
  EXPECT_EQ((*cube.Encode(a))[0], 0);
}

// Evenly spread cube points decode to the distribution, as Sobol points do.
TEST(UnitCubeTest, EvenCubePointsDecodeToNormalDraws) {
  UnitCube cube(NormalSpace());
  const int n = 1000;
  int within_one_sigma = 0, sixes = 0;
  for (int i = 0; i < n; ++i) {
    Eigen::VectorXd x = Eigen::VectorXd::Constant(cube.dim(), (i + 0.5) / n);
    api::Assignment a = cube.Decode(x);
    within_one_sigma += std::fabs(std::stod(a[0].value) - 1) <= 1;
    sixes += a[2].value == "6";
  }
  EXPECT_NEAR(within_one_sigma / double(n), 0.6845, 0.002);
  EXPECT_NEAR(sixes / double(n), 0.198, 0.002);  // P(|z| < 0.25), sigma 2
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
