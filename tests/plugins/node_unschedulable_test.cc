// NodeUnschedulable: spec.unschedulable nodes, the unschedulable toleration, events.
// Cases after upstream node_unschedulable_test.go.
#include <gtest/gtest.h>

#include <string>
#include <tuple>
#include <vector>

#include "tests/plugins/plugin_test_util.h"

namespace schedhost::testing {
namespace {

constexpr char kUnschedulable[] = "NodeUnschedulable";
constexpr char kTaintKey[] = "node.kubernetes.io/unschedulable";

TEST(NodeUnschedulableTest, Filter) {
  struct Case {
    std::string name;
    PodPtr pod;
    bool unschedulable;
    bool fits;
  };
  std::vector<Case> cases = {
      {"a schedulable node", MakePod().Name("p").UID("p").Obj(), false, true},
      {"an unschedulable node", MakePod().Name("p").UID("p").Obj(), true, false},
      {"tolerating the unschedulable taint",
       MakePod().Name("p").UID("p").Toleration(kTaintKey, "Exists", "", "NoSchedule").Obj(), true,
       true},
      {"an empty-effect toleration also tolerates it",
       MakePod().Name("p").UID("p").Toleration(kTaintKey, "Exists", "", "").Obj(), true, true},
      {"a NoExecute toleration does not",
       MakePod().Name("p").UID("p").Toleration(kTaintKey, "Exists", "", "NoExecute").Obj(), true,
       false},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.name);
    auto result = Evaluate({{kUnschedulable, ""}},
                           {MakeNode().Name("n1").Unschedulable(c.unschedulable).Obj()}, {}, c.pod);
    auto status = FilterStatus(result, "n1", kUnschedulable);
    if (c.fits) {
      EXPECT_EQ(status.code, "Success");
    } else {
      EXPECT_EQ(status.code, "UnschedulableAndUnresolvable");
      EXPECT_EQ(status.reasons, std::vector<std::string>{"node(s) were unschedulable"});
    }
  }
}

TEST(NodeUnschedulableTest, Events) {
  LoadedPlugin plugin(kUnschedulable);
  EXPECT_EQ(Registrations(plugin),
            (std::vector<std::tuple<int32_t, uint32_t, int32_t>>{
                {SH_RESOURCE_NODE, SH_ACTION_ADD | SH_ACTION_UPDATE_NODE_TAINT, 1},
                {SH_RESOURCE_POD, SH_ACTION_UPDATE_POD_TOLERATION, 1}}));

  PodPtr pod = MakePod().Name("p").UID("p").Obj();
  NodePtr cordoned = MakeNode().Name("n1").Unschedulable(true).Obj();
  NodePtr open = MakeNode().Name("n1").Obj();
  const uint32_t taint = SH_ACTION_UPDATE_NODE_TAINT;
  EXPECT_EQ(plugin.Hint(0, pod->view(), NodeEvent(SH_ACTION_ADD, nullptr, open)), SH_QUEUE);
  EXPECT_EQ(plugin.Hint(0, pod->view(), NodeEvent(SH_ACTION_ADD, nullptr, cordoned)),
            SH_QUEUE_SKIP);
  EXPECT_EQ(plugin.Hint(0, pod->view(), NodeEvent(taint, cordoned, open)), SH_QUEUE);
  EXPECT_EQ(plugin.Hint(0, pod->view(), NodeEvent(taint, open, open)), SH_QUEUE_SKIP);
  EXPECT_EQ(plugin.Hint(0, pod->view(), NodeEvent(taint, open, cordoned)), SH_QUEUE_SKIP);

  const uint32_t toleration = SH_ACTION_UPDATE_POD_TOLERATION;
  PodPtr tolerating =
      MakePod().Name("p").UID("p").Toleration(kTaintKey, "Exists", "", "NoSchedule").Obj();
  PodPtr unrelatedToleration =
      MakePod().Name("p").UID("p").Toleration("other", "Exists", "", "NoSchedule").Obj();
  PodPtr otherPod =
      MakePod().Name("q").UID("q").Toleration(kTaintKey, "Exists", "", "NoSchedule").Obj();
  EXPECT_EQ(plugin.Hint(1, pod->view(), PodEvent(toleration, pod, tolerating)), SH_QUEUE);
  EXPECT_EQ(plugin.Hint(1, pod->view(), PodEvent(toleration, pod, unrelatedToleration)),
            SH_QUEUE_SKIP);
  EXPECT_EQ(plugin.Hint(1, pod->view(), PodEvent(toleration, otherPod, otherPod)), SH_QUEUE_SKIP);
}

}  // namespace
}  // namespace schedhost::testing
