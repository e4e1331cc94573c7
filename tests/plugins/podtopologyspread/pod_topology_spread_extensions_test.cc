// PodTopologySpread's PreFilterExtensions: AddPod and RemovePod update the PreFilter state as
// upstream's TestPreFilterStateAddPod and TestPreFilterStateRemovePod expect
// (podtopologyspread/filtering_test.go, v1.36), observed through Filter on every node before
// and after. Each case's comment gives upstream's expected state and the skew arithmetic
// 'matching pods' + 'self (1)' − 'min' ≤ maxSkew (1) it implies.
#include <gtest/gtest.h>

#include <boost/json.hpp>

#include <map>
#include <string>
#include <vector>

#include "tests/plugins/prefilter_extensions_util.h"

namespace schedhost::testing::pod_topology_spread_extensions_test {
namespace {

constexpr char kSpread[] = "PodTopologySpread";
// Upstream's cases build the plugin with List defaulting and no default constraints.
constexpr char kListDefaulting[] = R"({"defaultingType":"List"})";
constexpr char kOk[] = "Success";
constexpr char kSkew[] = "Unschedulable: node(s) didn't match pod topology spread constraints";

using Codes = std::map<std::string, std::string>;

// A DoNotSchedule constraint, maxSkew 1, on `key`, selecting pods that have label `label`
// (st.MakeLabelSelector().Exists(label)).
boost::json::object constraint(const std::string& key, const std::string& label) {
  return boost::json::parse(R"({"maxSkew":1,"topologyKey":")" + key +
                            R"(","whenUnsatisfiable":"DoNotSchedule","labelSelector":
                                {"matchExpressions":[{"key":")" +
                            label + R"(","operator":"Exists"}]}})")
      .as_object();
}

// The preemptor "p", labelled foo= (and bar= when `bar`), with `constraints`.
sh::model::testing::PodWrapper preemptor(const std::vector<boost::json::object>& constraints,
                                         bool bar = false) {
  auto p = makePod().name("p").uid("p").inNamespace("default").label("foo", "");
  if (bar) {
    p.label("bar", "");
  }
  boost::json::array list;
  for (const auto& c : constraints) {
    list.push_back(c);
  }
  return p.set({"spec", "topologySpreadConstraints"}, list);
}

// A pod on `node` with the labels `labels` (each with value "") in `ns`.
PodPtr podOn(const std::string& name, const std::string& node,
             const std::vector<std::string>& labels = {"foo"}, const std::string& ns = "default") {
  auto p = makePod().name(name).uid(name).inNamespace(ns).node(node);
  for (const auto& l : labels) {
    p.label(l, "");
  }
  return p.obj();
}

NodePtr node(const std::string& name, const std::string& zone,
             const std::map<std::string, std::string>& extra = {}) {
  auto n = makeNode().name(name).label("zone", zone).label("node", name);
  for (const auto& [k, v] : extra) {
    n.label(k, v);
  }
  return n.obj();
}

NodePtr taintedNode(const std::string& name, const std::string& zone) {
  return makeNode()
      .name(name)
      .label("zone", zone)
      .label("node", name)
      .taint("node.kubernetes.io/unschedulable", "", "NoSchedule")
      .obj();
}

struct ExtensionCase {
  std::string name;
  PodPtr preemptor;
  std::vector<NodePtr> nodes;
  std::vector<PodPtr> existing;
  PodPtr pod;        // the pod added or removed
  std::string node;  // the node whose NodeInfo AddPod or RemovePod gets
  Codes before;      // Filter after PreFilter
  Codes after;       // Filter after AddPod or RemovePod
};

enum class Extension { kAdd, kRemove };

void runCase(const ExtensionCase& c, Extension ext) {
  SCOPED_TRACE(c.name);
  PreFilterHarness h(kSpread, kListDefaulting);
  h.setCluster(c.nodes, c.existing);
  sh::Status pre = h.preFilter(c.preemptor);
  ASSERT_TRUE(pre.ok()) << outcome(pre);
  EXPECT_EQ(h.filterAll(c.preemptor), c.before);
  sh::Status s = ext == Extension::kAdd ? h.addPod(c.preemptor, c.pod, c.node)
                                        : h.removePod(c.preemptor, c.pod, c.node);
  ASSERT_TRUE(s.ok()) << outcome(s);
  EXPECT_EQ(h.filterAll(c.preemptor), c.after);
}

