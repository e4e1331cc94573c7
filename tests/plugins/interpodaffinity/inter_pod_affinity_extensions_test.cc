// InterPodAffinity's PreFilterExtensions: AddPod and RemovePod update the PreFilter state as
// upstream's TestPreFilterStateAddRemovePod expects (interpodaffinity/filtering_test.go,
// v1.36): after AddPod the state equals the one PreFilter computes with the pod in the
// cluster, after RemovePod the original one. Observed through Filter on every node; each
// case's comment gives upstream's expected counts and the Filter answers they imply.
#include <gtest/gtest.h>

#include <boost/json.hpp>

#include <map>
#include <string>
#include <vector>

#include "tests/plugins/prefilter_extensions_util.h"

namespace schedhost::testing::inter_pod_affinity_extensions_test {
namespace {

constexpr char kIPA[] = "InterPodAffinity";
constexpr char kOk[] = "Success";
constexpr char kAffinity[] =
    "UnschedulableAndUnresolvable: node(s) didn't match pod affinity rules";
constexpr char kAnti[] = "Unschedulable: node(s) didn't match pod anti-affinity rules";
constexpr char kExisting[] =
    "Unschedulable: node(s) didn't satisfy existing pods anti-affinity rules";

using Codes = std::map<std::string, std::string>;

// Upstream's terms: foo In (bar) on region; and foo In (bar, buzz) on region with service
// NotIn (bar, security, test) on zone.
constexpr char kFooBarTerms[] =
    R"([{"labelSelector": {"matchExpressions": [{"key": "foo", "operator": "In",
         "values": ["bar"]}]}, "topologyKey": "region"}])";
constexpr char kComplexTerms[] =
    R"([{"labelSelector": {"matchExpressions": [{"key": "foo", "operator": "In",
         "values": ["bar", "buzz"]}]}, "topologyKey": "region"},
        {"labelSelector": {"matchExpressions": [{"key": "service", "operator": "NotIn",
         "values": ["bar", "security", "test"]}]}, "topologyKey": "zone"}])";

// spec.affinity with `terms` as the required terms of podAffinity and/or podAntiAffinity.
boost::json::object affinity(const char* affinityTerms, const char* antiTerms) {
  boost::json::object a;
  if (affinityTerms != nullptr) {
    a["podAffinity"] = {
        {"requiredDuringSchedulingIgnoredDuringExecution", boost::json::parse(affinityTerms)}};
  }
  if (antiTerms != nullptr) {
    a["podAntiAffinity"] = {
        {"requiredDuringSchedulingIgnoredDuringExecution", boost::json::parse(antiTerms)}};
  }
  return a;
}

// A pod labelled foo=bar (unless `labelled` is false) on `node` ("" = pending).
PodPtr testPod(const std::string& name, const std::string& node, bool labelled,
               const char* affinityTerms = nullptr, const char* antiTerms = nullptr) {
  auto p = makePod().name(name).uid(name).inNamespace("default");
  if (labelled) {
    p.label("foo", "bar");
  }
  if (!node.empty()) {
    p.node(node);
  }
  if (affinityTerms != nullptr || antiTerms != nullptr) {
    p.set({"spec", "affinity"}, affinity(affinityTerms, antiTerms));
  }
  return p.obj();
}

std::vector<NodePtr> nodes() {
  return {makeNode().name("nodeA").label("region", "r1").label("zone", "z11").obj(),
          makeNode().name("nodeB").label("region", "r1").label("zone", "z12").obj(),
          makeNode().name("nodeC").label("region", "r2").label("zone", "z21").obj()};
}

struct AddRemoveCase {
  std::string name;
  PodPtr pending;
  std::vector<PodPtr> existing;
  PodPtr added;  // on the node its spec.nodeName names
  Codes before;  // Filter after PreFilter
  Codes after;   // Filter after AddPod
};

void runCase(const AddRemoveCase& c) {
  SCOPED_TRACE(c.name);
  const std::string node =
      std::string(c.added->view().node_name.ptr, c.added->view().node_name.len);
  // The state PreFilter computes with the added pod already in the cluster.
  PreFilterHarness all(kIPA);
  std::vector<PodPtr> withAdded = c.existing;
  withAdded.push_back(c.added);
  all.setCluster(nodes(), withAdded);
  ASSERT_TRUE(all.preFilter(c.pending).ok());
  EXPECT_EQ(all.filterAll(c.pending), c.after) << "PreFilter with the added pod";

  PreFilterHarness h(kIPA);
  h.setCluster(nodes(), c.existing);
  ASSERT_TRUE(h.preFilter(c.pending).ok());
  EXPECT_EQ(h.filterAll(c.pending), c.before) << "PreFilter";
  sh::Status added = h.addPod(c.pending, c.added, node);
  ASSERT_TRUE(added.ok()) << outcome(added);
  EXPECT_EQ(h.filterAll(c.pending), c.after) << "after AddPod";
  sh::Status removed = h.removePod(c.pending, c.added, node);
  ASSERT_TRUE(removed.ok()) << outcome(removed);
  EXPECT_EQ(h.filterAll(c.pending), c.before) << "after RemovePod";
}

