// NodeResourcesFit cluster events and queueing hints (upstream fit_test.go
// Test_isSchedulableAfterPodEvent / Test_isSchedulableAfterNodeChange, our own cases).
#include <gtest/gtest.h>

#include <string>
#include <tuple>
#include <vector>

#include "tests/plugins/plugin_test_util.h"

namespace schedhost::testing {
namespace {

constexpr char kFit[] = "NodeResourcesFit";
enum : std::size_t { kPodEvents = 0, kNodeEvents = 1 };

TEST(FitEventsTest, Registrations) {
  LoadedPlugin plugin(kFit);
  EXPECT_EQ(Registrations(plugin),
            (std::vector<std::tuple<int32_t, uint32_t, int32_t>>{
                {SH_RESOURCE_POD, SH_ACTION_DELETE | SH_ACTION_UPDATE_POD_SCALE_DOWN, 1},
                {SH_RESOURCE_NODE, SH_ACTION_ADD | SH_ACTION_UPDATE_NODE_ALLOCATABLE, 1},
                {SH_RESOURCE_DEVICE_CLASS, SH_ACTION_ADD | SH_ACTION_UPDATE, 0}}));
}

TEST(FitEventsTest, PodEvents) {
  LoadedPlugin plugin(kFit);
  PodPtr pod = MakePod().Name("p").UID("p").Req({{"cpu", "1"}, {"example.com/gpu", "1"}}).Obj();
  auto assigned = [](const sh::model::testing::ResourceMap& requests) {
    return MakePod().Name("a").UID("a").Node("n1").Req(requests).Obj();
  };
  const uint32_t scaleDown = SH_ACTION_UPDATE_POD_SCALE_DOWN;
  struct Case {
    std::string name;
    sh_event_objects event;
    sh_queueing_hint want;
  };
  PodPtr unscheduled = MakePod().Name("u").UID("u").Req({{"cpu", "1"}}).Obj();
  PodPtr nominated = MakePod().Name("u").UID("u").Req({{"cpu", "1"}}).NominatedNodeName("n1").Obj();
  PodPtr big = assigned({{"cpu", "2"}, {"memory", "2Gi"}, {"example.com/gpu", "2"}});
  PodPtr lessCpu = assigned({{"cpu", "1"}, {"memory", "2Gi"}, {"example.com/gpu", "2"}});
  PodPtr lessMemory = assigned({{"cpu", "2"}, {"memory", "1Gi"}, {"example.com/gpu", "2"}});
  PodPtr lessGpu = assigned({{"cpu", "2"}, {"memory", "2Gi"}, {"example.com/gpu", "1"}});
  PodPtr selfSmaller = MakePod().Name("p").UID("p").Req({{"cpu", "500m"}}).Obj();
  PodPtr otherUnscheduled = MakePod().Name("u").UID("u").Req({{"cpu", "500m"}}).Obj();
  std::vector<Case> cases = {
      {"an unscheduled pod was deleted", PodEvent(SH_ACTION_DELETE, unscheduled, nullptr),
       SH_QUEUE_SKIP},
      {"an assigned pod was deleted", PodEvent(SH_ACTION_DELETE, big, nullptr), SH_QUEUE},
      {"a nominated pod was deleted", PodEvent(SH_ACTION_DELETE, nominated, nullptr), SH_QUEUE},
      {"the pod itself shrank", PodEvent(scaleDown, pod, selfSmaller), SH_QUEUE},
      {"an unscheduled pod shrank", PodEvent(scaleDown, unscheduled, otherUnscheduled),
       SH_QUEUE_SKIP},
      {"an assigned pod gave back cpu the pod requests", PodEvent(scaleDown, big, lessCpu),
       SH_QUEUE},
      {"an assigned pod gave back memory the pod does not request",
       PodEvent(scaleDown, big, lessMemory), SH_QUEUE_SKIP},
      {"an assigned pod gave back a scalar the pod requests", PodEvent(scaleDown, big, lessGpu),
       SH_QUEUE},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.name);
    EXPECT_EQ(plugin.Hint(kPodEvents, pod->view(), c.event), c.want);
  }
}

TEST(FitEventsTest, NodeEvents) {
  LoadedPlugin plugin(kFit);
  PodPtr pod = MakePod().Name("p").UID("p").Req({{"cpu", "2"}, {"memory", "1Gi"}}).Obj();
  auto node = [](const std::string& cpu, const std::string& memory, const std::string& pods) {
    return MakeNode().Name("n1").Capacity({{"cpu", cpu}, {"memory", memory}, {"pods", pods}}).Obj();
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
      {"a node that fits was added", NodeEvent(SH_ACTION_ADD, nullptr, fits), SH_QUEUE},
      {"a node too small was added", NodeEvent(SH_ACTION_ADD, nullptr, tooSmall), SH_QUEUE_SKIP},
      {"a node without pod slots was added", NodeEvent(SH_ACTION_ADD, nullptr, noPods),
       SH_QUEUE_SKIP},
      {"a node grew and now fits", NodeEvent(allocatable, tooSmall, fits), SH_QUEUE},
      {"a node grew cpu the pod requests", NodeEvent(allocatable, fits, moreCpu), SH_QUEUE},
      {"a node grew memory the pod requests", NodeEvent(allocatable, fits, moreMemory), SH_QUEUE},
      {"a node grew pod slots", NodeEvent(allocatable, fits, morePods), SH_QUEUE},
      {"a node changed without growing", NodeEvent(allocatable, moreCpu, fits), SH_QUEUE_SKIP},
      {"a node still too small", NodeEvent(allocatable, tooSmall, tooSmall), SH_QUEUE_SKIP},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.name);
    EXPECT_EQ(plugin.Hint(kNodeEvents, pod->view(), c.event), c.want);
  }

  // A pod that requests nothing only gains from more pod slots.
  PodPtr empty = MakePod().Name("e").UID("e").Container("img").Obj();
  EXPECT_EQ(plugin.Hint(kNodeEvents, empty->view(), NodeEvent(allocatable, fits, moreCpu)),
            SH_QUEUE_SKIP);
  EXPECT_EQ(plugin.Hint(kNodeEvents, empty->view(), NodeEvent(allocatable, fits, morePods)),
            SH_QUEUE);
}

}  // namespace
}  // namespace schedhost::testing