TEST(PodTopologySpreadExtensionsTest, AddPod) {
  auto nodeC = constraint("node", "foo");
  auto zoneC = constraint("zone", "foo");
  auto nodeBarC = constraint("node", "bar");
  auto p = preemptor({nodeC}).obj();
  auto pZoneNode = preemptor({zoneC, nodeC}).obj();
  auto pFooBar = preemptor({zoneC, nodeBarC}, true).obj();
  auto pNotInBar = preemptor({zoneC}).nodeAffinityNotIn("foo", {"bar"}).obj();
  auto pZone = preemptor({zoneC}).obj();
  auto pTolerates =
      preemptor({zoneC}).toleration("node.kubernetes.io/unschedulable", "Exists", "", "").obj();
  std::vector<NodePtr> ab = {node("node-a", "zone1"), node("node-b", "zone1")};
  std::vector<NodePtr> ax = {node("node-a", "zone1"), node("node-x", "zone2")};
  std::vector<NodePtr> abx = {node("node-a", "zone1"), node("node-b", "zone1"),
                              node("node-x", "zone2")};
  std::vector<NodePtr> fooBar = {node("node-a", "zone1", {{"foo", "bar"}}),
                                 node("node-b", "zone2", {{"foo", ""}})};
  std::vector<NodePtr> taintedA = {taintedNode("node-a", "zone1"), node("node-b", "zone2")};

  std::vector<ExtensionCase> cases = {
      // Want {node-a: 1, node-b: 0}, paths {node-b 0, node-a 1}. Before, both 0 + 1 - 0 = 1;
      // after, node-a 1 + 1 - 0 = 2 > 1.
      {"node a and b both impact current min match",
       p,
       ab,
       {},
       podOn("p-a1", "node-a"),
       "node-a",
       {{"node-a", kOk}, {"node-b", kOk}},
       {{"node-a", kSkew}, {"node-b", kOk}}},
      // Want {node-a: 1, node-b: 1}, paths {node-a 1, node-b 1}. Before, node-b 1 + 1 - 0 = 2;
      // after, both 1 + 1 - 1 = 1.
      {"only node a impacts current min match",
       p,
       ab,
       {podOn("p-b1", "node-b")},
       podOn("p-a1", "node-a"),
       "node-a",
       {{"node-a", kOk}, {"node-b", kSkew}},
       {{"node-a", kOk}, {"node-b", kOk}}},
      // Want {node-a: 0, node-b: 1}: a pod of namespace ns1 changes nothing.
      {"add a pod in a different namespace doesn't change topologyKeyToMinPodsMap",
       p,
       ab,
       {podOn("p-b1", "node-b")},
       podOn("p-a1", "node-a", {"foo"}, "ns1"),
       "node-a",
       {{"node-a", kOk}, {"node-b", kSkew}},
       {{"node-a", kOk}, {"node-b", kSkew}}},
      // Want {node-a: 0, node-b: 2}, paths {node-a 0, node-b 2}: node-b 2 + 1 - 0 = 3 > 1.
      {"add pod on non-critical node won't trigger re-calculation",
       p,
       ab,
       {podOn("p-b1", "node-b")},
       podOn("p-b2", "node-b"),
       "node-b",
       {{"node-a", kOk}, {"node-b", kSkew}},
       {{"node-a", kOk}, {"node-b", kSkew}}},
      // Want zone {zone1: 1, zone2: 0}, node {node-a: 1, node-x: 0}: node-a's zone
      // 1 + 1 - 0 = 2 > 1.
      {"node a and x both impact topologyKeyToMinPodsMap on zone and node",
       pZoneNode,
       ax,
       {},
       podOn("p-a1", "node-a"),
       "node-a",
       {{"node-a", kOk}, {"node-x", kOk}},
       {{"node-a", kSkew}, {"node-x", kOk}}},
      // Want zone {zone1: 1, zone2: 1}, node {node-a: 1, node-x: 1}. Before, node-x's zone
      // 1 + 1 - 0 = 2; after, everything 1 + 1 - 1 = 1.
      {"only node a impacts topologyKeyToMinPodsMap on zone and node",
       pZoneNode,
       ax,
       {podOn("p-x1", "node-x")},
       podOn("p-a1", "node-a"),
       "node-a",
       {{"node-a", kOk}, {"node-x", kSkew}},
       {{"node-a", kOk}, {"node-x", kOk}}},
      // Want zone {zone1: 3, zone2: 1}, paths {zone2 1, zone1 3}; node {node-a: 1, node-b: 2,
      // node-x: 1}, paths {node-a 1, node-x 1}. Before, node-x's node count 1 + 1 - 0 = 2;
      // after, node-x 1 + 1 - 1 = 1 on both; zone1 3 + 1 - 1 = 3 throughout.
      {"node a impacts topologyKeyToMinPodsMap on node, node x impacts topologyKeyToMinPodsMap "
       "on zone",
       pZoneNode,
       abx,
       {podOn("p-b1", "node-b"), podOn("p-b2", "node-b"), podOn("p-x1", "node-x")},
       podOn("p-a1", "node-a"),
       "node-a",
       {{"node-a", kSkew}, {"node-b", kSkew}, {"node-x", kSkew}},
       {{"node-a", kSkew}, {"node-b", kSkew}, {"node-x", kOk}}},
      // Want zone (foo) {zone1: 2, zone2: 1}, node (bar) {node-a: 0, node-b: 1, node-x: 2}.
      // After, zone1 2 + 1 - 1 = 2 > 1 rejects node-a.
      {"Constraints hold different labelSelectors, node a impacts topologyKeyToMinPodsMap on "
       "zone",
       pFooBar,
       abx,
       {podOn("p-b1", "node-b", {"foo", "bar"}), podOn("p-x1", "node-x", {"foo", "bar"}),
        podOn("p-x2", "node-x", {"bar"})},
       podOn("p-a1", "node-a"),
       "node-a",
       {{"node-a", kOk}, {"node-b", kSkew}, {"node-x", kSkew}},
       {{"node-a", kSkew}, {"node-b", kSkew}, {"node-x", kSkew}}},
      // Want zone (foo) {zone1: 1, zone2: 1}, node (bar) {node-a: 1, node-b: 1, node-x: 2},
      // paths {node-a 1, node-b 1}: node-b 1 + 1 - 1 = 1 fits now, node-x 2 + 1 - 1 = 2 not.
      {"Constraints hold different labelSelectors, node a impacts topologyKeyToMinPodsMap on "
       "both zone and node",
       pFooBar,
       abx,
       {podOn("p-b1", "node-b", {"bar"}), podOn("p-x1", "node-x", {"foo", "bar"}),
        podOn("p-x2", "node-x", {"bar"})},
       podOn("p-a1", "node-a", {"foo", "bar"}),
       "node-a",
       {{"node-a", kOk}, {"node-b", kSkew}, {"node-x", kSkew}},
       {{"node-a", kOk}, {"node-b", kOk}, {"node-x", kSkew}}},
      // Want {zone2: 1} only, paths {zone2 1, MaxInt32}: node-a (foo=bar) fails the pod's
      // node affinity, so neither its pods nor the added one count; node-a's zone has 0,
      // 0 + 1 - 1 = 0.
      {"add a pod when scheduling node affinity unmatched pod",
       pNotInBar,
       fooBar,
       {podOn("p-a2", "node-a"), podOn("p-b1", "node-b")},
       podOn("p-a1", "node-a"),
       "node-a",
       {{"node-a", kOk}, {"node-b", kOk}},
       {{"node-a", kOk}, {"node-b", kOk}}},
      // Want {zone1: 1, zone2: 2}, paths {zone1 1, zone2 2}: zone2 2 + 1 - 1 = 2 > 1.
      {"add a pod when scheduling node affinity matched pod",
       pZone,
       fooBar,
       {podOn("p-a1", "node-a"), podOn("p-b2", "node-b")},
       podOn("p-b1", "node-b"),
       "node-b",
       {{"node-a", kOk}, {"node-b", kOk}},
       {{"node-a", kOk}, {"node-b", kSkew}}},
      // Want {zone1: 1, zone2: 1}: the added pod lacks foo.
      {"add a label selector not matched pod",
       pZone,
       fooBar,
       {podOn("p-a1", "node-a"), podOn("p-b2", "node-b")},
       podOn("p-b1", "node-b", {}),
       "node-b",
       {{"node-a", kOk}, {"node-b", kOk}},
       {{"node-a", kOk}, {"node-b", kOk}}},
      // Want {zone1: 1, zone2: 2}: taints are ignored by default (nodeTaintsPolicy Ignore),
      // so tainted node-a counts.
      {"add a pod when scheduling taint untolerated pod",
       pZone,
       taintedA,
       {podOn("p-a1", "node-a"), podOn("p-b2", "node-b")},
       podOn("p-b1", "node-b"),
       "node-b",
       {{"node-a", kOk}, {"node-b", kOk}},
       {{"node-a", kOk}, {"node-b", kSkew}}},
      {"add a pod when scheduling taint tolerated pod",
       pTolerates,
       taintedA,
       {podOn("p-a1", "node-a"), podOn("p-b2", "node-b")},
       podOn("p-b1", "node-b"),
       "node-b",
       {{"node-a", kOk}, {"node-b", kOk}},
       {{"node-a", kOk}, {"node-b", kSkew}}},
  };
  for (const ExtensionCase& c : cases) {
    runCase(c, Extension::kAdd);
  }
}

