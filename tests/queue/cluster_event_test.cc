// ClusterEvent: labels, the matching rule, and the events derived from pod and node updates.
#include "host/queue/cluster_event.h"

#include <gtest/gtest.h>

#include <functional>

#include "tests/queue/queue_test_util.h"

namespace sh::queue {
namespace {

using testing::MakeNode;
using testing::MakePod;

ClusterEvent Ev(sh_event_resource r, uint32_t actions) { return ClusterEvent{r, actions, {}}; }

std::vector<std::string> Labels(const std::vector<ClusterEvent>& events) {
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
      {Ev(SH_RESOURCE_NODE, SH_ACTION_ADD), "NodeAdd"},
      {Ev(SH_RESOURCE_ASSIGNED_POD, SH_ACTION_DELETE), "AssignedPodDelete"},
      {Ev(SH_RESOURCE_UNSCHEDULED_POD, SH_ACTION_UPDATE_POD_LABEL),
       "UnschedulablePodUpdatePodLabel"},
      {Ev(SH_RESOURCE_POD, SH_ACTION_UPDATE), "PodUpdate"},
      {Ev(SH_RESOURCE_PERSISTENT_VOLUME, SH_ACTION_ALL), "PersistentVolumeAll"},
      {Ev(SH_RESOURCE_CSI_NODE, SH_ACTION_ADD), "storage.k8s.io/CSINodeAdd"},
      {Ev(SH_RESOURCE_DEVICE_CLASS, SH_ACTION_UPDATE_NODE_DECLARED_FEATURE),
       "resource.k8s.io/DeviceClassUpdateNodeDeclaredFeature"},
      // A combination of actions has no name of its own, as upstream's ActionType.String().
      {Ev(SH_RESOURCE_NODE, SH_ACTION_ADD | SH_ACTION_UPDATE_NODE_TAINT), "Node"},
      {Ev(SH_RESOURCE_WILDCARD, SH_ACTION_ALL), "*All"},
      {eventUnschedulableTimeout(), "UnschedulableTimeout"},
      {eventForceActivate(), "ForceActivate"},
  };
  for (const Case& c : cases) {
    EXPECT_EQ(c.event.label(), c.want);
  }
  EXPECT_TRUE(eventForceActivate().isWildcard());
  EXPECT_TRUE(eventUnschedulableTimeout().isWildcard());
  EXPECT_FALSE(Ev(SH_RESOURCE_WILDCARD, SH_ACTION_ADD).isWildcard());
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
      {"registered wildcard matches anything", Ev(SH_RESOURCE_WILDCARD, SH_ACTION_ALL),
       Ev(SH_RESOURCE_NODE, SH_ACTION_ADD), true},
      {"registered wildcard matches the incoming wildcard", Ev(SH_RESOURCE_WILDCARD, SH_ACTION_ALL),
       eventUnschedulableTimeout(), true},
      {"incoming wildcard matches nothing else", Ev(SH_RESOURCE_NODE, SH_ACTION_ALL),
       eventForceActivate(), false},
      {"resource wildcard", Ev(SH_RESOURCE_WILDCARD, SH_ACTION_ADD),
       Ev(SH_RESOURCE_NODE, SH_ACTION_ADD), true},
      {"resource wildcard, incoming All is larger", Ev(SH_RESOURCE_WILDCARD, SH_ACTION_ADD),
       eventUnschedulableTimeout(), false},
      {"Pod matches AssignedPod", Ev(SH_RESOURCE_POD, SH_ACTION_ADD),
       Ev(SH_RESOURCE_ASSIGNED_POD, SH_ACTION_ADD), true},
      {"Pod matches UnschedulablePod", Ev(SH_RESOURCE_POD, SH_ACTION_UPDATE),
       Ev(SH_RESOURCE_UNSCHEDULED_POD, SH_ACTION_UPDATE_POD_LABEL), true},
      {"AssignedPod does not match Pod", Ev(SH_RESOURCE_ASSIGNED_POD, SH_ACTION_ADD),
       Ev(SH_RESOURCE_POD, SH_ACTION_ADD), false},
      {"other resource", Ev(SH_RESOURCE_NODE, SH_ACTION_ADD), Ev(SH_RESOURCE_POD, SH_ACTION_ADD),
       false},
      {"one of the registered actions", Ev(SH_RESOURCE_NODE, kAddTaint),
       Ev(SH_RESOURCE_NODE, SH_ACTION_UPDATE_NODE_TAINT), true},
      {"disjoint actions", Ev(SH_RESOURCE_NODE, SH_ACTION_ADD),
       Ev(SH_RESOURCE_NODE, SH_ACTION_UPDATE_NODE_TAINT), false},
      {"specific registration, generic incoming Update",
       Ev(SH_RESOURCE_NODE, SH_ACTION_UPDATE_NODE_LABEL), Ev(SH_RESOURCE_NODE, SH_ACTION_UPDATE),
       false},
      {"generic registration, specific incoming", Ev(SH_RESOURCE_NODE, SH_ACTION_UPDATE),
       Ev(SH_RESOURCE_NODE, SH_ACTION_UPDATE_NODE_LABEL), true},
      {"All covers Update", Ev(SH_RESOURCE_NODE, SH_ACTION_ALL),
       Ev(SH_RESOURCE_NODE, SH_ACTION_UPDATE), true},
      // The rule compares the action masks as numbers, as upstream does.
      {"incoming mask numerically larger", Ev(SH_RESOURCE_NODE, SH_ACTION_UPDATE_NODE_TAINT),
       Ev(SH_RESOURCE_NODE, kAddTaint), false},
      {"incoming mask numerically smaller but not a subset",
       Ev(SH_RESOURCE_NODE, SH_ACTION_UPDATE_NODE_LABEL | SH_ACTION_UPDATE_NODE_TAINT),
       Ev(SH_RESOURCE_NODE, SH_ACTION_ADD | SH_ACTION_UPDATE_NODE_LABEL), true},
  };
  for (const Case& c : cases) {
    EXPECT_EQ(matches(c.registered, c.incoming), c.want) << c.name;
  }
  std::vector<ClusterEvent> gating = {Ev(SH_RESOURCE_POD, SH_ACTION_UPDATE_POD_LABEL),
                                      Ev(SH_RESOURCE_NODE, SH_ACTION_ADD)};
  EXPECT_TRUE(matchesAny(Ev(SH_RESOURCE_NODE, SH_ACTION_ADD), gating));
  EXPECT_TRUE(matchesAny(Ev(SH_RESOURCE_UNSCHEDULED_POD, SH_ACTION_UPDATE_POD_LABEL), gating));
  EXPECT_FALSE(matchesAny(Ev(SH_RESOURCE_NODE, SH_ACTION_DELETE), gating));
  EXPECT_FALSE(matchesAny(eventUnschedulableTimeout(), gating));
  EXPECT_FALSE(matchesAny(Ev(SH_RESOURCE_NODE, SH_ACTION_ADD), {}));
}

