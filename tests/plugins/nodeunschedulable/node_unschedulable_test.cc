// NodeUnschedulable: spec.unschedulable nodes, the unschedulable toleration, events.
// Cases after upstream node_unschedulable_test.go.
#include <gtest/gtest.h>

#include <string>
#include <tuple>
#include <vector>

#include "tests/plugins/plugin_test_util.h"

namespace schedhost::testing::node_unschedulable_test {
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
      {"a schedulable node", makePod().name("p").uid("p").obj(), false, true},
      {"an unschedulable node", makePod().name("p").uid("p").obj(), true, false},
      {"tolerating the unschedulable taint",
       makePod().name("p").uid("p").toleration(kTaintKey, "Exists", "", "NoSchedule").obj(), true,
       true},
      {"an empty-effect toleration also tolerates it",
       makePod().name("p").uid("p").toleration(kTaintKey, "Exists", "", "").obj(), true, true},
      {"a NoExecute toleration does not",
       makePod().name("p").uid("p").toleration(kTaintKey, "Exists", "", "NoExecute").obj(), true,
       false},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.name);
    auto result = evaluate({{kUnschedulable, ""}},
                           {makeNode().name("n1").unschedulable(c.unschedulable).obj()}, {}, c.pod);
    auto status = filterStatus(result, "n1", kUnschedulable);
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
  EXPECT_EQ(registrations(plugin),
            (std::vector<std::tuple<int32_t, uint32_t, int32_t>>{
                {SH_RESOURCE_NODE, SH_ACTION_ADD | SH_ACTION_UPDATE_NODE_TAINT, 1},
                {SH_RESOURCE_POD, SH_ACTION_UPDATE_POD_TOLERATION, 1}}));

  PodPtr pod = makePod().name("p").uid("p").obj();
  NodePtr cordoned = makeNode().name("n1").unschedulable(true).obj();
  NodePtr open = makeNode().name("n1").obj();
  const uint32_t taint = SH_ACTION_UPDATE_NODE_TAINT;
  EXPECT_EQ(plugin.hint(0, pod->view(), nodeEvent(SH_ACTION_ADD, nullptr, open)), SH_QUEUE);
  EXPECT_EQ(plugin.hint(0, pod->view(), nodeEvent(SH_ACTION_ADD, nullptr, cordoned)),
            SH_QUEUE_SKIP);
  EXPECT_EQ(plugin.hint(0, pod->view(), nodeEvent(taint, cordoned, open)), SH_QUEUE);
  EXPECT_EQ(plugin.hint(0, pod->view(), nodeEvent(taint, open, open)), SH_QUEUE_SKIP);
  EXPECT_EQ(plugin.hint(0, pod->view(), nodeEvent(taint, open, cordoned)), SH_QUEUE_SKIP);

  const uint32_t toleration = SH_ACTION_UPDATE_POD_TOLERATION;
  PodPtr tolerating =
      makePod().name("p").uid("p").toleration(kTaintKey, "Exists", "", "NoSchedule").obj();
  PodPtr unrelatedToleration =
      makePod().name("p").uid("p").toleration("other", "Exists", "", "NoSchedule").obj();
  PodPtr otherPod =
      makePod().name("q").uid("q").toleration(kTaintKey, "Exists", "", "NoSchedule").obj();
  EXPECT_EQ(plugin.hint(1, pod->view(), podEvent(toleration, pod, tolerating)), SH_QUEUE);
  EXPECT_EQ(plugin.hint(1, pod->view(), podEvent(toleration, pod, unrelatedToleration)),
            SH_QUEUE_SKIP);
  EXPECT_EQ(plugin.hint(1, pod->view(), podEvent(toleration, otherPod, otherPod)), SH_QUEUE_SKIP);
}

}  // namespace
}  // namespace schedhost::testing::node_unschedulable_test