TEST(PodTopologySpreadExtensionsTest, RemovePod) {
  auto zoneC = constraint("zone", "foo");
  auto nodeC = constraint("node", "foo");
  auto pZone = preemptor({zoneC}).obj();
  auto pZoneNode = preemptor({zoneC, nodeC}).obj();
  auto pNotInBar = preemptor({zoneC}).nodeAffinityNotIn("foo", {"bar"}).obj();
  std::vector<NodePtr> abx = {node("node-a", "zone1"), node("node-b", "zone1"),
                              node("node-x", "zone2")};
  std::vector<NodePtr> abxy = {node("node-a", "zone1"), node("node-b", "zone1"),
                               node("node-x", "zone2"), node("node-y", "zone2")};
  std::vector<NodePtr> fooBar = {node("node-a", "zone1", {{"foo", "bar"}}),
                                 node("node-b", "zone2", {{"foo", ""}})};
  auto fooOnEach = [](const std::vector<std::string>& nodes) {
    std::vector<PodPtr> out;
    for (const auto& n : nodes) {
      out.push_back(podOn("p-" + n.substr(5) + "1", n));
    }
    return out;
  };
  auto abxPods = fooOnEach({"node-a", "node-b", "node-x"});
  auto abxyPods = fooOnEach({"node-a", "node-b", "node-x", "node-y"});
  std::vector<PodPtr> irrelevant = abxyPods;
  irrelevant.insert(irrelevant.begin(), podOn("p-a0", "node-a", {"bar"}));
  std::vector<PodPtr> twoConstraints = {podOn("p-a1", "node-a"), podOn("p-a2", "node-a"),
                                        podOn("p-b1", "node-b"), podOn("p-x1", "node-x"),
                                        podOn("p-x2", "node-x")};
  std::vector<PodPtr> affinityUnmatched = {podOn("p-a2", "node-a"), podOn("p-b1", "node-b")};
  std::vector<PodPtr> affinityMatched = {podOn("p-a1", "node-a"), podOn("p-b2", "node-b")};

  std::vector<ExtensionCase> cases = {
      // Want {zone1: 1, zone2: 1}. Before, zone1 2 + 1 - 1 = 2 > 1.
      {"one spreadConstraint on zone, topologyKeyToMinPodsMap unchanged",
       pZone,
       abx,
       abxPods,
       abxPods[0],
       "node-a",
       {{"node-a", kSkew}, {"node-b", kSkew}, {"node-x", kOk}},
       {{"node-a", kOk}, {"node-b", kOk}, {"node-x", kOk}}},
      // Want {zone1: 1, zone2: 2}, paths {zone1 1, zone2 2}: zone2 2 + 1 - 1 = 2 > 1.
      {"one spreadConstraint on node, topologyKeyToMinPodsMap changed",
       pZone,
       abxy,
       abxyPods,
       abxyPods[0],
       "node-a",
       {{"node-a", kOk}, {"node-b", kOk}, {"node-x", kOk}, {"node-y", kOk}},
       {{"node-a", kOk}, {"node-b", kOk}, {"node-x", kSkew}, {"node-y", kSkew}}},
      // Want {zone1: 2, zone2: 2}: p-a0 has no foo.
      {"delete an irrelevant pod won't help",
       pZone,
       abxy,
       irrelevant,
       irrelevant[0],
       "node-a",
       {{"node-a", kOk}, {"node-b", kOk}, {"node-x", kOk}, {"node-y", kOk}},
       {{"node-a", kOk}, {"node-b", kOk}, {"node-x", kOk}, {"node-y", kOk}}},
      {"delete a non-existing pod won't help",
       pZone,
       abxy,
       abxyPods,
       podOn("p-a0", "node-a", {"bar"}),
       "node-a",
       {{"node-a", kOk}, {"node-b", kOk}, {"node-x", kOk}, {"node-y", kOk}},
       {{"node-a", kOk}, {"node-b", kOk}, {"node-x", kOk}, {"node-y", kOk}}},
      // Want zone {zone1: 3, zone2: 1}, node {node-a: 2, node-b: 1, node-x: 1}, paths
      // {node-b 1, node-x 1}. Before, node-x: zone 2 + 1 - 2 = 1, node 2 + 1 - 1 = 2 > 1;
      // after, 1 + 1 - 1 = 1 on both.
      {"two spreadConstraints",
       pZoneNode,
       abx,
       twoConstraints,
       twoConstraints[3],
       "node-x",
       {{"node-a", kSkew}, {"node-b", kSkew}, {"node-x", kSkew}},
       {{"node-a", kSkew}, {"node-b", kSkew}, {"node-x", kOk}}},
      // Upstream leaves deletedPodIdx at 0, so the pod removed is existingPods[0] (p-a2),
      // on node-a, which the pod's node affinity excludes. Want {zone2: 1}.
      {"remove a pod when scheduling node affinity unmatched pod",
       pNotInBar,
       fooBar,
       affinityUnmatched,
       affinityUnmatched[0],
       "node-a",
       {{"node-a", kOk}, {"node-b", kOk}},
       {{"node-a", kOk}, {"node-b", kOk}}},
      // deletedPodIdx 0 again: existingPods[0] (p-a1) is removed with node-b's NodeInfo, so
      // node-b's zone loses one. Want {zone1: 1, zone2: 0}, paths {zone2 0, zone1 1}: zone1
      // 1 + 1 - 0 = 2 > 1.
      {"remove a pod when scheduling node affinity matched pod",
       pZone,
       fooBar,
       affinityMatched,
       affinityMatched[0],
       "node-b",
       {{"node-a", kOk}, {"node-b", kOk}},
       {{"node-a", kSkew}, {"node-b", kOk}}},
  };
  for (const ExtensionCase& c : cases) {
    runCase(c, Extension::kRemove);
  }
}

