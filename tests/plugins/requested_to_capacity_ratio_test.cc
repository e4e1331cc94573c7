// NodeResourcesFit with the RequestedToCapacityRatio strategy: each resource's utilization
// goes through the configured shape (scores ×10), resources scoring 0 are left out, and the
// weighted mean is rounded. Cases after upstream requested_to_capacity_ratio_test.go.
#include <gtest/gtest.h>

#include <string>

#include "tests/plugins/score_test_util.h"

namespace schedhost::testing {
namespace {

constexpr char kFit[] = "NodeResourcesFit";

std::string Ratio(const std::string& shape, const std::string& resources = "") {
  std::string out = R"({"scoringStrategy": {"type": "RequestedToCapacityRatio", )";
  if (!resources.empty()) {
    out += R"("resources": )" + resources + ", ";
  }
  return out + R"("requestedToCapacityRatio": {"shape": )" + shape + "}}}";
}

const std::string kBinPacking =
    Ratio(R"([{"utilization": 0, "score": 0}, {"utilization": 100, "score": 10}])");
const std::string kSpreading =
    Ratio(R"([{"utilization": 0, "score": 10}, {"utilization": 100, "score": 0}])");

TEST(RequestedToCapacityRatioTest, Score) {
  PodPtr pod = MakePod().Name("p").UID("p").Req({{"cpu", "3000m"}, {"memory", "5000"}}).Obj();
  RunScoreCases(
      kFit,
      {
          // n1: cpu util 3000*100/4000 = 75 → 75, memory util 50 → 50 → round(125/2 = 62.5) = 63
          // n2: cpu util 50 → 50, memory 50 → round(100/2) = 50
          {"bin packing",
           kBinPacking,
           {CpuMemNode("n1", "4000m", "10000"), CpuMemNode("n2", "6000m", "10000")},
           {},
           pod,
           {{"n1", 63}, {"n2", 50}}},
          // n1: cpu 100-75 = 25, memory 50 → round(75/2 = 37.5) = 38; n2: 50
          {"spreading",
           kSpreading,
           {CpuMemNode("n1", "4000m", "10000"), CpuMemNode("n2", "6000m", "10000")},
           {},
           pod,
           {{"n1", 38}, {"n2", 50}}},
          // shape (30, 20) (70, 80): n1 cpu util 75 > 70 → 80,
          // memory util 50 → 20 + (80-20)*(50-30)/(70-30) = 50 → round(130/2) = 65
          // n2: cpu util 50 → 50, memory 50 → 50
          {"custom shape",
           Ratio(R"([{"utilization": 30, "score": 2},
                                 {"utilization": 70, "score": 8}])"),
           {CpuMemNode("n1", "4000m", "10000"), CpuMemNode("n2", "6000m", "10000")},
           {},
           pod,
           {{"n1", 65}, {"n2", 50}}},
          // cpu util 1*100/4000 = 0 scores 0 and is left out; memory util 50 → round(50/1) = 50
          {"resources scoring zero are left out",
           kBinPacking,
           {CpuMemNode("n1", "4000m", "10000")},
           {},
           MakePod().Name("p").UID("p").Req({{"cpu", "1m"}, {"memory", "5000"}}).Obj(),
           {{"n1", 50}}},
          // cpu util 3999*100/4000 = 99 (truncated), memory util 100 → round(199/2 = 99.5) = 100
          {"utilization truncates, the mean rounds",
           kBinPacking,
           {CpuMemNode("n1", "4000m", "10000")},
           {},
           MakePod().Name("p").UID("p").Req({{"cpu", "3999m"}, {"memory", "10000"}}).Obj(),
           {{"n1", 100}}},
          // Placed pods count: cpu util (2000+1000)*100/4000 = 75, memory util 50 → 63
          {"pods already on the node count",
           kBinPacking,
           {CpuMemNode("n1", "4000m", "10000")},
           {PlacedOn("n1", "a", {{"cpu", "2000m"}, {"memory", "2500"}})},
           MakePod().Name("p").UID("p").Req({{"cpu", "1000m"}, {"memory", "2500"}}).Obj(),
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
  RunScoreCases(
      kFit,
      {
          // n1: foo util 2*100/8 = 25, bar util 2*100/4 = 50 → round((25*3 + 50*5)/8) =
          //     round(325/8 = 40.6) = 41
          // n2 offers neither: no resource takes part → 0
          {"weighted scalar resources",
           args,
           {MakeNode().Name("n1").Capacity({{"intel.com/foo", "8"}, {"intel.com/bar", "4"}}).Obj(),
            MakeNode().Name("n2").Obj()},
           {},
           MakePod().Name("p").UID("p").Req({{"intel.com/foo", "2"}, {"intel.com/bar", "2"}}).Obj(),
           {{"n1", 41}, {"n2", 0}}},
      });
}

}  // namespace
}  // namespace schedhost::testing
