#pragma once
// Conditional search spaces (api/conditions.h) shared by the suggestion
// tests, and the check every suggested assignment must pass.

#include <gtest/gtest.h>

#include <cmath>
#include <cstdlib>
#include <set>
#include <string>
#include <vector>

#include "api/conditions.h"
#include "api/text.h"
#include "tests/suggestion/spec_builders.h"

namespace hpt::suggestion::testing {

inline api::ParameterSpec WithParent(api::ParameterSpec p, std::string parent,
                                     std::vector<std::string> values) {
  p.parent = api::ParentCondition{std::move(parent), std::move(values)};
  return p;
}

// Two always-active numbers (x, y), optimizer {sgd, adam, rmsprop} with
// momentum and nesterov under sgd, dampening under nesterov = no (a
// grandchild), beta1 under adam and rmsprop, and width under layers 2 or 3
// (an int parent).
inline std::vector<api::ParameterSpec> ConditionalParameters() {
  using api::ParameterType;
  return {
      DoubleParam("x", 0, 1),
      IntParam("y", 1, 10),
      ListParam(ParameterType::kCategorical, "optimizer", {"sgd", "adam", "rmsprop"}),
      WithParent(DoubleParam("momentum", 0.5, 0.99), "optimizer", {"sgd"}),
      WithParent(ListParam(ParameterType::kCategorical, "nesterov", {"yes", "no"}), "optimizer",
                 {"sgd"}),
      WithParent(DoubleParam("dampening", 1e-3, 1, std::nullopt, api::Distribution::kLogUniform),
                 "nesterov", {"no"}),
      WithParent(DoubleParam("beta1", 0.8, 0.999), "optimizer", {"adam", "rmsprop"}),
      IntParam("layers", 1, 3),
      WithParent(IntParam("width", 8, 64, 8), "layers", {"2", "3"}),
  };
}

// A finite one: 11 active configurations of optimizer and its children
// (sgd: 3 momenta x (nesterov yes, or no with 2 dampenings); adam: 2
// beta1), times 2 lr and 2 batch: 44.
inline std::vector<api::ParameterSpec> FiniteConditionalParameters() {
  using api::ParameterType;
  return {
      ListParam(ParameterType::kDiscrete, "lr", {"0.1", "0.01"}),
      ListParam(ParameterType::kCategorical, "optimizer", {"sgd", "adam"}),
      WithParent(DoubleParam("momentum", 0.5, 0.9, 0.2), "optimizer", {"sgd"}),
      WithParent(ListParam(ParameterType::kCategorical, "nesterov", {"yes", "no"}), "optimizer",
                 {"sgd"}),
      WithParent(IntParam("dampening", 0, 1), "nesterov", {"no"}),
      WithParent(ListParam(ParameterType::kDiscrete, "beta1", {"0.9", "0.99"}), "optimizer",
                 {"adam"}),
      IntParam("batch", 1, 2),
  };
}
inline constexpr int kFiniteConfigurations = 44;

// Every active parameter once, with a value in its feasible space (and on
// its grid); no inactive one.
inline void ExpectValidAssignment(const std::vector<api::ParameterSpec>& params,
                                  const api::Assignment& a) {
  const std::vector<bool> active = api::ActiveParameters(params, a);
  std::set<std::string> names;
  for (const api::ParameterAssignment& v : a) {
    EXPECT_TRUE(names.insert(v.name).second) << v.name << " is given twice";
  }
  for (size_t i = 0; i < params.size(); ++i) {
    const api::ParameterSpec& p = params[i];
    const std::string* value = api::FindValue(a, p.name);
    if (!active[i]) {
      EXPECT_EQ(value, nullptr) << p.name << " is inactive but has a value";
      continue;
    }
    ASSERT_NE(value, nullptr) << p.name << " is active but has no value";
    const api::FeasibleSpace& fs = p.feasible_space;
    if (p.type == api::ParameterType::kCategorical || p.type == api::ParameterType::kDiscrete) {
      EXPECT_NE(std::find(fs.list.begin(), fs.list.end(), *value), fs.list.end())
          << p.name << " = " << *value;
      continue;
    }
    std::optional<double> v = api::ParseNumber(*value);
    ASSERT_TRUE(v.has_value()) << p.name << " = " << *value;
    EXPECT_GE(*v, *fs.min) << p.name;
    EXPECT_LE(*v, *fs.max) << p.name;
    if (p.type == api::ParameterType::kInt) EXPECT_EQ(*v, std::floor(*v)) << p.name;
    if (fs.step || p.type == api::ParameterType::kInt) {
      const double k = (*v - *fs.min) / fs.step.value_or(1);
      EXPECT_NEAR(k, std::round(k), 1e-9) << p.name << " = " << *value << " is off its grid";
    }
  }
}

}  // namespace hpt::suggestion::testing
