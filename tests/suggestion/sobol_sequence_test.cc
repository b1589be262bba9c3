#include "suggestion/sobol_sequence.h"

#include <gtest/gtest.h>

#include <set>
#include <vector>

namespace hpt::suggestion {
namespace {

TEST(SobolSequenceTest, PointsLieInTheHalfOpenCube) {
  SobolSequence sobol(7, 42);
  std::vector<double> points = sobol.Points(0, 1000);
  for (double v : points) {
    EXPECT_GE(v, 0.0);
    EXPECT_LT(v, 1.0);
  }
}

TEST(SobolSequenceTest, SameSeedSamePointsOtherSeedOtherPoints) {
  std::vector<double> a = SobolSequence(3, 1).Points(0, 64);
  std::vector<double> b = SobolSequence(3, 1).Points(0, 64);
  std::vector<double> c = SobolSequence(3, 2).Points(0, 64);
  EXPECT_EQ(a, b);
  EXPECT_NE(a, c);
}

TEST(SobolSequenceTest, PointsCanBeReadFromAnyIndex) {
  SobolSequence sobol(4, 9);
  std::vector<double> all = sobol.Points(0, 40);
  std::vector<double> tail = sobol.Points(17, 23);
  EXPECT_EQ(std::vector<double>(all.begin() + 17 * 4, all.end()), tail);
  std::vector<double> one(4);
  sobol.Point(5, one.data());
  EXPECT_EQ(std::vector<double>(all.begin() + 20, all.begin() + 24), one);
}

// The scramble keeps Sobol's stratification: 2^m points starting at a
// multiple of 2^m fall one per cell of every 1-D projection, and for the
// first two coordinates one per cell of a 2^(m/2) x 2^(m/2) grid.
TEST(SobolSequenceTest, ScrambledPointsStayStratified) {
  for (uint64_t seed : {1u, 2u, 3u}) {
    SobolSequence sobol(5, seed);
    const int n = 64;
    for (uint64_t first : {uint64_t{0}, uint64_t{64}, uint64_t{640}}) {
      std::vector<double> p = sobol.Points(first, n);
      for (int d = 0; d < 5; ++d) {
        std::set<int> cells;
        for (int i = 0; i < n; ++i)
          cells.insert(static_cast<int>(p[i * 5 + d] * n));
        EXPECT_EQ(cells.size(), static_cast<size_t>(n)) << "dimension " << d;
      }
      std::set<std::pair<int, int>> boxes;
      for (int i = 0; i < n; ++i) {
        boxes.insert({static_cast<int>(p[i * 5] * 8),
                      static_cast<int>(p[i * 5 + 1] * 8)});
      }
      EXPECT_EQ(boxes.size(), static_cast<size_t>(n));
    }
  }
}

TEST(SobolSequenceTest, ManyDimensions) {
  SobolSequence sobol(SobolSequence::kMaxDimension, 5);
  std::vector<double> p = sobol.Points(0, 2);
  ASSERT_EQ(p.size(), 2u * SobolSequence::kMaxDimension);
  for (double v : p) {
    EXPECT_GE(v, 0.0);
    EXPECT_LT(v, 1.0);
  }
}

}  // namespace
}  // namespace hpt::suggestion
