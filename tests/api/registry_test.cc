#include "api/registry.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

namespace hpt {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;

struct Widget {
  virtual ~Widget() = default;
  virtual std::string Kind() const = 0;
};

struct NamedWidget : Widget {
  explicit NamedWidget(std::string k) : kind(std::move(k)) {}
  std::string Kind() const override { return kind; }
  std::string kind;
};

Registry<Widget>::Factory Make(const std::string& kind) {
  return [kind] { return std::make_unique<NamedWidget>(kind); };
}

TEST(Registry, CreatesRegisteredExtensionsByName) {
  Registry<Widget> r;
  ASSERT_TRUE(r.Register("random", Make("random")).ok());
  ASSERT_TRUE(r.Register("grid", Make("grid")).ok());
  auto w = r.Create("grid");
  ASSERT_TRUE(w.ok()) << w.status().ToString();
  EXPECT_EQ((*w)->Kind(), "grid");
  EXPECT_TRUE(r.Contains("random"));
  EXPECT_FALSE(r.Contains("hyperband"));
}

TEST(Registry, EachCreateIsANewInstance) {
  Registry<Widget> r;
  ASSERT_TRUE(r.Register("a", Make("a")).ok());
  auto first = r.Create("a");
  auto second = r.Create("a");
  ASSERT_TRUE(first.ok() && second.ok());
  EXPECT_NE(first->get(), second->get());
}

TEST(Registry, RejectsDoubleRegistration) {
  Registry<Widget> r;
  ASSERT_TRUE(r.Register("random", Make("first")).ok());
  Status again = r.Register("random", Make("second"));
  EXPECT_EQ(again.code(), StatusCode::kAlreadyExists);
  EXPECT_THAT(again.message(), HasSubstr("'random' is already registered"));
  auto w = r.Create("random");
  ASSERT_TRUE(w.ok());
  EXPECT_EQ((*w)->Kind(), "first");
}

TEST(Registry, NamesAreSorted) {
  Registry<Widget> r;
  for (const char* n : {"sobol", "bayesianoptimization", "random", "grid"}) {
    ASSERT_TRUE(r.Register(n, Make(n)).ok());
  }
  EXPECT_THAT(r.Names(), ElementsAre("bayesianoptimization", "grid", "random", "sobol"));
}

TEST(Registry, UnknownNameListsTheSupportedOnes) {
  Registry<Widget> r;
  ASSERT_TRUE(r.Register("random", Make("random")).ok());
  ASSERT_TRUE(r.Register("grid", Make("grid")).ok());
  auto w = r.Create("tpe");
  ASSERT_FALSE(w.ok());
  EXPECT_EQ(w.status().code(), StatusCode::kNotFound);
  EXPECT_EQ(w.status().message(), "'tpe' is not supported (supported: grid, random)");
}

TEST(Registry, EmptyRegistry) {
  Registry<Widget> r;
  EXPECT_TRUE(r.Names().empty());
  EXPECT_FALSE(r.Create("x").ok());
}

}  // namespace
}  // namespace hpt