// RemovePod after AddPod of the same pod gives back the state PreFilter computed.
TEST(PodTopologySpreadExtensionsTest, RemoveUndoesAdd) {
  auto p = preemptor({constraint("zone", "foo"), constraint("node", "foo")}).obj();
  std::vector<NodePtr> nodes = {node("node-a", "zone1"), node("node-b", "zone1"),
                                node("node-x", "zone2")};
  PreFilterHarness h(kSpread, kListDefaulting);
  h.setCluster(nodes, {podOn("p-b1", "node-b"), podOn("p-x1", "node-x")});
  ASSERT_TRUE(h.preFilter(p).ok());
  Codes original = h.filterAll(p);
  // zone {zone1: 1, zone2: 1}, node {node-a: 0, node-b: 1, node-x: 1}: node-b and node-x
  // 1 + 1 - 0 = 2 > 1 on node.
  EXPECT_EQ(original, (Codes{{"node-a", kOk}, {"node-b", kSkew}, {"node-x", kSkew}}));
  PodPtr added = podOn("p-a1", "node-a");
  ASSERT_TRUE(h.addPod(p, added, "node-a").ok());
  // zone1 2 + 1 - 1 = 2 rejects node-a and node-b; node-x: zone 1 + 1 - 1, node 1 + 1 - 1.
  EXPECT_EQ(h.filterAll(p), (Codes{{"node-a", kSkew}, {"node-b", kSkew}, {"node-x", kOk}}));
  ASSERT_TRUE(h.removePod(p, added, "node-a").ok());
  EXPECT_EQ(h.filterAll(p), original);
}

}  // namespace
}  // namespace schedhost::testing::pod_topology_spread_extensions_test