model::testing::PodWrapper Base() {
  auto w = MakePod();
  w.Name("p").Namespace("ns").UID("u").Label("app", "web").Req({{"cpu", "1"}, {"memory", "1Gi"}});
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
       Base,
       [] { return Base().Priority(10); },
       {"UnschedulablePodUpdate"}},
      {"label changed",
       Base,
       [] { return Base().Label("app", "db"); },
       {"UnschedulablePodUpdatePodLabel"}},
      {"label added",
       Base,
       [] { return Base().Label("tier", "1"); },
       {"UnschedulablePodUpdatePodLabel"}},
      {"assigned pod",
       [] { return Base().Node("n1"); },
       [] { return Base().Node("n1").Label("app", "db"); },
       {"AssignedPodUpdatePodLabel"}},
      {"request decreased",
       [] {
         auto w = MakePod();
         return w.Name("p").Namespace("ns").UID("u").Req({{"cpu", "2"}});
       },
       [] {
         auto w = MakePod();
         return w.Name("p").Namespace("ns").UID("u").Req({{"cpu", "1"}});
       },
       {"UnschedulablePodUpdatePodScaleDown"}},
      {"request increased is a plain update",
       [] {
         auto w = MakePod();
         return w.Name("p").Namespace("ns").UID("u").Req({{"cpu", "1"}});
       },
       [] {
         auto w = MakePod();
         return w.Name("p").Namespace("ns").UID("u").Req({{"cpu", "2"}});
       },
       {"UnschedulablePodUpdate"}},
      {"request removed",
       [] {
         auto w = MakePod();
         return w.Name("p").Namespace("ns").UID("u").Req({{"cpu", "1"}, {"memory", "1Gi"}});
       },
       [] {
         auto w = MakePod();
         return w.Name("p").Namespace("ns").UID("u").Req({{"cpu", "1"}});
       },
       {"UnschedulablePodUpdatePodScaleDown"}},
      {"extended resource removed",
       [] {
         auto w = MakePod();
         return w.Name("p").Namespace("ns").UID("u").Req({{"example.com/gpu", "1"}});
       },
       [] {
         auto w = MakePod();
         return w.Name("p").Namespace("ns").UID("u").Req({{"cpu", "1"}});
       },
       {"UnschedulablePodUpdatePodScaleDown"}},
      {"gates eliminated",
       [] {
         return Base().SchedulingGates({"a", "b"});
       },
       Base,
       {"UnschedulablePodUpdatePodSchedulingGatesEliminated"}},
      {"one gate left",
       [] {
         return Base().SchedulingGates({"a", "b"});
       },
       [] { return Base().SchedulingGates({"a"}); },
       {"UnschedulablePodUpdate"}},
      {"toleration added",
       Base,
       [] { return Base().Toleration("k", "Exists", "", "NoSchedule"); },
       {"UnschedulablePodUpdatePodToleration"}},
      {"several at once, in upstream's order",
       [] { return Base().SchedulingGates({"a"}); },
       [] { return Base().Label("app", "db").Toleration("k", "Exists", "", "NoSchedule"); },
       {"UnschedulablePodUpdatePodLabel", "UnschedulablePodUpdatePodSchedulingGatesEliminated",
        "UnschedulablePodUpdatePodToleration"}},
      {"generated resource claim",
       Base,
       [] {
         boost::json::array statuses;
         boost::json::object s;
         s["name"] = "claim";
         s["resourceClaimName"] = "p-claim";
         statuses.push_back(s);
         return Base().Set({"status", "resourceClaimStatuses"}, statuses);
       },
       {"UnschedulablePodUpdatePodGeneratedResourceClaim"}},
  };
  for (const Case& c : cases) {
    EXPECT_EQ(Labels(podUpdateEvents(*c.old().Obj(), *c.cur().Obj())), c.want) << c.name;
  }
}

