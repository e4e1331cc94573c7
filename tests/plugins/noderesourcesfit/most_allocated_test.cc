// NodeResourcesFit with the MostAllocated strategy: fuller nodes after placing the pod score
// higher (bin packing). Cases after upstream most_allocated_test.go, our numbers.
#include <gtest/gtest.h>

#include <string>

#include "tests/plugins/score_test_util.h"

namespace schedhost::testing::most_allocated_test {
namespace {

constexpr char kFit[] = "NodeResourcesFit";
constexpr char kMost[] = R"({"scoringStrategy": {"type": "MostAllocated"}})";

TEST(MostAllocatedTest, Score) {
  runScoreCases(
      kFit, {
                // Containers without requests count as 100m cpu and 200Mi memory.
                // n1: cpu 100*100/4000 = 2, memory 200*100/10000 = 2 → (2+2)/2 = 2
                {"nothing scheduled, nothing requested",
                 kMost,
                 {cpuMemNode("n1", "4000m", "10000Mi")},
                 {},
                 makePod().name("p").uid("p").container("img").obj(),
                 {{"n1", 2}}},
                // n1: cpu 3000*100/4000 = 75, memory 5000*100/10000 = 50 → (75+50)/2 = 62
                // n2: cpu 3000*100/6000 = 50, memory 50 → 50
                {"differently sized nodes",
                 kMost,
                 {cpuMemNode("n1", "4000m", "10000"), cpuMemNode("n2", "6000m", "10000")},
                 {},
                 makePod().name("p").uid("p").req({{"cpu", "3000m"}, {"memory", "5000"}}).obj(),
                 {{"n1", 62}, {"n2", 50}}},
                // n1: cpu (3000+3000)*100/10000 = 60, memory (5000+5000)*100/20000 = 50 → 55
                // n2: cpu 60, memory (10000+5000)*100/20000 = 75 → (60+75)/2 = 67
                {"pods already on the nodes count",
                 kMost,
                 {cpuMemNode("n1", "10000m", "20000"), cpuMemNode("n2", "10000m", "20000")},
                 {placedOn("n1", "a", {{"cpu", "3000m"}, {"memory", "5000"}}),
                  placedOn("n2", "b", {{"cpu", "3000m"}, {"memory", "10000"}})},
                 makePod().name("p").uid("p").req({{"cpu", "3000m"}, {"memory", "5000"}}).obj(),
                 {{"n1", 55}, {"n2", 67}}},
                // Placed pods without requests count 3*100m cpu, 3*200Mi memory for scoring.
                // n1: cpu min(300+10, 250)*100/250 = 100, memory (600Mi+1024Mi)*100/10240Mi = 15
                //     → (100+15)/2 = 57
                {"requests above capacity count as full",
                 kMost,
                 {cpuMemNode("n1", "250m", "10Gi")},
                 {placedOn("n1", "a", {}), placedOn("n1", "b", {}), placedOn("n1", "c", {})},
                 makePod().name("p").uid("p").req({{"cpu", "10m"}, {"memory", "1Gi"}}).obj(),
                 {{"n1", 57}}},
                // n1: (75*2 + 50*1)/3 = 66; n2: (50*2 + 50*1)/3 = 50
                {"resource weights",
                 R"({"scoringStrategy": {"type": "MostAllocated", "resources": [
           {"name": "cpu", "weight": 2}, {"name": "memory", "weight": 1}]}})",
                 {cpuMemNode("n1", "4000m", "10000"), cpuMemNode("n2", "6000m", "10000")},
                 {},
                 makePod().name("p").uid("p").req({{"cpu", "3000m"}, {"memory", "5000"}}).obj(),
                 {{"n1", 66}, {"n2", 50}}},
                // n1: cpu 2000*100/4000 = 50, memory 50, gpu 1*100/4 = 25 → (50 + 50 + 25*3)/5 = 35
                // n2 has no gpu: (50+50)/2 = 50
                {"scalar resource",
                 R"({"ignoredResources": ["example.com/gpu"],
           "scoringStrategy": {"type": "MostAllocated", "resources": [
             {"name": "cpu", "weight": 1}, {"name": "memory", "weight": 1},
             {"name": "example.com/gpu", "weight": 3}]}})",
                 {makeNode()
                      .name("n1")
                      .capacity({{"cpu", "4000m"}, {"memory", "10000"}, {"example.com/gpu", "4"}})
                      .obj(),
                  cpuMemNode("n2", "4000m", "10000")},
                 {},
                 makePod()
                     .name("p")
                     .uid("p")
                     .req({{"cpu", "2000m"}, {"memory", "5000"}, {"example.com/gpu", "1"}})
                     .obj(),
                 {{"n1", 35}, {"n2", 50}}},
            });
}

}  // namespace
}  // namespace schedhost::testing::most_allocated_test
