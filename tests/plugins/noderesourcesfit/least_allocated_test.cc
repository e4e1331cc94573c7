// NodeResourcesFit with the LeastAllocated strategy (the default): more free capacity after
// placing the pod scores higher. Cases after upstream least_allocated_test.go, our numbers.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "tests/plugins/score_test_util.h"

namespace schedhost::testing::least_allocated_test {
namespace {

constexpr char kFit[] = "NodeResourcesFit";

TEST(LeastAllocatedTest, Score) {
  runScoreCases(
      kFit,
      {
          // Containers without requests count as 100m cpu and 200Mi memory.
          // n1: cpu (4000-100)*100/4000 = 97, memory (10000-200)*100/10000 = 98 → (97+98)/2 = 97
          {"nothing scheduled, nothing requested",
           "",
           {cpuMemNode("n1", "4000m", "10000Mi"), cpuMemNode("n2", "4000m", "10000Mi")},
           {},
           makePod().name("p").uid("p").container("img").obj(),
           {{"n1", 97}, {"n2", 97}}},
          // n1: cpu (4000-3000)*100/4000 = 25, memory (10000-5000)*100/10000 = 50 → (25+50)/2 = 37
          // n2: cpu (6000-3000)*100/6000 = 50, memory (10000-5000)*100/10000 = 50 → 50
          {"differently sized nodes",
           "",
           {cpuMemNode("n1", "4000m", "10000"), cpuMemNode("n2", "6000m", "10000")},
           {},
           makePod().name("p").uid("p").req({{"cpu", "3000m"}, {"memory", "5000"}}).obj(),
           {{"n1", 37}, {"n2", 50}}},
          // n1: cpu (10000-3000-3000)*100/10000 = 40, memory (20000-5000-5000)*100/20000 = 50
          //     → (40+50)/2 = 45
          // n2: cpu 40, memory (20000-10000-5000)*100/20000 = 25 → (40+25)/2 = 32
          {"pods already on the nodes count",
           "",
           {cpuMemNode("n1", "10000m", "20000"), cpuMemNode("n2", "10000m", "20000")},
           {placedOn("n1", "a", {{"cpu", "3000m"}, {"memory", "5000"}}),
            placedOn("n2", "b", {{"cpu", "3000m"}, {"memory", "10000"}})},
           makePod().name("p").uid("p").req({{"cpu", "3000m"}, {"memory", "5000"}}).obj(),
           {{"n1", 45}, {"n2", 32}}},
          // Three placed pods without requests count 3*100m = 300m cpu and 600Mi memory for scoring
          // (not for Filter). n1: cpu 300+10 > 250 → 0,
          // memory (10240Mi-600Mi-1024Mi)*100/10240Mi = 84 → (0+84)/2 = 42
          {"defaults of placed pods can exceed capacity",
           "",
           {cpuMemNode("n1", "250m", "10Gi")},
           {placedOn("n1", "a", {}), placedOn("n1", "b", {}), placedOn("n1", "c", {})},
           makePod().name("p").uid("p").req({{"cpu", "10m"}, {"memory", "1Gi"}}).obj(),
           {{"n1", 42}}},
          // n1: (25*2 + 50*1)/3 = 33; n2: (50*2 + 50*1)/3 = 50
          {"resource weights",
           R"({"scoringStrategy": {"type": "LeastAllocated", "resources": [
           {"name": "cpu", "weight": 2}, {"name": "memory", "weight": 1}]}})",
           {cpuMemNode("n1", "4000m", "10000"), cpuMemNode("n2", "6000m", "10000")},
           {},
           makePod().name("p").uid("p").req({{"cpu", "3000m"}, {"memory", "5000"}}).obj(),
           {{"n1", 33}, {"n2", 50}}},
      });
}

TEST(LeastAllocatedTest, ExtendedResources) {
  const std::string args = R"({"ignoredResources": ["example.com/gpu"],
      "scoringStrategy": {"type": "LeastAllocated", "resources": [
        {"name": "cpu", "weight": 1}, {"name": "memory", "weight": 1},
        {"name": "example.com/gpu", "weight": 3}]}})";
  auto gpuNode = makeNode()
                     .name("n1")
                     .capacity({{"cpu", "4000m"}, {"memory", "10000"}, {"example.com/gpu", "4"}})
                     .obj();
  runScoreCases(kFit,
                {
                    // n1: cpu (4000-2000)*100/4000 = 50, memory 50, gpu (4-1)*100/4 = 75
                    //     → (50*1 + 50*1 + 75*3)/5 = 325/5 = 65
                    // n2 has no gpu, so gpu takes no part: (50+50)/2 = 50
                    {"scalar resource the pod requests",
                     args,
                     {gpuNode, cpuMemNode("n2", "4000m", "10000")},
                     {},
                     makePod()
                         .name("p")
                         .uid("p")
                         .req({{"cpu", "2000m"}, {"memory", "5000"}, {"example.com/gpu", "1"}})
                         .obj(),
                     {{"n1", 65}, {"n2", 50}}},
                    // A scalar the pod does not request takes no part: (50+50)/2 = 50 on both.
                    {"scalar resource the pod does not request",
                     args,
                     {gpuNode, cpuMemNode("n2", "4000m", "10000")},
                     {},
                     makePod().name("p").uid("p").req({{"cpu", "2000m"}, {"memory", "5000"}}).obj(),
                     {{"n1", 50}, {"n2", 50}}},
                });
}

}  // namespace
}  // namespace schedhost::testing::least_allocated_test
