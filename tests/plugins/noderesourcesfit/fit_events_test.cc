// NodeResourcesFit cluster events and queueing hints (upstream fit_test.go
// Test_isSchedulableAfterPodEvent / Test_isSchedulableAfterNodeChange, our own cases).
#include <gtest/gtest.h>

#include <string>
#include <tuple>
#include <vector>

#include "tests/plugins/plugin_test_util.h"

namespace schedhost::testing::fit_events_test {
namespace {

constexpr char kFit[] = "NodeResourcesFit";
enum : std::size_t { kPodEvents = 0, kNodeEvents = 1 };

TEST(FitEventsTest, Registrations) {
  LoadedPlugin plugin(kFit);
  EXPECT_EQ(registrations(plugin),
            (std::vector<std::tuple<int32_t, uint32_t, int32_t>>{
                {SH_RESOURCE_POD, SH_ACTION_DELETE | SH_ACTION_UPDATE_POD_SCALE_DOWN, 1},
                {SH_RESOURCE_NODE, SH_ACTION_ADD | SH_ACTION_UPDATE_NODE_ALLOCATABLE, 1},
                {SH_RESOURCE_DEVICE_CLASS, SH_ACTION_ADD | SH_ACTION_UPDATE, 0}}));
}

TEST(FitEventsTest, PodEvents) {
  LoadedPlugin plugin(kFit);
  PodPtr pod = makePod().name("p").uid("p").req({{"cpu", "1"}, {"example.com/gpu", "1"}}).obj();
  auto assigned = [](const sh::model::testing::ResourceMap& requests) {
    return makePod().name("a").uid("a").node("n1").req(requests).obj();
  };
  const uint32_t scaleDown = SH_ACTION_UPDATE_POD_SCALE_DOWN;
  struct Case {
    std::string name;
    sh_event_objects event;
    sh_queueing_hint want;
  };
  PodPtr unscheduled = makePod().name("u").uid("u").req({{"cpu", "1"}}).obj();
  PodPtr nominated = makePod().name("u").uid("u").req({{"cpu", "1"}}).nominatedNodeName("n1").obj();
  PodPtr big = assigned({{"cpu", "2"}, {"memory", "2Gi"}, {"example.com/gpu", "2"}});
  PodPtr lessCpu = assigned({{"cpu", "1"}, {"memory", "2Gi"}, {"example.com/gpu", "2"}});
  PodPtr lessMemory = assigned({{"cpu", "2"}, {"memory", "1Gi"}, {"example.com/gpu", "2"}});
  PodPtr lessGpu = assigned({{"cpu", "2"}, {"memory", "2Gi"}, {"example.com/gpu", "1"}});
  PodPtr selfSmaller = makePod().name("p").uid("p").req({{"cpu", "500m"}}).obj();
  PodPtr otherUnscheduled = makePod().name("u").uid("u").req({{"cpu", "500m"}}).obj();
  std::vector<Case> cases = {
      {"an unscheduled pod was deleted", podEvent(SH_ACTION_DELETE, unscheduled, nullptr),
       SH_QUEUE_SKIP},
      {"an assigned pod was deleted", podEvent(SH_ACTION_DELETE, big, nullptr), SH_QUEUE},
      {"a nominated pod was deleted", podEvent(SH_ACTION_DELETE, nominated, nullptr), SH_QUEUE},
      {"the pod itself shrank", podEvent(scaleDown, pod, selfSmaller), SH_QUEUE},
      {"an unscheduled pod shrank", podEvent(scaleDown, unscheduled, otherUnscheduled),
       SH_QUEUE_SKIP},
      {"an assigned pod gave back cpu the pod requests", podEvent(scaleDown, big, lessCpu),
       SH_QUEUE},
      {"an assigned pod gave back memory the pod does not request",
       podEvent(scaleDown, big, lessMemory), SH_QUEUE_SKIP},
      {"an assigned pod gave back a scalar the pod requests", podEvent(scaleDown, big, lessGpu),
       SH_QUEUE},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.name);
    EXPECT_EQ(plugin.hint(kPodEvents, pod->view(), c.event), c.want);
  }
}

TEST(FitEventsTest, NodeEvents) {
  LoadedPlugin plugin(kFit);
  PodPtr pod = makePod().name("p").uid("p").req({{"cpu", "2"}, {"memory", "1Gi"}}).obj();
  auto node = [](const std::string& cpu, const std::string& memory, const std::string& pods) {
    return makeNode().name("n1").capacity({{"cpu", cpu}, {"memory", memory}, {"pods", pods}}).obj();
  };
  NodePtr fits = node("4", "4Gi", "32");
  NodePtr tooSmall = node("1", "4Gi", "32");
  NodePtr moreCpu = node("8", "4Gi", "32");
  NodePtr moreMemory = node("4", "8Gi", "32");
  NodePtr morePods = node("4", "4Gi", "64");
  NodePtr noPods = node("4", "4Gi", "0");
  const uint32_t allocatable = SH_ACTION_UPDATE_NODE_ALLOCATABLE;
  struct Case {
    std::string name;
    sh_event_objects event;
    sh_queueing_hint want;
  };
  std::vector<Case> cases = {
      {"a node that fits was added", nodeEvent(SH_ACTION_ADD, nullptr, fits), SH_QUEUE},
      {"a node too small was added", nodeEvent(SH_ACTION_ADD, nullptr, tooSmall), SH_QUEUE_SKIP},
      {"a node without pod slots was added", nodeEvent(SH_ACTION_ADD, nullptr, noPods),
       SH_QUEUE_SKIP},
      {"a node grew and now fits", nodeEvent(allocatable, tooSmall, fits), SH_QUEUE},
      {"a node grew cpu the pod requests", nodeEvent(allocatable, fits, moreCpu), SH_QUEUE},
      {"a node grew memory the pod requests", nodeEvent(allocatable, fits, moreMemory), SH_QUEUE},
      {"a node grew pod slots", nodeEvent(allocatable, fits, morePods), SH_QUEUE},
      {"a node changed without growing", nodeEvent(allocatable, moreCpu, fits), SH_QUEUE_SKIP},
      {"a node still too small", nodeEvent(allocatable, tooSmall, tooSmall), SH_QUEUE_SKIP},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.name);
    EXPECT_EQ(plugin.hint(kNodeEvents, pod->view(), c.event), c.want);
  }

  // A pod that requests nothing only gains from more pod slots.
  PodPtr empty = makePod().name("e").uid("e").container("img").obj();
  EXPECT_EQ(plugin.hint(kNodeEvents, empty->view(), nodeEvent(allocatable, fits, moreCpu)),
            SH_QUEUE_SKIP);
  EXPECT_EQ(plugin.hint(kNodeEvents, empty->view(), nodeEvent(allocatable, fits, morePods)),
            SH_QUEUE);
}

}  // namespace
}  // namespace schedhost::testing::fit_events_test
