// NodeResourcesFit with the RequestedToCapacityRatio strategy: each resource's utilization
// goes through the configured shape (scores ×10), resources scoring 0 are left out, and the
// weighted mean is rounded. Cases after upstream requested_to_capacity_ratio_test.go.
#include <gtest/gtest.h>

#include <string>

#include "tests/plugins/score_test_util.h"

namespace schedhost::testing::requested_to_capacity_ratio_test {
namespace {

constexpr char kFit[] = "NodeResourcesFit";

std::string ratio(const std::string& shape, const std::string& resources = "") {
  std::string out = R"({"scoringStrategy": {"type": "RequestedToCapacityRatio", )";
  if (!resources.empty()) {
    out += R"("resources": )" + resources + ", ";
  }
  return out + R"("requestedToCapacityRatio": {"shape": )" + shape + "}}}";
}

const std::string kBinPacking =
    ratio(R"([{"utilization": 0, "score": 0}, {"utilization": 100, "score": 10}])");
const std::string kSpreading =
    ratio(R"([{"utilization": 0, "score": 10}, {"utilization": 100, "score": 0}])");

TEST(RequestedToCapacityRatioTest, Score) {
  PodPtr pod = makePod().name("p").uid("p").req({{"cpu", "3000m"}, {"memory", "5000"}}).obj();
  runScoreCases(
      kFit,
      {
          // n1: cpu util 3000*100/4000 = 75 → 75, memory util 50 → 50 → round(125/2 = 62.5) = 63
          // n2: cpu util 50 → 50, memory 50 → round(100/2) = 50
          {"bin packing",
           kBinPacking,
           {cpuMemNode("n1", "4000m", "10000"), cpuMemNode("n2", "6000m", "10000")},
           {},
           pod,
           {{"n1", 63}, {"n2", 50}}},
          // n1: cpu 100-75 = 25, memory 50 → round(75/2 = 37.5) = 38; n2: 50
          {"spreading",
           kSpreading,
           {cpuMemNode("n1", "4000m", "10000"), cpuMemNode("n2", "6000m", "10000")},
           {},
           pod,
           {{"n1", 38}, {"n2", 50}}},
          // shape (30, 20) (70, 80): n1 cpu util 75 > 70 → 80,
          // memory util 50 → 20 + (80-20)*(50-30)/(70-30) = 50 → round(130/2) = 65
          // n2: cpu util 50 → 50, memory 50 → 50
          {"custom shape",
           ratio(R"([{"utilization": 30, "score": 2},
                                 {"utilization": 70, "score": 8}])"),
           {cpuMemNode("n1", "4000m", "10000"), cpuMemNode("n2", "6000m", "10000")},
           {},
           pod,
           {{"n1", 65}, {"n2", 50}}},
          // cpu util 1*100/4000 = 0 scores 0 and is left out; memory util 50 → round(50/1) = 50
          {"resources scoring zero are left out",
           kBinPacking,
           {cpuMemNode("n1", "4000m", "10000")},
           {},
           makePod().name("p").uid("p").req({{"cpu", "1m"}, {"memory", "5000"}}).obj(),
           {{"n1", 50}}},
          // cpu util 3999*100/4000 = 99 (truncated), memory util 100 → round(199/2 = 99.5) = 100
          {"utilization truncates, the mean rounds",
           kBinPacking,
           {cpuMemNode("n1", "4000m", "10000")},
           {},
           makePod().name("p").uid("p").req({{"cpu", "3999m"}, {"memory", "10000"}}).obj(),
           {{"n1", 100}}},
          // Placed pods count: cpu util (2000+1000)*100/4000 = 75, memory util 50 → 63
          {"pods already on the node count",
           kBinPacking,
           {cpuMemNode("n1", "4000m", "10000")},
           {placedOn("n1", "a", {{"cpu", "2000m"}, {"memory", "2500"}})},
           makePod().name("p").uid("p").req({{"cpu", "1000m"}, {"memory", "2500"}}).obj(),
           {{"n1", 63}}},
      });
}

TEST(RequestedToCapacityRatioTest, ExtendedResourcesWithWeights) {
  std::string args = R"({"ignoredResources": ["intel.com/foo", "intel.com/bar"],
      "scoringStrategy": {"type": "RequestedToCapacityRatio",
        "resources": [{"name": "intel.com/foo", "weight": 3},
                      {"name": "intel.com/bar", "weight": 5}],
        "requestedToCapacityRatio": {"shape": [{"utilization": 0, "score": 0},
                                               {"utilization": 100, "score": 10}]}}})";
  runScoreCases(
      kFit,
      {
          // n1: foo util 2*100/8 = 25, bar util 2*100/4 = 50 → round((25*3 + 50*5)/8) =
          //     round(325/8 = 40.6) = 41
          // n2 offers neither: no resource takes part → 0
          {"weighted scalar resources",
           args,
           {makeNode().name("n1").capacity({{"intel.com/foo", "8"}, {"intel.com/bar", "4"}}).obj(),
            makeNode().name("n2").obj()},
           {},
           makePod().name("p").uid("p").req({{"intel.com/foo", "2"}, {"intel.com/bar", "2"}}).obj(),
           {{"n1", 41}, {"n2", 0}}},
      });
}

}  // namespace
}  // namespace schedhost::testing::requested_to_capacity_ratio_test
