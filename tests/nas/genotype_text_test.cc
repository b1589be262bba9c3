// Genotype's text form and RandomGenotype (no libtorch needed).

#include <gtest/gtest.h>

#include <set>

#include "nas/darts.h"

namespace hpt::nas {
namespace {

Genotype Sample() {
  Genotype g;
  g.normal = {{{"separable_convolution_3x3", 0}, {"max_pooling_3x3", 1}},
              {{"skip_connection", 2}, {"dilated_convolution_5x5", 0}}};
  g.reduce = {{{"avg_pooling_3x3", 1}, {"max_pooling_3x3", 0}},
              {{"separable_convolution_5x5", 2}, {"skip_connection", 1}}};
  return g;
}

TEST(GenotypeText, ToStringIsKatibsForm) {
  EXPECT_EQ(Sample().ToString(),
            "Genotype(normal=[[('separable_convolution_3x3', 0), "
            "('max_pooling_3x3', 1)], [('skip_connection', 2), "
            "('dilated_convolution_5x5', 0)]], normal_concat=range(2, 4), "
            "reduce=[[('avg_pooling_3x3', 1), ('max_pooling_3x3', 0)], "
            "[('separable_convolution_5x5', 2), ('skip_connection', 1)]], "
            "reduce_concat=range(2, 4))");
}

TEST(GenotypeText, RoundTrips) {
  const Genotype g = Sample();
  StatusOr<Genotype> parsed = ParseGenotype(g.ToString());
  ASSERT_TRUE(parsed.ok()) << parsed.status().message();
  EXPECT_EQ(parsed->normal, g.normal);
  EXPECT_EQ(parsed->reduce, g.reduce);
}

TEST(GenotypeText, ReadsKatibsSpacelessFormAndDoubleQuotes) {
  // run_trial.py prints str(genotype).replace(" ", "").
  std::string text = Sample().ToString();
  std::string spaceless;
  for (char c : text) {
    if (c != ' ') spaceless += c;
  }
  StatusOr<Genotype> parsed = ParseGenotype(spaceless);
  ASSERT_TRUE(parsed.ok()) << parsed.status().message();
  EXPECT_EQ(parsed->normal, Sample().normal);
  StatusOr<Genotype> quoted = ParseGenotype(
      "Genotype(normal=[[(\"skip_connection\", 0), (\"max_pooling_3x3\", "
      "1)]], normal_concat=range(2, 3), reduce=[], reduce_concat=range(2, "
      "3))");
  ASSERT_TRUE(quoted.ok()) << quoted.status().message();
  EXPECT_EQ(quoted->normal[0][0].first, "skip_connection");
  EXPECT_TRUE(quoted->reduce.empty());  // a one-layer network's genotype
}

TEST(GenotypeText, RejectsBadText) {
  const std::string good = Sample().ToString();
  for (const std::string& bad : {
           std::string(""),
           std::string("Genotype("),
           good.substr(0, good.size() - 1),
           good + " extra",
           // Node 0 can only read states 0 and 1.
           std::string("Genotype(normal=[[('skip_connection', 2), "
                       "('skip_connection', 1)]], normal_concat=range(2, "
                       "3), reduce=[], reduce_concat=range(2, 3))"),
           // concat does not match the node count.
           std::string("Genotype(normal=[[('skip_connection', 0), "
                       "('skip_connection', 1)]], normal_concat=range(2, "
                       "6), reduce=[], reduce_concat=range(2, 6))"),
           // reduce has another node count.
           std::string("Genotype(normal=[[('skip_connection', 0)]], "
                       "normal_concat=range(2, 3), reduce=[[('a', 0)], "
                       "[('b', 1)]], reduce_concat=range(2, 3))"),
           std::string("Genotype(normal=[], normal_concat=range(2, 2), "
                       "reduce=[], reduce_concat=range(2, 2))"),
           std::string("Genotype(normal=[[('', 0)]], normal_concat=range(2, "
                       "3), reduce=[], reduce_concat=range(2, 3))"),
       }) {
    StatusOr<Genotype> parsed = ParseGenotype(bad);
    EXPECT_FALSE(parsed.ok()) << bad;
    if (!parsed.ok()) {
      EXPECT_EQ(parsed.status().code(), StatusCode::kInvalidArgument);
      EXPECT_NE(parsed.status().message().find("genotype"), std::string::npos);
    }
  }
}

TEST(GenotypeText, RandomGenotypeIsValidAndSeeded) {
  const std::vector<std::string> primitives = {
      "none", "separable_convolution_3x3", "max_pooling_3x3",
      "skip_connection"};
  std::set<std::string> seen_ops;
  for (uint64_t seed = 0; seed < 50; ++seed) {
    const Genotype g = RandomGenotype(primitives, 4, seed);
    ASSERT_EQ(g.normal.size(), 4u);
    ASSERT_EQ(g.reduce.size(), 4u);
    for (const auto* cell : {&g.normal, &g.reduce}) {
      for (size_t node = 0; node < cell->size(); ++node) {
        const auto& inputs = (*cell)[node];
        ASSERT_EQ(inputs.size(), 2u);
        EXPECT_NE(inputs[0].second, inputs[1].second);
        for (const auto& [op, input] : inputs) {
          EXPECT_NE(op, "none");
          EXPECT_GE(input, 0);
          EXPECT_LT(input, 2 + static_cast<int>(node));
          seen_ops.insert(op);
        }
      }
    }
    EXPECT_TRUE(ParseGenotype(g.ToString()).ok());
    EXPECT_EQ(RandomGenotype(primitives, 4, seed).ToString(), g.ToString());
  }
  EXPECT_EQ(seen_ops.size(), 3u);
  EXPECT_NE(RandomGenotype(primitives, 4, 1).ToString(),
            RandomGenotype(primitives, 4, 2).ToString());
}

}  // namespace
}  // namespace hpt::nas
