// ClusterEvent: labels, the matching rule, and the events derived from pod and node updates.
#include "host/queue/cluster_event.h"

#include <gtest/gtest.h>

#include <functional>

#include "tests/queue/queue_test_util.h"

namespace sh::queue::cluster_event_test {
namespace {

using testing::ev;
using testing::makeNode;
using testing::makePod;

std::vector<std::string> labels(const std::vector<ClusterEvent>& events) {
  std::vector<std::string> out;
  for (const ClusterEvent& e : events) {
    out.push_back(e.label());
  }
  return out;
}

TEST(ClusterEventTest, Labels) {
  struct Case {
    ClusterEvent event;
    std::string want;
  };
  const Case cases[] = {
      {ev(SH_RESOURCE_NODE, SH_ACTION_ADD), "NodeAdd"},
      {ev(SH_RESOURCE_ASSIGNED_POD, SH_ACTION_DELETE), "AssignedPodDelete"},
      {ev(SH_RESOURCE_UNSCHEDULED_POD, SH_ACTION_UPDATE_POD_LABEL),
       "UnschedulablePodUpdatePodLabel"},
      {ev(SH_RESOURCE_POD, SH_ACTION_UPDATE), "PodUpdate"},
      {ev(SH_RESOURCE_PERSISTENT_VOLUME, SH_ACTION_ALL), "PersistentVolumeAll"},
      {ev(SH_RESOURCE_CSI_NODE, SH_ACTION_ADD), "storage.k8s.io/CSINodeAdd"},
      {ev(SH_RESOURCE_DEVICE_CLASS, SH_ACTION_UPDATE_NODE_DECLARED_FEATURE),
       "resource.k8s.io/DeviceClassUpdateNodeDeclaredFeature"},
      // A combination of actions has no name of its own, as upstream's ActionType.String().
      {ev(SH_RESOURCE_NODE, SH_ACTION_ADD | SH_ACTION_UPDATE_NODE_TAINT), "Node"},
      {ev(SH_RESOURCE_WILDCARD, SH_ACTION_ALL), "*All"},
      {eventUnschedulableTimeout(), "UnschedulableTimeout"},
      {eventForceActivate(), "ForceActivate"},
  };
  for (const Case& c : cases) {
    EXPECT_EQ(c.event.label(), c.want);
  }
  EXPECT_TRUE(eventForceActivate().isWildcard());
  EXPECT_TRUE(eventUnschedulableTimeout().isWildcard());
  EXPECT_FALSE(ev(SH_RESOURCE_WILDCARD, SH_ACTION_ADD).isWildcard());
}

TEST(ClusterEventTest, Matches) {
  struct Case {
    const char* name;
    ClusterEvent registered;
    ClusterEvent incoming;
    bool want;
  };
  const uint32_t kAddTaint = SH_ACTION_ADD | SH_ACTION_UPDATE_NODE_TAINT;
  const Case cases[] = {
      {"registered wildcard matches anything", ev(SH_RESOURCE_WILDCARD, SH_ACTION_ALL),
       ev(SH_RESOURCE_NODE, SH_ACTION_ADD), true},
      {"registered wildcard matches the incoming wildcard", ev(SH_RESOURCE_WILDCARD, SH_ACTION_ALL),
       eventUnschedulableTimeout(), true},
      {"incoming wildcard matches nothing else", ev(SH_RESOURCE_NODE, SH_ACTION_ALL),
       eventForceActivate(), false},
      {"resource wildcard", ev(SH_RESOURCE_WILDCARD, SH_ACTION_ADD),
       ev(SH_RESOURCE_NODE, SH_ACTION_ADD), true},
      {"resource wildcard, incoming All is larger", ev(SH_RESOURCE_WILDCARD, SH_ACTION_ADD),
       eventUnschedulableTimeout(), false},
      {"Pod matches AssignedPod", ev(SH_RESOURCE_POD, SH_ACTION_ADD),
       ev(SH_RESOURCE_ASSIGNED_POD, SH_ACTION_ADD), true},
      {"Pod matches UnschedulablePod", ev(SH_RESOURCE_POD, SH_ACTION_UPDATE),
       ev(SH_RESOURCE_UNSCHEDULED_POD, SH_ACTION_UPDATE_POD_LABEL), true},
      {"AssignedPod does not match Pod", ev(SH_RESOURCE_ASSIGNED_POD, SH_ACTION_ADD),
       ev(SH_RESOURCE_POD, SH_ACTION_ADD), false},
      {"other resource", ev(SH_RESOURCE_NODE, SH_ACTION_ADD), ev(SH_RESOURCE_POD, SH_ACTION_ADD),
       false},
      {"one of the registered actions", ev(SH_RESOURCE_NODE, kAddTaint),
       ev(SH_RESOURCE_NODE, SH_ACTION_UPDATE_NODE_TAINT), true},
      {"disjoint actions", ev(SH_RESOURCE_NODE, SH_ACTION_ADD),
       ev(SH_RESOURCE_NODE, SH_ACTION_UPDATE_NODE_TAINT), false},
      {"specific registration, generic incoming Update",
       ev(SH_RESOURCE_NODE, SH_ACTION_UPDATE_NODE_LABEL), ev(SH_RESOURCE_NODE, SH_ACTION_UPDATE),
       false},
      {"generic registration, specific incoming", ev(SH_RESOURCE_NODE, SH_ACTION_UPDATE),
       ev(SH_RESOURCE_NODE, SH_ACTION_UPDATE_NODE_LABEL), true},
      {"All covers Update", ev(SH_RESOURCE_NODE, SH_ACTION_ALL),
       ev(SH_RESOURCE_NODE, SH_ACTION_UPDATE), true},
      // The rule compares the action masks as numbers, as upstream does.
      {"incoming mask numerically larger", ev(SH_RESOURCE_NODE, SH_ACTION_UPDATE_NODE_TAINT),
       ev(SH_RESOURCE_NODE, kAddTaint), false},
      {"incoming mask numerically smaller but not a subset",
       ev(SH_RESOURCE_NODE, SH_ACTION_UPDATE_NODE_LABEL | SH_ACTION_UPDATE_NODE_TAINT),
       ev(SH_RESOURCE_NODE, SH_ACTION_ADD | SH_ACTION_UPDATE_NODE_LABEL), true},
  };
  for (const Case& c : cases) {
    EXPECT_EQ(matches(c.registered, c.incoming), c.want) << c.name;
  }
  std::vector<ClusterEvent> gating = {ev(SH_RESOURCE_POD, SH_ACTION_UPDATE_POD_LABEL),
                                      ev(SH_RESOURCE_NODE, SH_ACTION_ADD)};
  EXPECT_TRUE(matchesAny(ev(SH_RESOURCE_NODE, SH_ACTION_ADD), gating));
  EXPECT_TRUE(matchesAny(ev(SH_RESOURCE_UNSCHEDULED_POD, SH_ACTION_UPDATE_POD_LABEL), gating));
  EXPECT_FALSE(matchesAny(ev(SH_RESOURCE_NODE, SH_ACTION_DELETE), gating));
  EXPECT_FALSE(matchesAny(eventUnschedulableTimeout(), gating));
  EXPECT_FALSE(matchesAny(ev(SH_RESOURCE_NODE, SH_ACTION_ADD), {}));
}

model::testing::PodWrapper base() {
  auto w = makePod();
  w.name("p").inNamespace("ns").uid("u").label("app", "web").req({{"cpu", "1"}, {"memory", "1Gi"}});
  return w;
}

TEST(ClusterEventTest, PodUpdateEvents) {
  using W = model::testing::PodWrapper;
  struct Case {
    const char* name;
    std::function<W()> old;
    std::function<W()> cur;
    std::vector<std::string> want;
  };
  const Case cases[] = {
      {"nothing the scheduler cares about",
       base,
       [] { return base().priority(10); },
       {"UnschedulablePodUpdate"}},
      {"label changed",
       base,
       [] { return base().label("app", "db"); },
       {"UnschedulablePodUpdatePodLabel"}},
      {"label added",
       base,
       [] { return base().label("tier", "1"); },
       {"UnschedulablePodUpdatePodLabel"}},
      {"assigned pod",
       [] { return base().node("n1"); },
       [] { return base().node("n1").label("app", "db"); },
       {"AssignedPodUpdatePodLabel"}},
      {"request decreased",
       [] {
         auto w = makePod();
         return w.name("p").inNamespace("ns").uid("u").req({{"cpu", "2"}});
       },
       [] {
         auto w = makePod();
         return w.name("p").inNamespace("ns").uid("u").req({{"cpu", "1"}});
       },
       {"UnschedulablePodUpdatePodScaleDown"}},
      {"request increased is a plain update",
       [] {
         auto w = makePod();
         return w.name("p").inNamespace("ns").uid("u").req({{"cpu", "1"}});
       },
       [] {
         auto w = makePod();
         return w.name("p").inNamespace("ns").uid("u").req({{"cpu", "2"}});
       },
       {"UnschedulablePodUpdate"}},
      {"request removed",
       [] {
         auto w = makePod();
         return w.name("p").inNamespace("ns").uid("u").req({{"cpu", "1"}, {"memory", "1Gi"}});
       },
       [] {
         auto w = makePod();
         return w.name("p").inNamespace("ns").uid("u").req({{"cpu", "1"}});
       },
       {"UnschedulablePodUpdatePodScaleDown"}},
      {"extended resource removed",
       [] {
         auto w = makePod();
         return w.name("p").inNamespace("ns").uid("u").req({{"example.com/gpu", "1"}});
       },
       [] {
         auto w = makePod();
         return w.name("p").inNamespace("ns").uid("u").req({{"cpu", "1"}});
       },
       {"UnschedulablePodUpdatePodScaleDown"}},
      {"gates eliminated",
       [] {
         return base().schedulingGates({"a", "b"});
       },
       base,
       {"UnschedulablePodUpdatePodSchedulingGatesEliminated"}},
      {"one gate left",
       [] {
         return base().schedulingGates({"a", "b"});
       },
       [] { return base().schedulingGates({"a"}); },
       {"UnschedulablePodUpdate"}},
      {"toleration added",
       base,
       [] { return base().toleration("k", "Exists", "", "NoSchedule"); },
       {"UnschedulablePodUpdatePodToleration"}},
      {"several at once, in upstream's order",
       [] { return base().schedulingGates({"a"}); },
       [] { return base().label("app", "db").toleration("k", "Exists", "", "NoSchedule"); },
       {"UnschedulablePodUpdatePodLabel", "UnschedulablePodUpdatePodSchedulingGatesEliminated",
        "UnschedulablePodUpdatePodToleration"}},
      {"generated resource claim",
       base,
       [] {
         boost::json::array statuses;
         boost::json::object s;
         s["name"] = "claim";
         s["resourceClaimName"] = "p-claim";
         statuses.push_back(s);
         return base().set({"status", "resourceClaimStatuses"}, statuses);
       },
       {"UnschedulablePodUpdatePodGeneratedResourceClaim"}},
  };
  for (const Case& c : cases) {
    EXPECT_EQ(labels(podUpdateEvents(*c.old().obj(), *c.cur().obj())), c.want) << c.name;
  }
}

NodePtr nodeFrom(model::testing::NodeWrapper w,
                 const std::function<void(boost::json::object&)>& edit = {}) {
  boost::json::value v = w.parseJson();
  if (edit) {
    edit(v.as_object());
  }
  std::string error;
  auto node = model::parseNode(v, error);
  if (!node) {
    throw std::runtime_error(error);
  }
  return node;
}

model::testing::NodeWrapper baseNode() {
  auto w = makeNode();
  w.name("n1").label("zone", "a").capacity({{"cpu", "4"}});
  return w;
}

void conditions(boost::json::object& o, const char* ready, const char* heartbeat) {
  boost::json::object c;
  c["type"] = "Ready";
  c["status"] = ready;
  c["lastHeartbeatTime"] = heartbeat;
  boost::json::array list;
  list.push_back(c);
  o["status"].as_object()["conditions"] = list;
}

TEST(ClusterEventTest, NodeUpdateEvents) {
  struct Case {
    const char* name;
    NodePtr old;
    NodePtr cur;
    std::vector<std::string> want;
  };
  const Case cases[] = {
      {"identical", nodeFrom(baseNode()), nodeFrom(baseNode()), {}},
      {"became schedulable",
       nodeFrom(baseNode().unschedulable(true)),
       nodeFrom(baseNode().unschedulable(false)),
       {"NodeUpdateNodeTaint"}},
      {"became unschedulable", nodeFrom(baseNode()), nodeFrom(baseNode().unschedulable(true)), {}},
      {"allocatable",
       nodeFrom(baseNode()),
       nodeFrom(baseNode().capacity({{"cpu", "8"}})),
       {"NodeUpdateNodeAllocatable"}},
      {"labels",
       nodeFrom(baseNode()),
       nodeFrom(baseNode().label("zone", "b")),
       {"NodeUpdateNodeLabel"}},
      {"taints",
       nodeFrom(baseNode()),
       nodeFrom(baseNode().taint("k", "v", "NoSchedule")),
       {"NodeUpdateNodeTaint"}},
      {"taint effect",
       nodeFrom(baseNode().taint("k", "v", "NoSchedule")),
       nodeFrom(baseNode().taint("k", "v", "NoExecute")),
       {"NodeUpdateNodeTaint"}},
      {"schedulable and tainted: UpdateNodeTaint twice, as upstream",
       nodeFrom(baseNode().unschedulable(true)),
       nodeFrom(baseNode().taint("k", "v", "NoSchedule")),
       {"NodeUpdateNodeTaint", "NodeUpdateNodeTaint"}},
      {"condition status",
       nodeFrom(baseNode(), [](auto& o) { conditions(o, "True", "2024-01-01T00:00:00Z"); }),
       nodeFrom(baseNode(), [](auto& o) { conditions(o, "False", "2024-01-01T00:00:00Z"); }),
       {"NodeUpdateNodeCondition"}},
      {"heartbeat only",
       nodeFrom(baseNode(), [](auto& o) { conditions(o, "True", "2024-01-01T00:00:00Z"); }),
       nodeFrom(baseNode(), [](auto& o) { conditions(o, "True", "2024-01-01T00:00:10Z"); }),
       {}},
      {"annotations",
       nodeFrom(baseNode()),
       nodeFrom(baseNode(),
                [](auto& o) {
                  o["metadata"].as_object()["annotations"] = {{"a", "1"}};
                }),
       {"NodeUpdateNodeAnnotation"}},
      {"empty annotations equal missing ones",
       nodeFrom(baseNode()),
       nodeFrom(baseNode(),
                [](auto& o) { o["metadata"].as_object()["annotations"] = boost::json::object(); }),
       {}},
      {"declared features",
       nodeFrom(baseNode()),
       nodeFrom(baseNode(),
                [](auto& o) {
                  o["status"].as_object()["declaredFeatures"] = boost::json::array({"F1"});
                }),
       {"NodeUpdateNodeDeclaredFeature"}},
      {"images only", nodeFrom(baseNode()), nodeFrom(baseNode().images({{"img:1", 100}})), {}},
      {"several at once",
       nodeFrom(baseNode(), [](auto& o) { conditions(o, "True", "2024-01-01T00:00:00Z"); }),
       nodeFrom(baseNode().label("zone", "b").capacity({{"cpu", "2"}}),
                [](auto& o) { conditions(o, "False", "2024-01-01T00:00:00Z"); }),
       {"NodeUpdateNodeAllocatable", "NodeUpdateNodeLabel", "NodeUpdateNodeCondition"}},
  };
  for (const Case& c : cases) {
    EXPECT_EQ(labels(nodeUpdateEvents(*c.old, *c.cur)), c.want) << c.name;
  }
}

TEST(ClusterEventTest, ToAbiPointsAtTheObjectsViews) {
  PodPtr pod = makePod().name("p").uid("u").obj();
  NodePtr node = makeNode().name("n").obj();
  sh_event_objects objs = toAbi(eventNodeAdd(), nullptr, node);
  EXPECT_EQ(objs.struct_size, sizeof(sh_event_objects));
  EXPECT_EQ(objs.resource, SH_RESOURCE_NODE);
  EXPECT_EQ(objs.actions, SH_ACTION_ADD);
  EXPECT_EQ(objs.old_node, nullptr);
  EXPECT_EQ(objs.new_node, &node->view());
  EXPECT_EQ(objs.new_pod, nullptr);

  objs = toAbi(eventAssignedPodDelete(), pod, nullptr);
  EXPECT_EQ(objs.resource, SH_RESOURCE_ASSIGNED_POD);
  EXPECT_EQ(objs.old_pod, &pod->view());
  EXPECT_EQ(objs.new_pod, nullptr);
}

}  // namespace
}  // namespace sh::queue::cluster_event_test
