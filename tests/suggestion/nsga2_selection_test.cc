#include "suggestion/nsga2_selection.h"

#include <gtest/gtest.h>

#include <cmath>
#include <random>
#include <vector>

namespace hpt::suggestion {
namespace {

constexpr double kInf = INFINITY;

TEST(Nsga2SelectionTest, CrowdingDistanceOfAFront) {
  // Objective 1 spans 4, objective 2 spans 5.
  const std::vector<std::vector<double>> front = {
      {0, 5}, {1, 2}, {3, 1}, {4, 0}};
  const std::vector<double> d = CrowdingDistances(front);
  EXPECT_EQ(d[0], kInf);
  EXPECT_EQ(d[3], kInf);
  EXPECT_DOUBLE_EQ(d[1], 3.0 / 4 + 4.0 / 5);  // (3 - 0) / 4 + (5 - 1) / 5
  EXPECT_DOUBLE_EQ(d[2], 3.0 / 4 + 2.0 / 5);  // (4 - 1) / 4 + (2 - 0) / 5
}

TEST(Nsga2SelectionTest, AnObjectiveWithoutRangeAddsNothing) {
  const std::vector<double> d = CrowdingDistances({{1, 7}, {2, 7}, {3, 7}});
  EXPECT_EQ(d[0], kInf);
  EXPECT_DOUBLE_EQ(d[1], 1.0);
  EXPECT_EQ(d[2], kInf);
  EXPECT_EQ(CrowdingDistances({{1, 1}, {1, 1}}), (std::vector<double>{0, 0}));
}

TEST(Nsga2SelectionTest, EliteTakesWholeFrontsThenTheMostIsolated) {
  const std::vector<std::vector<double>> points = {
      {0, 5}, {1, 2}, {3, 1}, {4, 0},  // front 0
      {1, 6}, {2, 3}, {4, 2}, {5, 1},  // front 1: ends 4 and 7
      {9, 9}};                         // front 2
  EXPECT_EQ(SelectElite(points, 6), (std::vector<size_t>{0, 1, 2, 3, 4, 7}));
  EXPECT_EQ(SelectElite(points, 4), (std::vector<size_t>{0, 1, 2, 3}));
  EXPECT_EQ(SelectElite(points, 2), (std::vector<size_t>{0, 3}));
  EXPECT_EQ(SelectElite(points, 20).size(), points.size());

  const RankedPopulation ranked = RankPopulation(points);
  EXPECT_EQ(ranked.rank, (std::vector<int>{0, 0, 0, 0, 1, 1, 1, 1, 2}));
  EXPECT_EQ(ranked.crowding[4], kInf);
  EXPECT_DOUBLE_EQ(ranked.crowding[1], 3.0 / 4 + 4.0 / 5);
}

TEST(Nsga2SelectionTest, TournamentPrefersRankThenCrowding) {
  // 0: rank 0; 1: rank 1 with infinite crowding; 2, 3: rank 1, crowded.
  RankedPopulation ranked{{0, 1, 1, 1}, {1.0, kInf, 0.5, 0.2}};
  std::mt19937_64 rng(11);
  int wins = 0;
  const int draws = 4000;
  for (int i = 0; i < draws; ++i) wins += Tournament(ranked, {0, 1}, rng) == 0;
  // Point 0 wins unless both draws are point 1 (a chance of 1/4).
  EXPECT_NEAR(static_cast<double>(wins) / draws, 0.75, 0.03);
  int isolated = 0;
  for (int i = 0; i < draws; ++i)
    isolated += Tournament(ranked, {1, 2}, rng) == 1;
  EXPECT_NEAR(static_cast<double>(isolated) / draws, 0.75, 0.03);
  for (int i = 0; i < 50; ++i) EXPECT_EQ(Tournament(ranked, {3}, rng), 3u);
}

}  // namespace
}  // namespace hpt::suggestion
