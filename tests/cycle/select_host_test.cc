#include "host/cycle/select_host.h"

#include <gtest/gtest.h>

#include <set>

namespace sh::cycle::select_host_test {
namespace {

TEST(NumFeasibleNodesToFindTest, FollowsUpstreamFormula) {
  EXPECT_EQ(numFeasibleNodesToFind(0, -1, 99), 99u);      // below 100: all
  EXPECT_EQ(numFeasibleNodesToFind(0, -1, 1000), 420u);   // 50 - 1000/125 = 42 %
  EXPECT_EQ(numFeasibleNodesToFind(0, -1, 5000), 500u);   // 50 - 40 = 10 %
  EXPECT_EQ(numFeasibleNodesToFind(0, -1, 6000), 300u);   // 50 - 48 = 2 % -> 5 % floor
  EXPECT_EQ(numFeasibleNodesToFind(0, -1, 1500), 570u);   // 50 - 12 = 38 %
  EXPECT_EQ(numFeasibleNodesToFind(30, -1, 1000), 300u);  // global 30 %
  EXPECT_EQ(numFeasibleNodesToFind(30, 5, 1000), 100u);   // profile 5 % = 50, min 100
  EXPECT_EQ(numFeasibleNodesToFind(100, -1, 1000), 1000u);
}

TEST(SelectHostTest, HighestTotalWins) {
  std::vector<NodeScore> s(3);
  s[0].total = 10;
  s[1].total = 30;
  s[2].total = 20;
  EXPECT_EQ(selectHost(s, 1), 1u);
}

TEST(SelectHostTest, TiesAreSeededAndReproducible) {
  std::vector<NodeScore> s(4);
  s[0].total = 50;
  s[1].total = 10;
  s[2].total = 50;
  s[3].total = 50;
  std::set<std::size_t> picked;
  for (uint64_t seed = 0; seed < 64; ++seed) {
    std::size_t a = selectHost(s, seed);
    EXPECT_EQ(a, selectHost(s, seed));
    EXPECT_NE(a, 1u);
    picked.insert(a);
  }
  EXPECT_EQ(picked, (std::set<std::size_t>{0, 2, 3}));  // every tied node can win
}

}  // namespace
}  // namespace sh::cycle::select_host_test
