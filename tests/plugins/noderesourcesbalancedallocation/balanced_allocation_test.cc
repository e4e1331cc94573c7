// NodeResourcesBalancedAllocation: the 1.36 score 50 + (50 + score(with pod) − score(without
// pod)) / 2, where score = int64((1 − std of requested/allocatable fractions) · 100) over actual
// requests. Cases after upstream balanced_allocation_test.go, our numbers (fractions exact in
// binary, so the float arithmetic is plain).
#include <gtest/gtest.h>

#include <string>

#include "tests/plugins/score_test_util.h"

namespace schedhost::testing::balanced_allocation_test {
namespace {

constexpr char kBalanced[] = "NodeResourcesBalancedAllocation";

TEST(BalancedAllocationTest, Score) {
  PodPtr pod = makePod().name("p").uid("p").req({{"cpu", "2000m"}, {"memory", "2000"}}).obj();
  runScoreCases(
      kBalanced,
      {
          // Only this plugin runs, so no Filter rejects the over-committed n4.
          // n1 (empty): with 2000/4000 = 0.5, 2000/8000 = 0.25 → std 0.125 → 87;
          //     without 0, 0 → 100 → 50 + (50 + 87 - 100)/2 = 50 + 18 = 68
          // n2 (memory 4000 placed): without 0, 0.5 → std 0.25 → 75; with 0.5, 0.75 → 87
          //     → 50 + (50 + 87 - 75)/2 = 50 + 31 = 81
          // n3 (cpu 2000m placed): without 0.5, 0 → 75; with 1.0, 0.25 → std 0.375 → 62
          //     → 50 + (50 + 62 - 75)/2 = 50 + 18 = 68
          // n4 (1000m cpu, 2000m + 4000 placed): fractions capped at 1: without 1, 0.5 → 75;
          //     with 1, 0.75 → 87 → 81
          {"with and without the pod",
           "",
           {cpuMemNode("n1", "4000m", "8000"), cpuMemNode("n2", "4000m", "8000"),
            cpuMemNode("n3", "4000m", "8000"), cpuMemNode("n4", "1000m", "8000")},
           {placedOn("n2", "a", {{"memory", "4000"}}), placedOn("n3", "b", {{"cpu", "2000m"}}),
            placedOn("n4", "c", {{"cpu", "2000m"}, {"memory", "4000"}})},
           pod,
           {{"n1", 68}, {"n2", 81}, {"n3", 68}, {"n4", 81}}},
          // with 0.25, 0.25 → 100; without 100 → 50 + (50 + 100 - 100)/2 = 75
          {"a balanced pod on an empty node",
           "",
           {cpuMemNode("n1", "4000m", "8000")},
           {},
           makePod().name("p").uid("p").req({{"cpu", "1000m"}, {"memory", "2000"}}).obj(),
           {{"n1", 75}}},
          // Actual requests, no scoring defaults: memory 0. with 0.25, 0 → 87 → 68
          {"a pod requesting cpu only",
           "",
           {cpuMemNode("n1", "4000m", "8000")},
           {},
           makePod().name("p").uid("p").req({{"cpu", "1000m"}}).obj(),
           {{"n1", 68}}},
          // PreScore returns Skip for a pod that requests none of the resources.
          {"best-effort pod is not scored",
           "",
           {cpuMemNode("n1", "4000m", "8000")},
           {},
           makePod().name("p").uid("p").container("img").obj(),
           {{"n1", -1}}},
      });
}

TEST(BalancedAllocationTest, ThreeResources) {
  runScoreCases(
      kBalanced,
      {
          // n1: fractions 0.25, 0.5, 0.75 → mean 0.5, std sqrt(0.125/3) = 0.2041 → 79;
          //     without: 0, 0, 0 → 100 → 50 + (50 + 79 - 100)/2 = 50 + 14 = 64
          // n2 offers no gpu, so two resources: 0.25, 0.5 → 87 → 50 + (50 + 87 - 100)/2 = 68
          {"population standard deviation",
           R"({"resources": [{"name": "cpu", "weight": 1}, {"name": "memory", "weight": 1},
                         {"name": "example.com/gpu", "weight": 1}]})",
           {makeNode()
                .name("n1")
                .capacity({{"cpu", "4000m"}, {"memory", "8000"}, {"example.com/gpu", "4"}})
                .obj(),
            cpuMemNode("n2", "4000m", "8000")},
           {},
           makePod()
               .name("p")
               .uid("p")
               .req({{"cpu", "1000m"}, {"memory", "4000"}, {"example.com/gpu", "3"}})
               .obj(),
           {{"n1", 64}, {"n2", 68}}},
          // A scalar the pod does not request takes no part: 0.25, 0.5 → 68 on n1 too.
          {"scalar the pod does not request",
           R"({"resources": [{"name": "cpu"}, {"name": "memory"}, {"name": "example.com/gpu"}]})",
           {makeNode()
                .name("n1")
                .capacity({{"cpu", "4000m"}, {"memory", "8000"}, {"example.com/gpu", "4"}})
                .obj()},
           {},
           makePod().name("p").uid("p").req({{"cpu", "1000m"}, {"memory", "4000"}}).obj(),
           {{"n1", 68}}},
      });
}

TEST(BalancedAllocationArgsTest, Validation) {
  EXPECT_EQ(argsError(kBalanced, ""), "");
  EXPECT_EQ(argsError(kBalanced, R"({"resources": [{"name": "cpu", "weight": 0}]})"), "");
  std::string err = argsError(kBalanced, R"({"resources": [{"name": "cpu", "weight": 2},
                                                           {"name": "cpu", "weight": 1}]})");
  EXPECT_TRUE(contains(err, "resources[0].weight: Invalid value: 2: must be 1"));
  EXPECT_TRUE(contains(err, "resources[1].name: Duplicate value: \"cpu\""));
}

}  // namespace
}  // namespace schedhost::testing::balanced_allocation_test
