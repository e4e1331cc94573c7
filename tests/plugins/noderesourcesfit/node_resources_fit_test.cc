// NodeResourcesFit Filter: which resources are insufficient, in which order, with which code.
// Cases follow upstream fit_test.go (TestEnoughRequests and friends), with our own numbers.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "tests/plugins/plugin_test_util.h"

namespace schedhost::testing::node_resources_fit_test {
namespace {

using sh::model::testing::ResourceMap;

constexpr char kFit[] = "NodeResourcesFit";

// allocatable: cpu 10m, memory 20, pods 32, example.com/aaa 5, ephemeral-storage 20,
// hugepages-2Mi 5.
NodePtr smallNode(const std::string& pods = "32") {
  return makeNode()
      .name("n1")
      .capacity({{"cpu", "10m"},
                 {"memory", "20"},
                 {"pods", pods},
                 {"example.com/aaa", "5"},
                 {"ephemeral-storage", "20"},
                 {"hugepages-2Mi", "5"}})
      .obj();
}

PodPtr placedPod(const ResourceMap& requests) {
  return makePod().name("placed").uid("placed").node("n1").req(requests).obj();
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

void runFitCases(const std::vector<FitCase>& cases) {
  for (const FitCase& c : cases) {
    SCOPED_TRACE(c.name);
    std::vector<PodPtr> placed;
    if (!c.placed.empty()) {
      placed.push_back(placedPod(c.placed));
    }
    auto result = evaluate({{kFit, c.args}}, {smallNode(c.pods)}, placed, c.pod);
    auto status = filterStatus(result, "n1", kFit);
    EXPECT_EQ(status.code, c.wantCode);
    EXPECT_EQ(status.reasons, c.wantReasons);
  }
}

TEST(FitTest, EnoughRequests) {
  runFitCases({
      {"no resources requested always fits",
       {{"cpu", "10m"}, {"memory", "20"}},
       makePod().name("p").uid("p").container("img").obj(),
       "",
       "Success",
       {}},
      {"too many resources fails",
       {{"cpu", "10m"}, {"memory", "20"}},
       makePod().name("p").uid("p").req({{"cpu", "1m"}, {"memory", "1"}}).obj(),
       "",
       "Unschedulable",
       {"Insufficient cpu", "Insufficient memory"}},
      {"init container's request counts when it is the largest",
       {{"cpu", "8m"}, {"memory", "19"}},
       makePod()
           .name("p")
           .uid("p")
           .req({{"cpu", "1m"}, {"memory", "1"}})
           .initReq({{"cpu", "3m"}, {"memory", "1"}})
           .obj(),
       "",
       "Unschedulable",
       {"Insufficient cpu"}},
      {"init container memory counts when it is the largest",
       {{"cpu", "9m"}, {"memory", "19"}},
       makePod()
           .name("p")
           .uid("p")
           .req({{"cpu", "1m"}, {"memory", "1"}})
           .initReq({{"cpu", "1m"}, {"memory", "3"}})
           .initReq({{"cpu", "1m"}, {"memory", "2"}})
           .obj(),
       "",
       "Unschedulable",
       {"Insufficient memory"}},
      {"init containers take the max, not the sum",
       {{"cpu", "9m"}, {"memory", "19"}},
       makePod()
           .name("p")
           .uid("p")
           .req({{"cpu", "1m"}, {"memory", "1"}})
           .initReq({{"cpu", "1m"}, {"memory", "1"}})
           .initReq({{"cpu", "1m"}, {"memory", "1"}})
           .obj(),
       "",
       "Success",
       {}},
      // 1m sidecar + 2m container = 3m > 10m - 8m; a plain init container would need only 2m.
      {"sidecar requests add to the containers'",
       {{"cpu", "8m"}, {"memory", "1"}},
       makePod().name("p").uid("p").sidecarReq({{"cpu", "1m"}}).req({{"cpu", "2m"}}).obj(),
       "",
       "Unschedulable",
       {"Insufficient cpu"}},
      {"plain init container does not add",
       {{"cpu", "8m"}, {"memory", "1"}},
       makePod().name("p").uid("p").initReq({{"cpu", "1m"}}).req({{"cpu", "2m"}}).obj(),
       "",
       "Success",
       {}},
      {"both resources fit",
       {{"cpu", "5m"}, {"memory", "5"}},
       makePod().name("p").uid("p").req({{"cpu", "1m"}, {"memory", "1"}}).obj(),
       "",
       "Success",
       {}},
      {"equal edge case",
       {{"cpu", "5m"}, {"memory", "19"}},
       makePod().name("p").uid("p").req({{"cpu", "5m"}, {"memory", "1"}}).obj(),
       "",
       "Success",
       {}},
      {"equal edge case for init container",
       {{"cpu", "5m"}, {"memory", "19"}},
       makePod()
           .name("p")
           .uid("p")
           .req({{"cpu", "4m"}, {"memory", "1"}})
           .initReq({{"cpu", "5m"}, {"memory", "1"}})
           .obj(),
       "",
       "Success",
       {}},
      {"overhead counts",
       {{"cpu", "5m"}, {"memory", "5"}},
       makePod()
           .name("p")
           .uid("p")
           .req({{"cpu", "1m"}, {"memory", "1"}})
           .overhead({{"cpu", "5m"}, {"memory", "1"}})
           .obj(),
       "",
       "Unschedulable",
       {"Insufficient cpu"}},
      {"pod-level requests replace the containers'",
       {{"cpu", "5m"}, {"memory", "5"}},
       makePod().name("p").uid("p").req({{"cpu", "1m"}}).podRequests({{"cpu", "6m"}}).obj(),
       "",
       "Unschedulable",
       {"Insufficient cpu"}},
      // A request above the node's allocatable cannot be helped by preemption.
      {"request above allocatable is unresolvable",
       {{"cpu", "5m"}, {"memory", "5"}},
       makePod().name("p").uid("p").req({{"cpu", "11m"}, {"memory", "1"}}).obj(),
       "",
       "UnschedulableAndUnresolvable",
       {"Insufficient cpu"}},
      {"one unresolvable resource makes the whole status unresolvable",
       {{"cpu", "5m"}, {"memory", "19"}},
       makePod().name("p").uid("p").req({{"cpu", "6m"}, {"memory", "21"}}).obj(),
       "",
       "UnschedulableAndUnresolvable",
       {"Insufficient cpu", "Insufficient memory"}},
      {"ephemeral-storage",
       {{"ephemeral-storage", "10"}},
       makePod().name("p").uid("p").req({{"ephemeral-storage", "11"}}).obj(),
       "",
       "Unschedulable",
       {"Insufficient ephemeral-storage"}},
      {"ephemeral-storage fits",
       {{"ephemeral-storage", "10"}},
       makePod().name("p").uid("p").req({{"ephemeral-storage", "10"}}).obj(),
       "",
       "Success",
       {}},
  });
}

TEST(FitTest, ScalarResources) {
  runFitCases({
      {"extended resource fits",
       {},
       makePod().name("p").uid("p").req({{"example.com/aaa", "1"}}).obj(),
       "",
       "Success",
       {}},
      {"extended resource fits for init container",
       {},
       makePod().name("p").uid("p").initReq({{"example.com/aaa", "1"}}).container("img").obj(),
       "",
       "Success",
       {}},
      {"extended resource capacity enforced",
       {},
       makePod().name("p").uid("p").req({{"cpu", "1m"}, {"example.com/aaa", "10"}}).obj(),
       "",
       "UnschedulableAndUnresolvable",
       {"Insufficient example.com/aaa"}},
      {"extended resource allocatable enforced",
       {{"example.com/aaa", "5"}},
       makePod().name("p").uid("p").req({{"cpu", "1m"}, {"example.com/aaa", "1"}}).obj(),
       "",
       "Unschedulable",
       {"Insufficient example.com/aaa"}},
      {"extended resource summed over containers",
       {{"example.com/aaa", "2"}},
       makePod()
           .name("p")
           .uid("p")
           .req({{"example.com/aaa", "2"}})
           .req({{"example.com/aaa", "2"}})
           .obj(),
       "",
       "Unschedulable",
       {"Insufficient example.com/aaa"}},
      {"extended resource of init containers takes the max",
       {{"example.com/aaa", "2"}},
       makePod()
           .name("p")
           .uid("p")
           .initReq({{"example.com/aaa", "3"}})
           .initReq({{"example.com/aaa", "3"}})
           .container("img")
           .obj(),
       "",
       "Success",
       {}},
      {"unknown extended resource",
       {},
       makePod().name("p").uid("p").req({{"example.com/bbb", "1"}}).obj(),
       "",
       "UnschedulableAndUnresolvable",
       {"Insufficient example.com/bbb"}},
      {"ignoredResources skips an extended resource",
       {},
       makePod().name("p").uid("p").req({{"example.com/bbb", "1"}}).obj(),
       R"({"ignoredResources": ["example.com/bbb"]})",
       "Success",
       {}},
      {"ignoredResourceGroups skips a domain",
       {},
       makePod().name("p").uid("p").req({{"example.com/bbb", "1"}}).obj(),
       R"({"ignoredResourceGroups": ["example.com"]})",
       "Success",
       {}},
      {"ignoredResourceGroups matches the whole domain only",
       {},
       makePod().name("p").uid("p").req({{"example.com/bbb", "1"}}).obj(),
       R"({"ignoredResourceGroups": ["example"]})",
       "UnschedulableAndUnresolvable",
       {"Insufficient example.com/bbb"}},
      // Only extended resources can be ignored: kubernetes.io names are native.
      {"kubernetes.io resources are never ignored",
       {},
       makePod().name("p").uid("p").req({{"kubernetes.io/something", "1"}}).obj(),
       R"({"ignoredResources": ["kubernetes.io/something"]})",
       "UnschedulableAndUnresolvable",
       {"Insufficient kubernetes.io/something"}},
      {"subdomain.kubernetes.io resources are never ignored",
       {},
       makePod().name("p").uid("p").req({{"subdomain.kubernetes.io/something", "1"}}).obj(),
       R"({"ignoredResourceGroups": ["subdomain.kubernetes.io"]})",
       "UnschedulableAndUnresolvable",
       {"Insufficient subdomain.kubernetes.io/something"}},
      {"hugepages capacity enforced",
       {},
       makePod().name("p").uid("p").req({{"hugepages-2Mi", "10"}}).obj(),
       "",
       "UnschedulableAndUnresolvable",
       {"Insufficient hugepages-2Mi"}},
      {"hugepages allocatable enforced",
       {{"hugepages-2Mi", "2"}},
       makePod()
           .name("p")
           .uid("p")
           .req({{"hugepages-2Mi", "3"}})
           .req({{"hugepages-2Mi", "1"}})
           .obj(),
       "",
       "Unschedulable",
       {"Insufficient hugepages-2Mi"}},
  });
}

TEST(FitTest, PodCount) {
  runFitCases({
      {"too many pods",
       {{"cpu", "1m"}},
       makePod().name("p").uid("p").req({{"cpu", "1m"}}).obj(),
       "",
       "Unschedulable",
       {"Too many pods"},
       "1"},
      // "Too many pods" never makes the status unresolvable, but cpu above allocatable does.
      {"too many pods comes first",
       {{"cpu", "1m"}},
       makePod().name("p").uid("p").req({{"cpu", "11m"}, {"memory", "21"}}).obj(),
       "",
       "UnschedulableAndUnresolvable",
       {"Too many pods", "Insufficient cpu", "Insufficient memory"},
       "1"},
      {"too many pods even without requests",
       {{"cpu", "1m"}},
       makePod().name("p").uid("p").container("img").obj(),
       "",
       "Unschedulable",
       {"Too many pods"},
       "1"},
      {"the last free pod slot fits",
       {},
       makePod().name("p").uid("p").req({{"cpu", "1m"}}).obj(),
       "",
       "Success",
       {},
       "1"},
  });
}

TEST(FitTest, ReasonsFollowUpstreamOrder) {
  runFitCases({
      {"every resource short",
       {},
       makePod()
           .name("p")
           .uid("p")
           .req({{"cpu", "11m"},
                 {"memory", "21"},
                 {"ephemeral-storage", "21"},
                 {"example.com/aaa", "6"}})
           .obj(),
       "",
       "UnschedulableAndUnresolvable",
       {"Insufficient cpu", "Insufficient memory", "Insufficient ephemeral-storage",
        "Insufficient example.com/aaa"}},
  });
}

// The failure reasons of several nodes make up the FitError message, counted per reason.
TEST(FitTest, FitErrorMessage) {
  auto result =
      evaluate({{kFit, ""}},
               {makeNode().name("n1").capacity({{"cpu", "1"}, {"memory", "1Gi"}}).obj(),
                makeNode().name("n2").capacity({{"cpu", "4"}, {"memory", "1Gi"}}).obj()},
               {makePod().name("big").uid("big").node("n2").req({{"cpu", "3500m"}}).obj()},
               makePod().name("p").uid("p").req({{"cpu", "2"}, {"memory", "2Gi"}}).obj());
  EXPECT_FALSE(result.selected.has_value());
  EXPECT_EQ(result.message, "0/2 nodes are available: 2 Insufficient cpu, 2 Insufficient memory.");
}

}  // namespace
}  // namespace schedhost::testing::node_resources_fit_test
