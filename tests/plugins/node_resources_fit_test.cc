// NodeResourcesFit Filter: which resources are insufficient, in which order, with which code.
// Cases follow upstream fit_test.go (TestEnoughRequests and friends), with our own numbers.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "tests/plugins/plugin_test_util.h"

namespace schedhost::testing {
namespace {

using sh::model::testing::ResourceMap;

constexpr char kFit[] = "NodeResourcesFit";

// allocatable: cpu 10m, memory 20, pods 32, example.com/aaa 5, ephemeral-storage 20,
// hugepages-2Mi 5.
NodePtr SmallNode(const std::string& pods = "32") {
  return MakeNode()
      .Name("n1")
      .Capacity({{"cpu", "10m"},
                 {"memory", "20"},
                 {"pods", pods},
                 {"example.com/aaa", "5"},
                 {"ephemeral-storage", "20"},
                 {"hugepages-2Mi", "5"}})
      .Obj();
}

PodPtr Placed(const ResourceMap& requests) {
  return MakePod().Name("placed").UID("placed").Node("n1").Req(requests).Obj();
}

struct FitCase {
  std::string name;
  ResourceMap placed;  // requests of the pod already on n1; none when empty
  PodPtr pod;
  std::string args;
  std::string wantCode;
  std::vector<std::string> wantReasons;
  std::string pods = "32";  // n1's allocatable pods
};

void RunFitCases(const std::vector<FitCase>& cases) {
  for (const FitCase& c : cases) {
    SCOPED_TRACE(c.name);
    std::vector<PodPtr> placed;
    if (!c.placed.empty()) {
      placed.push_back(Placed(c.placed));
    }
    auto result = Evaluate({{kFit, c.args}}, {SmallNode(c.pods)}, placed, c.pod);
    auto status = FilterStatus(result, "n1", kFit);
    EXPECT_EQ(status.code, c.wantCode);
    EXPECT_EQ(status.reasons, c.wantReasons);
  }
}

TEST(FitTest, EnoughRequests) {
  RunFitCases({
      {"no resources requested always fits",
       {{"cpu", "10m"}, {"memory", "20"}},
       MakePod().Name("p").UID("p").Container("img").Obj(),
       "",
       "Success",
       {}},
      {"too many resources fails",
       {{"cpu", "10m"}, {"memory", "20"}},
       MakePod().Name("p").UID("p").Req({{"cpu", "1m"}, {"memory", "1"}}).Obj(),
       "",
       "Unschedulable",
       {"Insufficient cpu", "Insufficient memory"}},
      {"init container's request counts when it is the largest",
       {{"cpu", "8m"}, {"memory", "19"}},
       MakePod()
           .Name("p")
           .UID("p")
           .Req({{"cpu", "1m"}, {"memory", "1"}})
           .InitReq({{"cpu", "3m"}, {"memory", "1"}})
           .Obj(),
       "",
       "Unschedulable",
       {"Insufficient cpu"}},
      {"init container memory counts when it is the largest",
       {{"cpu", "9m"}, {"memory", "19"}},
       MakePod()
           .Name("p")
           .UID("p")
           .Req({{"cpu", "1m"}, {"memory", "1"}})
           .InitReq({{"cpu", "1m"}, {"memory", "3"}})
           .InitReq({{"cpu", "1m"}, {"memory", "2"}})
           .Obj(),
       "",
       "Unschedulable",
       {"Insufficient memory"}},
      {"init containers take the max, not the sum",
       {{"cpu", "9m"}, {"memory", "19"}},
       MakePod()
           .Name("p")
           .UID("p")
           .Req({{"cpu", "1m"}, {"memory", "1"}})
           .InitReq({{"cpu", "1m"}, {"memory", "1"}})
           .InitReq({{"cpu", "1m"}, {"memory", "1"}})
           .Obj(),
       "",
       "Success",
       {}},
      // 1m sidecar + 2m container = 3m > 10m - 8m; a plain init container would need only 2m.
      {"sidecar requests add to the containers'",
       {{"cpu", "8m"}, {"memory", "1"}},
       MakePod().Name("p").UID("p").SidecarReq({{"cpu", "1m"}}).Req({{"cpu", "2m"}}).Obj(),
       "",
       "Unschedulable",
       {"Insufficient cpu"}},
      {"plain init container does not add",
       {{"cpu", "8m"}, {"memory", "1"}},
       MakePod().Name("p").UID("p").InitReq({{"cpu", "1m"}}).Req({{"cpu", "2m"}}).Obj(),
       "",
       "Success",
       {}},
      {"both resources fit",
       {{"cpu", "5m"}, {"memory", "5"}},
       MakePod().Name("p").UID("p").Req({{"cpu", "1m"}, {"memory", "1"}}).Obj(),
       "",
       "Success",
       {}},
      {"equal edge case",
       {{"cpu", "5m"}, {"memory", "19"}},
       MakePod().Name("p").UID("p").Req({{"cpu", "5m"}, {"memory", "1"}}).Obj(),
       "",
       "Success",
       {}},
      {"equal edge case for init container",
       {{"cpu", "5m"}, {"memory", "19"}},
       MakePod()
           .Name("p")
           .UID("p")
           .Req({{"cpu", "4m"}, {"memory", "1"}})
           .InitReq({{"cpu", "5m"}, {"memory", "1"}})
           .Obj(),
       "",
       "Success",
       {}},
      {"overhead counts",
       {{"cpu", "5m"}, {"memory", "5"}},
       MakePod()
           .Name("p")
           .UID("p")
           .Req({{"cpu", "1m"}, {"memory", "1"}})
           .Overhead({{"cpu", "5m"}, {"memory", "1"}})
           .Obj(),
       "",
       "Unschedulable",
       {"Insufficient cpu"}},
      {"pod-level requests replace the containers'",
       {{"cpu", "5m"}, {"memory", "5"}},
       MakePod().Name("p").UID("p").Req({{"cpu", "1m"}}).PodRequests({{"cpu", "6m"}}).Obj(),
       "",
       "Unschedulable",
       {"Insufficient cpu"}},
      // A request above the node's allocatable cannot be helped by preemption.
      {"request above allocatable is unresolvable",
       {{"cpu", "5m"}, {"memory", "5"}},
       MakePod().Name("p").UID("p").Req({{"cpu", "11m"}, {"memory", "1"}}).Obj(),
       "",
       "UnschedulableAndUnresolvable",
       {"Insufficient cpu"}},
      {"one unresolvable resource makes the whole status unresolvable",
       {{"cpu", "5m"}, {"memory", "19"}},
       MakePod().Name("p").UID("p").Req({{"cpu", "6m"}, {"memory", "21"}}).Obj(),
       "",
       "UnschedulableAndUnresolvable",
       {"Insufficient cpu", "Insufficient memory"}},
      {"ephemeral-storage",
       {{"ephemeral-storage", "10"}},
       MakePod().Name("p").UID("p").Req({{"ephemeral-storage", "11"}}).Obj(),
       "",
       "Unschedulable",
       {"Insufficient ephemeral-storage"}},
      {"ephemeral-storage fits",
       {{"ephemeral-storage", "10"}},
       MakePod().Name("p").UID("p").Req({{"ephemeral-storage", "10"}}).Obj(),
       "",
       "Success",
       {}},
  });
}

TEST(FitTest, ScalarResources) {
  RunFitCases({
      {"extended resource fits",
       {},
       MakePod().Name("p").UID("p").Req({{"example.com/aaa", "1"}}).Obj(),
       "",
       "Success",
       {}},
      {"extended resource fits for init container",
       {},
       MakePod().Name("p").UID("p").InitReq({{"example.com/aaa", "1"}}).Container("img").Obj(),
       "",
       "Success",
       {}},
      {"extended resource capacity enforced",
       {},
       MakePod().Name("p").UID("p").Req({{"cpu", "1m"}, {"example.com/aaa", "10"}}).Obj(),
       "",
       "UnschedulableAndUnresolvable",
       {"Insufficient example.com/aaa"}},
      {"extended resource allocatable enforced",
       {{"example.com/aaa", "5"}},
       MakePod().Name("p").UID("p").Req({{"cpu", "1m"}, {"example.com/aaa", "1"}}).Obj(),
       "",
       "Unschedulable",
       {"Insufficient example.com/aaa"}},
      {"extended resource summed over containers",
       {{"example.com/aaa", "2"}},
       MakePod()
           .Name("p")
           .UID("p")
           .Req({{"example.com/aaa", "2"}})
           .Req({{"example.com/aaa", "2"}})
           .Obj(),
       "",
       "Unschedulable",
       {"Insufficient example.com/aaa"}},
      {"extended resource of init containers takes the max",
       {{"example.com/aaa", "2"}},
       MakePod()
           .Name("p")
           .UID("p")
           .InitReq({{"example.com/aaa", "3"}})
           .InitReq({{"example.com/aaa", "3"}})
           .Container("img")
           .Obj(),
       "",
       "Success",
       {}},
      {"unknown extended resource",
       {},
       MakePod().Name("p").UID("p").Req({{"example.com/bbb", "1"}}).Obj(),
       "",
       "UnschedulableAndUnresolvable",
       {"Insufficient example.com/bbb"}},
      {"ignoredResources skips an extended resource",
       {},
       MakePod().Name("p").UID("p").Req({{"example.com/bbb", "1"}}).Obj(),
       R"({"ignoredResources": ["example.com/bbb"]})",
       "Success",
       {}},
      {"ignoredResourceGroups skips a domain",
       {},
       MakePod().Name("p").UID("p").Req({{"example.com/bbb", "1"}}).Obj(),
       R"({"ignoredResourceGroups": ["example.com"]})",
       "Success",
       {}},
      {"ignoredResourceGroups matches the whole domain only",
       {},
       MakePod().Name("p").UID("p").Req({{"example.com/bbb", "1"}}).Obj(),
       R"({"ignoredResourceGroups": ["example"]})",
       "UnschedulableAndUnresolvable",
       {"Insufficient example.com/bbb"}},
      // Only extended resources can be ignored: kubernetes.io names are native.
      {"kubernetes.io resources are never ignored",
       {},
       MakePod().Name("p").UID("p").Req({{"kubernetes.io/something", "1"}}).Obj(),
       R"({"ignoredResources": ["kubernetes.io/something"]})",
       "UnschedulableAndUnresolvable",
       {"Insufficient kubernetes.io/something"}},
      {"subdomain.kubernetes.io resources are never ignored",
       {},
       MakePod().Name("p").UID("p").Req({{"subdomain.kubernetes.io/something", "1"}}).Obj(),
       R"({"ignoredResourceGroups": ["subdomain.kubernetes.io"]})",
       "UnschedulableAndUnresolvable",
       {"Insufficient subdomain.kubernetes.io/something"}},
      {"hugepages capacity enforced",
       {},
       MakePod().Name("p").UID("p").Req({{"hugepages-2Mi", "10"}}).Obj(),
       "",
       "UnschedulableAndUnresolvable",
       {"Insufficient hugepages-2Mi"}},
      {"hugepages allocatable enforced",
       {{"hugepages-2Mi", "2"}},
       MakePod()
           .Name("p")
           .UID("p")
           .Req({{"hugepages-2Mi", "3"}})
           .Req({{"hugepages-2Mi", "1"}})
           .Obj(),
       "",
       "Unschedulable",
       {"Insufficient hugepages-2Mi"}},
  });
}

TEST(FitTest, PodCount) {
  RunFitCases({
      {"too many pods",
       {{"cpu", "1m"}},
       MakePod().Name("p").UID("p").Req({{"cpu", "1m"}}).Obj(),
       "",
       "Unschedulable",
       {"Too many pods"},
       "1"},
      // "Too many pods" never makes the status unresolvable, but cpu above allocatable does.
      {"too many pods comes first",
       {{"cpu", "1m"}},
       MakePod().Name("p").UID("p").Req({{"cpu", "11m"}, {"memory", "21"}}).Obj(),
       "",
       "UnschedulableAndUnresolvable",
       {"Too many pods", "Insufficient cpu", "Insufficient memory"},
       "1"},
      {"too many pods even without requests",
       {{"cpu", "1m"}},
       MakePod().Name("p").UID("p").Container("img").Obj(),
       "",
       "Unschedulable",
       {"Too many pods"},
       "1"},
      {"the last free pod slot fits",
       {},
       MakePod().Name("p").UID("p").Req({{"cpu", "1m"}}).Obj(),
       "",
       "Success",
       {},
       "1"},
  });
}

TEST(FitTest, ReasonsFollowUpstreamOrder) {
  RunFitCases({
      {"every resource short",
       {},
       MakePod()
           .Name("p")
           .UID("p")
           .Req({{"cpu", "11m"},
                 {"memory", "21"},
                 {"ephemeral-storage", "21"},
                 {"example.com/aaa", "6"}})
           .Obj(),
       "",
       "UnschedulableAndUnresolvable",
       {"Insufficient cpu", "Insufficient memory", "Insufficient ephemeral-storage",
        "Insufficient example.com/aaa"}},
  });
}

// The failure reasons of several nodes make up the FitError message, counted per reason.
TEST(FitTest, FitErrorMessage) {
  auto result =
      Evaluate({{kFit, ""}},
               {MakeNode().Name("n1").Capacity({{"cpu", "1"}, {"memory", "1Gi"}}).Obj(),
                MakeNode().Name("n2").Capacity({{"cpu", "4"}, {"memory", "1Gi"}}).Obj()},
               {MakePod().Name("big").UID("big").Node("n2").Req({{"cpu", "3500m"}}).Obj()},
               MakePod().Name("p").UID("p").Req({{"cpu", "2"}, {"memory", "2Gi"}}).Obj());
  EXPECT_FALSE(result.selected.has_value());
  EXPECT_EQ(result.message, "0/2 nodes are available: 2 Insufficient cpu, 2 Insufficient memory.");
}

}  // namespace
}  // namespace schedhost::testing
