// NodeResourcesBalancedAllocation: the 1.36 score 50 + (50 + score(with pod) − score(without
// pod)) / 2, where score = int64((1 − std of requested/allocatable fractions) · 100) over actual
// requests. Cases after upstream balanced_allocation_test.go, our numbers (fractions exact in
// binary, so the float arithmetic is plain).
#include <gtest/gtest.h>

#include <string>

#include "tests/plugins/score_test_util.h"

namespace schedhost::testing {
namespace {

constexpr char kBalanced[] = "NodeResourcesBalancedAllocation";

TEST(BalancedAllocationTest, Score) {
  PodPtr pod = MakePod().Name("p").UID("p").Req({{"cpu", "2000m"}, {"memory", "2000"}}).Obj();
  RunScoreCases(
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
           {CpuMemNode("n1", "4000m", "8000"), CpuMemNode("n2", "4000m", "8000"),
            CpuMemNode("n3", "4000m", "8000"), CpuMemNode("n4", "1000m", "8000")},
           {PlacedOn("n2", "a", {{"memory", "4000"}}), PlacedOn("n3", "b", {{"cpu", "2000m"}}),
            PlacedOn("n4", "c", {{"cpu", "2000m"}, {"memory", "4000"}})},
           pod,
           {{"n1", 68}, {"n2", 81}, {"n3", 68}, {"n4", 81}}},
          // with 0.25, 0.25 → 100; without 100 → 50 + (50 + 100 - 100)/2 = 75
          {"a balanced pod on an empty node",
           "",
           {CpuMemNode("n1", "4000m", "8000")},
           {},
           MakePod().Name("p").UID("p").Req({{"cpu", "1000m"}, {"memory", "2000"}}).Obj(),
           {{"n1", 75}}},
          // Actual requests, no scoring defaults: memory 0. with 0.25, 0 → 87 → 68
          {"a pod requesting cpu only",
           "",
           {CpuMemNode("n1", "4000m", "8000")},
           {},
           MakePod().Name("p").UID("p").Req({{"cpu", "1000m"}}).Obj(),
           {{"n1", 68}}},
          // PreScore returns Skip for a pod that requests none of the resources.
          {"best-effort pod is not scored",
           "",
           {CpuMemNode("n1", "4000m", "8000")},
           {},
           MakePod().Name("p").UID("p").Container("img").Obj(),
           {{"n1", -1}}},
      });
}

TEST(BalancedAllocationTest, ThreeResources) {
  RunScoreCases(
      kBalanced,
      {
          // n1: fractions 0.25, 0.5, 0.75 → mean 0.5, std sqrt(0.125/3) = 0.2041 → 79;
          //     without: 0, 0, 0 → 100 → 50 + (50 + 79 - 100)/2 = 50 + 14 = 64
          // n2 offers no gpu, so two resources: 0.25, 0.5 → 87 → 50 + (50 + 87 - 100)/2 = 68
          {"population standard deviation",
           R"({"resources": [{"name": "cpu", "weight": 1}, {"name": "memory", "weight": 1},
                         {"name": "example.com/gpu", "weight": 1}]})",
           {MakeNode()
                .Name("n1")
                .Capacity({{"cpu", "4000m"}, {"memory", "8000"}, {"example.com/gpu", "4"}})
                .Obj(),
            CpuMemNode("n2", "4000m", "8000")},
           {},
           MakePod()
               .Name("p")
               .UID("p")
               .Req({{"cpu", "1000m"}, {"memory", "4000"}, {"example.com/gpu", "3"}})
               .Obj(),
           {{"n1", 64}, {"n2", 68}}},
          // A scalar the pod does not request takes no part: 0.25, 0.5 → 68 on n1 too.
          {"scalar the pod does not request",
           R"({"resources": [{"name": "cpu"}, {"name": "memory"}, {"name": "example.com/gpu"}]})",
           {MakeNode()
                .Name("n1")
                .Capacity({{"cpu", "4000m"}, {"memory", "8000"}, {"example.com/gpu", "4"}})
                .Obj()},
           {},
           MakePod().Name("p").UID("p").Req({{"cpu", "1000m"}, {"memory", "4000"}}).Obj(),
           {{"n1", 68}}},
      });
}

TEST(BalancedAllocationArgsTest, Validation) {
  EXPECT_EQ(ArgsError(kBalanced, ""), "");
  EXPECT_EQ(ArgsError(kBalanced, R"({"resources": [{"name": "cpu", "weight": 0}]})"), "");
  std::string err = ArgsError(kBalanced, R"({"resources": [{"name": "cpu", "weight": 2},
                                                           {"name": "cpu", "weight": 1}]})");
  EXPECT_TRUE(Contains(err, "resources[0].weight: Invalid value: 2: must be 1"));
  EXPECT_TRUE(Contains(err, "resources[1].name: Duplicate value: \"cpu\""));
}

}  // namespace
}  // namespace schedhost::testing