NodePtr NodeFrom(model::testing::NodeWrapper w,
                 const std::function<void(boost::json::object&)>& edit = {}) {
  boost::json::value v = w.Json();
  if (edit) {
    edit(v.as_object());
  }
  std::string error;
  auto node = model::parse_node(v, error);
  if (!node) {
    throw std::runtime_error(error);
  }
  return node;
}

model::testing::NodeWrapper BaseNode() {
  auto w = MakeNode();
  w.Name("n1").Label("zone", "a").Capacity({{"cpu", "4"}});
  return w;
}

void Conditions(boost::json::object& o, const char* ready, const char* heartbeat) {
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
      {"identical", NodeFrom(BaseNode()), NodeFrom(BaseNode()), {}},
      {"became schedulable",
       NodeFrom(BaseNode().Unschedulable(true)),
       NodeFrom(BaseNode().Unschedulable(false)),
       {"NodeUpdateNodeTaint"}},
      {"became unschedulable", NodeFrom(BaseNode()), NodeFrom(BaseNode().Unschedulable(true)), {}},
      {"allocatable",
       NodeFrom(BaseNode()),
       NodeFrom(BaseNode().Capacity({{"cpu", "8"}})),
       {"NodeUpdateNodeAllocatable"}},
      {"labels",
       NodeFrom(BaseNode()),
       NodeFrom(BaseNode().Label("zone", "b")),
       {"NodeUpdateNodeLabel"}},
      {"taints",
       NodeFrom(BaseNode()),
       NodeFrom(BaseNode().Taint("k", "v", "NoSchedule")),
       {"NodeUpdateNodeTaint"}},
      {"taint effect",
       NodeFrom(BaseNode().Taint("k", "v", "NoSchedule")),
       NodeFrom(BaseNode().Taint("k", "v", "NoExecute")),
       {"NodeUpdateNodeTaint"}},
      {"schedulable and tainted: UpdateNodeTaint twice, as upstream",
       NodeFrom(BaseNode().Unschedulable(true)),
       NodeFrom(BaseNode().Taint("k", "v", "NoSchedule")),
       {"NodeUpdateNodeTaint", "NodeUpdateNodeTaint"}},
      {"condition status",
       NodeFrom(BaseNode(), [](auto& o) { Conditions(o, "True", "2024-01-01T00:00:00Z"); }),
       NodeFrom(BaseNode(), [](auto& o) { Conditions(o, "False", "2024-01-01T00:00:00Z"); }),
       {"NodeUpdateNodeCondition"}},
      {"heartbeat only",
       NodeFrom(BaseNode(), [](auto& o) { Conditions(o, "True", "2024-01-01T00:00:00Z"); }),
       NodeFrom(BaseNode(), [](auto& o) { Conditions(o, "True", "2024-01-01T00:00:10Z"); }),
       {}},
      {"annotations",
       NodeFrom(BaseNode()),
       NodeFrom(BaseNode(),
                [](auto& o) {
                  o["metadata"].as_object()["annotations"] = {{"a", "1"}};
                }),
       {"NodeUpdateNodeAnnotation"}},
      {"empty annotations equal missing ones",
       NodeFrom(BaseNode()),
       NodeFrom(BaseNode(),
                [](auto& o) { o["metadata"].as_object()["annotations"] = boost::json::object(); }),
       {}},
      {"declared features",
       NodeFrom(BaseNode()),
       NodeFrom(BaseNode(),
                [](auto& o) {
                  o["status"].as_object()["declaredFeatures"] = boost::json::array({"F1"});
                }),
       {"NodeUpdateNodeDeclaredFeature"}},
      {"images only", NodeFrom(BaseNode()), NodeFrom(BaseNode().Images({{"img:1", 100}})), {}},
      {"several at once",
       NodeFrom(BaseNode(), [](auto& o) { Conditions(o, "True", "2024-01-01T00:00:00Z"); }),
       NodeFrom(BaseNode().Label("zone", "b").Capacity({{"cpu", "2"}}),
                [](auto& o) { Conditions(o, "False", "2024-01-01T00:00:00Z"); }),
       {"NodeUpdateNodeAllocatable", "NodeUpdateNodeLabel", "NodeUpdateNodeCondition"}},
  };
  for (const Case& c : cases) {
    EXPECT_EQ(Labels(nodeUpdateEvents(*c.old, *c.cur)), c.want) << c.name;
  }
}

TEST(ClusterEventTest, ToAbiPointsAtTheObjectsViews) {
  PodPtr pod = MakePod().Name("p").UID("u").Obj();
  NodePtr node = MakeNode().Name("n").Obj();
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
}  // namespace sh::queue