TEST(InterPodAffinityExtensionsTest, AddRemovePod) {
  std::vector<AddRemoveCase> cases = {
      // No term anywhere: PreFilter skips, so do the extensions and Filter.
      {"no affinity exist",
       testPod("pending", "", true),
       {testPod("p1", "nodeA", true), testPod("p2", "nodeC", false)},
       testPod("addedPod", "nodeB", true),
       {{"nodeA", kOk}, {"nodeB", kOk}, {"nodeC", kOk}},
       {{"nodeA", kOk}, {"nodeB", kOk}, {"nodeC", kOk}}},
      // Want anti-affinity {region r1: 2} after AddPod (p1 and addedPod match the pending
      // pod's term); existing anti-affinity {region r2: 1} (p2) plus {region r1: 1} (addedPod).
      // r1's nodes fail the pod's own anti-affinity first, nodeC the existing one.
      {"preFilterState anti-affinity terms are updated correctly after adding and removing a "
       "pod",
       testPod("pending", "", true, nullptr, kFooBarTerms),
       {testPod("p1", "nodeA", true), testPod("p2", "nodeC", false, nullptr, kFooBarTerms)},
       testPod("addedPod", "nodeB", true, nullptr, kFooBarTerms),
       {{"nodeA", kAnti}, {"nodeB", kAnti}, {"nodeC", kExisting}},
       {{"nodeA", kAnti}, {"nodeB", kAnti}, {"nodeC", kExisting}}},
      // Want anti-affinity {region r1: 2, zone z11: 2, zone z21: 1}: p1 and addedPod match both
      // terms, p2 (no labels) only service NotIn. nodeB fails on region r1, nodeC on zone z21.
      {"preFilterState anti-affinity terms are updated correctly after adding and removing a "
       "pod (two terms)",
       testPod("pending", "", true, nullptr, kComplexTerms),
       {testPod("p1", "nodeA", true), testPod("p2", "nodeC", false, nullptr, kFooBarTerms)},
       testPod("addedPod", "nodeA", true, nullptr, kComplexTerms),
       {{"nodeA", kAnti}, {"nodeB", kAnti}, {"nodeC", kAnti}},
       {{"nodeA", kAnti}, {"nodeB", kAnti}, {"nodeC", kAnti}}},
      // Want affinity {region r1: 2, zone z11: 2} (p1, then addedPod, match both terms; p2
      // lacks foo) and no anti-affinity of the pending pod. nodeA has a matching pod in both
      // domains and fits until addedPod, whose anti-affinity terms both match the pending pod,
      // adds existing anti-affinity {region r1: 1, zone z11: 1}.
      {"preFilterState matching pod affinity and anti-affinity are updated correctly after "
       "adding and removing a pod",
       testPod("pending", "", true, kComplexTerms, nullptr),
       {testPod("p1", "nodeA", true), testPod("p2", "nodeC", false, kComplexTerms, kFooBarTerms)},
       testPod("addedPod", "nodeA", true, nullptr, kComplexTerms),
       {{"nodeA", kOk}, {"nodeB", kAffinity}, {"nodeC", kAffinity}},
       {{"nodeA", kExisting}, {"nodeB", kAffinity}, {"nodeC", kAffinity}}},
      // Our own: a pending pod without terms, held back only by existing anti-affinity.
      // Existing anti-affinity {region r2: 1} (p2), then {region r1: 1} (addedPod) as well.
      {"an added pod's anti-affinity closes its region to the pending pod",
       testPod("pending", "", true),
       {testPod("p2", "nodeC", false, nullptr, kFooBarTerms)},
       testPod("addedPod", "nodeB", false, nullptr, kFooBarTerms),
       {{"nodeA", kOk}, {"nodeB", kOk}, {"nodeC", kExisting}},
       {{"nodeA", kExisting}, {"nodeB", kExisting}, {"nodeC", kExisting}}},
  };
  for (const AddRemoveCase& c : cases) {
    runCase(c);
  }
}

}  // namespace
}  // namespace schedhost::testing::inter_pod_affinity_extensions_test
