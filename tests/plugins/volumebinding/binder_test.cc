// VolumeBinding's binder through the real host: upstream binder_test.go's
// TestFindPodVolumesWithoutProvisioning, TestFindPodVolumesWithProvisioning (each with no
// CSIDriver, one tracking capacity and one not), TestCapacity, TestFindPodVolumesWithCSIMigration,
// and FindMatchingVolume / CheckNodeAffinity details (access and volume modes, selectors,
// pre-bound volumes, smallest fit, quantities, node affinity operators).
#include <gtest/gtest.h>

#include <map>
#include <optional>
#include <string>
#include <vector>

#include "tests/plugins/volumebinding/volume_binding_test_util.h"

namespace schedhost::testing::volumebinding::binder_test {
namespace {

constexpr char kProvisioner[] = "test-provisioner";
constexpr char kWaitClass[] = "waitClass";
constexpr char kImmediateClass[] = "immediateClass";
constexpr char kWaitClassWithProvisioner[] = "waitClassWithProvisioner";
constexpr char kTopoMismatchClass[] = "topoMismatchClass";
constexpr char kNodeLabelKey[] = "nodeKey";

enum BoundState { kUnbound, kPrebound, kBound, kSelectedNode };

// makeTestPVC: namespace testns, uid pvc-uid, volumeMode Filesystem.
Json testPVC(const std::string& name, const std::string& size, const std::string& node,
             BoundState state, const std::string& pvName, const std::string& className) {
  PVCBuilder b(name, className, "testns");
  b.request(size);
  Json j = b.json();
  spec(j)["volumeMode"] = "Filesystem";
  switch (state) {
    case kSelectedNode:
      annotations(j)["volume.kubernetes.io/selected-node"] = node;
      break;
    case kBound:
      annotations(j)["pv.kubernetes.io/bind-completed"] = "yes";
      spec(j)["volumeName"] = pvName;
      break;
    case kPrebound:
      spec(j)["volumeName"] = pvName;
      break;
    default:
      break;
  }
  return j;
}

// makeTestPV: node affinity nodeKey In [node] (none when empty), phase Available, and claimRef
// to the claim `boundTo` (in testns) when set.
Json testPV(const std::string& name, const std::string& node, const std::string& capacity,
            const std::string& boundTo, const std::string& className) {
  PVBuilder b(name, className);
  b.capacity(capacity).phase("Available").volumeMode("Filesystem");
  if (!node.empty()) {
    b.nodeAffinity({{kNodeLabelKey, {node}}});
  }
  if (!boundTo.empty()) {
    b.claimRef("testns", boundTo, "pvc-uid");
  }
  return b.json();
}

Json unboundPVC() { return testPVC("unbound-pvc", "1G", "", kUnbound, "", kWaitClass); }
Json unboundPVC2() { return testPVC("unbound-pvc2", "5G", "", kUnbound, "", kWaitClass); }
Json preboundPVC() { return testPVC("prebound-pvc", "1G", "", kPrebound, "pv-node1a", kWaitClass); }
Json boundPVC() { return testPVC("bound-pvc", "1G", "", kBound, "pv-bound", kWaitClass); }
Json immediateUnboundPVC() {
  return testPVC("immediate-unbound-pvc", "1G", "", kUnbound, "", kImmediateClass);
}
Json immediateBoundPVC() {
  return testPVC("immediate-bound-pvc", "1G", "", kBound, "pv-bound-immediate", kImmediateClass);
}
Json provisionedPVC() {
  return testPVC("provisioned-pvc", "1Gi", "", kUnbound, "", kWaitClassWithProvisioner);
}
Json noProvisionerPVC() {
  return testPVC("no-provisioner-pvc", "1Gi", "", kUnbound, "", kWaitClass);
}
Json topoMismatchPVC() {
  return testPVC("topo-mismatch-pvc", "1Gi", "", kUnbound, "", kTopoMismatchClass);
}
Json selectedNodePVC() {
  return testPVC("provisioned-pvc", "1Gi", "node1", kSelectedNode, "", kWaitClassWithProvisioner);
}

Json pvNode1a() { return testPV("pv-node1a", "node1", "5G", "", kWaitClass); }
Json pvNode1aBound() { return testPV("pv-node1a", "node1", "5G", "unbound-pvc", kWaitClass); }
Json pvNode1b() { return testPV("pv-node1b", "node1", "10G", "", kWaitClass); }
Json pvNode2() { return testPV("pv-node2", "node2", "1G", "", kWaitClass); }
Json pvBound() { return testPV("pv-bound", "node1", "1G", "bound-pvc", kWaitClass); }
Json pvBoundImmediate() {
  return testPV("pv-bound-immediate", "node1", "1G", "immediate-bound-pvc", kImmediateClass);
}
Json pvBoundImmediateNode2() {
  return testPV("pv-bound-immediate", "node2", "1G", "immediate-bound-pvc", kImmediateClass);
}

// newTestBinder's classes.
std::vector<Json> testClasses() {
  return {
      withAllowedTopology(
          storageClass(kWaitClassWithProvisioner, "WaitForFirstConsumer", kProvisioner),
          kNodeLabelKey, {"node1", "reference-value"}),
      storageClass(kImmediateClass, "Immediate"),
      storageClass(kWaitClass, "WaitForFirstConsumer", "kubernetes.io/no-provisioner"),
      withAllowedTopology(storageClass(kTopoMismatchClass, "WaitForFirstConsumer", kProvisioner),
                          kNodeLabelKey, {"reference-value"})};
}

Json testNode() { return NodeBuilder("node1").noLabels().label(kNodeLabelKey, "node1").json(); }

std::string claimName(const Json& pvc) {
  return std::string(pvc.at("metadata").at("name").as_string());
}

// The pod test-pod of testns with a volume per claim.
Json podWith(const std::vector<Json>& claims) {
  std::vector<std::string> names;
  for (const Json& c : claims) {
    names.push_back(claimName(c));
  }
  return podJson("test-pod", names, "testns");
}

// What FindPodVolumes said: PreFilter's failure, or Filter's status on node1, and the writes
// PreBind would make (each "update <resource> <name>" with the claim a volume is bound to).
struct Outcome {
  std::string preFilter;
  std::string filter;
  std::vector<std::string> bindings;    // "pv-node1a<-unbound-pvc"
  std::vector<std::string> provisions;  // claims to provision
};

Outcome find(const Storage& storage, const Json& pod) {
  Storage s = storage;
  s.classes = testClasses();
  sh::evaluate::Result r = run(s, pod, {testNode()});
  Outcome o;
  o.preFilter = preFilterOf(r);
  if (o.preFilter != "Success" && o.preFilter != "Skip") {
    return o;
  }
  o.filter = filterOf(r, "node1");
  for (const std::string& w : plannedWrites(r)) {
    const std::string pvPrefix = "update persistentvolumes ";
    const std::string pvcPrefix = "update persistentvolumeclaims testns/";
    if (w.rfind(pvPrefix, 0) == 0) {
      const std::string name = w.substr(pvPrefix.size(), w.find(':') - pvPrefix.size());
      auto body = boost::json::parse(w.substr(w.find(": ") + 2));
      o.bindings.push_back(name + "<-" +
                           std::string(body.at("spec").at("claimRef").at("name").as_string()));
    } else if (w.rfind(pvcPrefix, 0) == 0) {
      o.provisions.push_back(w.substr(pvcPrefix.size(), w.find(':') - pvcPrefix.size()));
    }
  }
  return o;
}

std::string unresolvable(std::vector<std::string> reasons) {
  std::string out = "UnschedulableAndUnresolvable";
  for (std::size_t i = 0; i < reasons.size(); ++i) {
    out += (i == 0 ? ": " : ", ") + reasons[i];
  }
  return out;
}

struct FindCase {
  std::string name;
  std::vector<Json> podPVCs;
  std::vector<Json> pvs;
  std::optional<std::vector<Json>> cachePVCs;  // when set, the claims the cluster has
  std::optional<Json> pod;                     // when set, the pod
  std::vector<std::string> bindings;
  std::vector<std::string> provisions;
  std::vector<std::string> reasons;
  bool shouldFail = false;  // PreFilter fails
  bool needsCapacity = false;
};

void runFindCases(const std::vector<FindCase>& cases, const std::optional<bool>& driverCapacity) {
  for (const FindCase& c : cases) {
    SCOPED_TRACE(c.name);
    Storage s;
    s.pvs = c.pvs;
    s.pvcs = c.cachePVCs.value_or(c.podPVCs);
    if (driverCapacity) {
      s.csiDrivers = {csiDriver(kProvisioner, *driverCapacity)};
    }
    Outcome o = find(s, c.pod.value_or(podWith(c.podPVCs)));
    if (c.shouldFail) {
      EXPECT_NE(o.preFilter, "Success");
      EXPECT_NE(o.preFilter, "Skip");
      continue;
    }
    std::vector<std::string> reasons = c.reasons;
    std::vector<std::string> provisions = c.provisions;
    if (c.needsCapacity && driverCapacity.value_or(false)) {
      // Without CSIStorageCapacity objects, provisioning is blocked.
      reasons.push_back(kNotEnoughSpace);
      provisions.clear();
    }
    EXPECT_EQ(o.filter, reasons.empty() ? "Success" : unresolvable(reasons));
    if (reasons.empty()) {
      EXPECT_EQ(o.bindings, c.bindings);
      EXPECT_EQ(o.provisions, provisions);
    }
  }
}

Json ephemeralPod(const std::string& volume) {
  return makePod()
      .name("test-pod")
      .uid("test-pod-uid")
      .inNamespace("testns")
      .container(sh::model::testing::kPauseImage)
      .ephemeralVolume(volume)
      .parseJson();
}

Json genericPVC(bool owned) {
  Json pvc = testPVC("test-pod-test-volume", "1G", "", kBound, "pv-bound", kImmediateClass);
  if (owned) {
    metadata(pvc)["ownerReferences"] =
        boost::json::array{{{"name", "test-pod"}, {"uid", "test-pod-uid"}, {"controller", true}}};
  }
  return pvc;
}

std::vector<FindCase> withoutProvisioningCases() {
  const Json emptyDirPod = makePod()
                               .name("test-pod")
                               .uid("test-pod")
                               .inNamespace("testns")
                               .container(sh::model::testing::kPauseImage)
                               .parseJson();
  return {
      {"no-volumes", {}, {}, std::nullopt, podJson("test-pod", {}, "testns")},
      {"no-pvcs", {}, {}, std::nullopt, emptyDirPod},
      {"pvc-not-found", {boundPVC()}, {}, std::vector<Json>{}, std::nullopt, {}, {}, {}, true},
      {"bound-pvc", {boundPVC()}, {pvBound()}},
      {"bound-pvc,pv-not-exists",
       {boundPVC()},
       {},
       std::nullopt,
       std::nullopt,
       {},
       {},
       {kPVNotExist}},
      {"prebound-pvc",
       {preboundPVC()},
       {pvNode1aBound()},
       std::nullopt,
       std::nullopt,
       {},
       {},
       {},
       true},
      {"unbound-pvc,pv-same-node",
       {unboundPVC()},
       {pvNode2(), pvNode1a(), pvNode1b()},
       std::nullopt,
       std::nullopt,
       {"pv-node1a<-unbound-pvc"}},
      {"unbound-pvc,pv-different-node",
       {unboundPVC()},
       {pvNode2()},
       std::nullopt,
       std::nullopt,
       {},
       {},
       {kBindConflict}},
      {"two-unbound-pvcs",
       {unboundPVC(), unboundPVC2()},
       {pvNode1a(), pvNode1b()},
       std::nullopt,
       std::nullopt,
       {"pv-node1a<-unbound-pvc", "pv-node1b<-unbound-pvc2"}},
      {"two-unbound-pvcs,order-by-size",
       {unboundPVC2(), unboundPVC()},
       {pvNode1a(), pvNode1b()},
       std::nullopt,
       std::nullopt,
       {"pv-node1a<-unbound-pvc", "pv-node1b<-unbound-pvc2"}},
      {"two-unbound-pvcs,partial-match",
       {unboundPVC(), unboundPVC2()},
       {pvNode1a()},
       std::nullopt,
       std::nullopt,
       {},
       {},
       {kBindConflict}},
      {"one-bound,one-unbound",
       {unboundPVC(), boundPVC()},
       {pvBound(), pvNode1a()},
       std::nullopt,
       std::nullopt,
       {"pv-node1a<-unbound-pvc"}},
      {"one-bound,one-unbound,no-match",
       {unboundPVC(), boundPVC()},
       {pvBound(), pvNode2()},
       std::nullopt,
       std::nullopt,
       {},
       {},
       {kBindConflict}},
      {"one-prebound,one-unbound",
       {unboundPVC(), preboundPVC()},
       {pvNode1a(), pvNode1b()},
       std::nullopt,
       std::nullopt,
       {},
       {},
       {},
       true},
      {"immediate-bound-pvc", {immediateBoundPVC()}, {pvBoundImmediate()}},
      {"immediate-bound-pvc-wrong-node",
       {immediateBoundPVC()},
       {pvBoundImmediateNode2()},
       std::nullopt,
       std::nullopt,
       {},
       {},
       {kNodeConflict}},
      {"immediate-unbound-pvc",
       {immediateUnboundPVC()},
       {},
       std::nullopt,
       std::nullopt,
       {},
       {},
       {},
       true},
      {"immediate-unbound-pvc,delayed-mode-bound",
       {immediateUnboundPVC(), boundPVC()},
       {pvBound()},
       std::nullopt,
       std::nullopt,
       {},
       {},
       {},
       true},
      {"immediate-unbound-pvc,delayed-mode-unbound",
       {immediateUnboundPVC(), unboundPVC()},
       {},
       std::nullopt,
       std::nullopt,
       {},
       {},
       {},
       true},
      {"generic-ephemeral,no-pvc",
       {},
       {},
       std::nullopt,
       ephemeralPod("no-such-pvc"),
       {},
       {},
       {},
       true},
      {"generic-ephemeral,with-pvc",
       {},
       {testPV("pv-bound", "node1", "1G", "test-pod-test-volume", kImmediateClass)},
       std::vector<Json>{genericPVC(true)},
       ephemeralPod("test-volume")},
      {"generic-ephemeral,wrong-pvc",
       {},
       {testPV("pv-bound", "node1", "1G", "test-pod-test-volume", kImmediateClass)},
       std::vector<Json>{genericPVC(false)},
       ephemeralPod("test-volume"),
       {},
       {},
       {},
       true},
  };
}

TEST(VolumeBindingBinderTest, FindPodVolumesWithoutProvisioning) {
  for (std::optional<bool> driver :
       {std::optional<bool>(), std::optional<bool>(true), std::optional<bool>(false)}) {
    SCOPED_TRACE(driver ? (*driver ? "CSIDriver with capacity tracking"
                                   : "CSIDriver without capacity tracking")
                        : "no CSIDriver");
    runFindCases(withoutProvisioningCases(), driver);
  }
}

TEST(VolumeBindingBinderTest, FindPodVolumesWithProvisioning) {
  std::vector<FindCase> cases = {
      {"one-provisioned",
       {provisionedPVC()},
       {},
       std::nullopt,
       std::nullopt,
       {},
       {"provisioned-pvc"},
       {},
       false,
       true},
      {"two-unbound-pvcs,one-matched,one-provisioned",
       {unboundPVC(), provisionedPVC()},
       {pvNode1a()},
       std::nullopt,
       std::nullopt,
       {"pv-node1a<-unbound-pvc"},
       {"provisioned-pvc"},
       {},
       false,
       true},
      {"one-bound,one-provisioned",
       {boundPVC(), provisionedPVC()},
       {pvBound()},
       std::nullopt,
       std::nullopt,
       {},
       {"provisioned-pvc"},
       {},
       false,
       true},
      {"one-binding,one-selected-node",
       {boundPVC(), selectedNodePVC()},
       {pvBound()},
       std::nullopt,
       std::nullopt,
       {},
       {"provisioned-pvc"},
       {},
       false,
       true},
      {"immediate-unbound-pvc",
       {immediateUnboundPVC()},
       {},
       std::nullopt,
       std::nullopt,
       {},
       {},
       {},
       true},
      {"one-immediate-bound,one-provisioned",
       {immediateBoundPVC(), provisionedPVC()},
       {pvBoundImmediate()},
       std::nullopt,
       std::nullopt,
       {},
       {"provisioned-pvc"},
       {},
       false,
       true},
      {"invalid-provisioner",
       {noProvisionerPVC()},
       {},
       std::nullopt,
       std::nullopt,
       {},
       {},
       {kBindConflict}},
      {"volume-topology-unsatisfied",
       {topoMismatchPVC()},
       {},
       std::nullopt,
       std::nullopt,
       {},
       {},
       {kBindConflict}},
  };
  for (std::optional<bool> driver :
       {std::optional<bool>(), std::optional<bool>(true), std::optional<bool>(false)}) {
    SCOPED_TRACE(driver ? (*driver ? "CSIDriver with capacity tracking"
                                   : "CSIDriver without capacity tracking")
                        : "no CSIDriver");
    runFindCases(cases, driver);
  }
}

// A claim whose selected-node annotation names another node fails on this one at once.
TEST(VolumeBindingBinderTest, SelectedNodeOfAnotherNodeFailsFast) {
  Storage s;
  s.pvcs = {
      testPVC("provisioned-pvc", "1Gi", "node2", kSelectedNode, "", kWaitClassWithProvisioner)};
  Outcome o = find(s, podWith(s.pvcs));
  EXPECT_EQ(o.filter, unresolvable({kBindConflict}));
}

TEST(VolumeBindingBinderTest, Capacity) {
  const std::pair<std::string, std::string> node1 = {kNodeLabelKey, "node1"};
  const std::pair<std::string, std::string> node2 = {kNodeLabelKey, "node2"};
  struct Case {
    std::string name;
    std::vector<Json> capacities;
    bool enough;
  };
  std::vector<Case> cases = {
      {"network-attached", {capacity("net", kWaitClassWithProvisioner, nullptr, "1Gi", "")}, true},
      {"local-storage", {capacity("net", kWaitClassWithProvisioner, &node1, "1Gi", "")}, true},
      {"multiple",
       {capacity("net", kWaitClassWithProvisioner, nullptr, "1Gi", ""),
        capacity("net2", kWaitClassWithProvisioner, &node2, "1Gi", ""),
        capacity("net3", kWaitClassWithProvisioner, &node1, "1Gi", "")},
       true},
      {"no-storage", {}, false},
      {"wrong-node", {capacity("net", kWaitClassWithProvisioner, &node2, "1Gi", "")}, false},
      {"wrong-storage-class", {capacity("net", kWaitClass, &node1, "1Gi", "")}, false},
      {"insufficient-storage",
       {capacity("net", kWaitClassWithProvisioner, &node1, "1Mi", "")},
       false},
      {"insufficient-volume-size",
       {capacity("net", kWaitClassWithProvisioner, &node1, "1Gi", "1Mi")},
       false},
      {"zero-storage", {capacity("net", kWaitClassWithProvisioner, &node1, "0Mi", "")}, false},
      {"zero-volume-size", {capacity("net", kWaitClassWithProvisioner, &node1, "", "0Mi")}, false},
      {"nil-storage", {capacity("net", kWaitClassWithProvisioner, &node1, "", "")}, false},
      // Quantities compare as values: 1Gi of room in another spelling is enough.
      {"same-size-other-unit",
       {capacity("net", kWaitClassWithProvisioner, &node1, "1073741824", "")},
       true},
      {"one-byte-short",
       {capacity("net", kWaitClassWithProvisioner, &node1, "1073741823", "")},
       false},
      {"maximum-volume-size-wins",
       {capacity("net", kWaitClassWithProvisioner, &node1, "1Mi", "1.5Gi")},
       true},
  };
  for (bool optIn : {true, false}) {
    for (const Case& c : cases) {
      SCOPED_TRACE(c.name + (optIn ? " (opted in)" : " (not opted in)"));
      Storage s;
      s.pvcs = {provisionedPVC()};
      s.csiDrivers = {csiDriver(kProvisioner, optIn)};
      s.capacities = c.capacities;
      Outcome o = find(s, podWith(s.pvcs));
      EXPECT_EQ(o.filter, !optIn || c.enough ? "Success" : unresolvable({kNotEnoughSpace}));
    }
  }
  // A claim without a request has no capacity to check.
  Storage s;
  Json noRequest = provisionedPVC();
  spec(noRequest).erase("resources");
  s.pvcs = {noRequest};
  s.csiDrivers = {csiDriver(kProvisioner, true)};
  EXPECT_EQ(find(s, podWith(s.pvcs)).filter, "Success");
}

// TestFindPodVolumesWithCSIMigration: a bound GCE PD volume of zone us-east-1 (a label, no node
// affinity) is checked with its CSI translation on a node that migrated the plugin.
TEST(VolumeBindingBinderTest, FindPodVolumesWithCSIMigration) {
  const std::string gkeZone = "topology.gke.io/zone";
  Json pvc = testPVC("pvc-migration-bound", "1G", "", kBound, "pv-migration-bound", kWaitClass);
  Json pv = PVBuilder("pv-migration-bound", kWaitClass)
                .capacity("1G")
                .phase("Available")
                .claimRef("testns", "pvc-migration-bound", "pvc-uid")
                .label("failure-domain.beta.kubernetes.io/zone", "us-east-1")
                .label("failure-domain.beta.kubernetes.io/region", "us-east-1a")
                .source("gcePersistentDisk", {{"pdName", "test-disk"}, {"fsType", "ext4"}})
                .json();
  struct Case {
    std::string name;
    std::string nodeZone;
    std::optional<std::string> migrated;  // the CSINode's annotation; none: no CSINode
    std::string want;
  };
  std::vector<Case> cases = {
      {"pvc-bound", "us-east-1", "kubernetes.io/gce-pd", "Success"},
      {"pvc-bound,csinode-not-migrated", "us-east-1", "", "Success"},
      {"pvc-bound,missing-csinode", "us-east-1", std::nullopt, "Success"},
      {"pvc-bound,node-different-zone", "us-east-2", "kubernetes.io/gce-pd",
       unresolvable({kNodeConflict})},
      // Without migration the volume has no node affinity at all.
      {"pvc-bound,node-different-zone,not-migrated", "us-east-2", "", "Success"},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.name);
    Storage s;
    s.classes = testClasses();
    s.pvcs = {pvc};
    s.pvs = {pv};
    if (c.migrated) {
      s.csiNodes = {csiNode("node1", *c.migrated)};
    }
    sh::evaluate::Result r =
        run(s, podWith({pvc}), {NodeBuilder("node1").noLabels().label(gkeZone, c.nodeZone).json()});
    EXPECT_EQ(filterOf(r, "node1"), c.want);
  }
  // A regional disk whose zones are of two regions does not translate: an error.
  Storage s;
  s.classes = testClasses();
  s.pvcs = {pvc};
  Json regional = pv;
  metadata(regional)["labels"].as_object()["failure-domain.beta.kubernetes.io/zone"] =
      "us-east1-a__us-west1-b";
  s.pvs = {regional};
  s.csiNodes = {csiNode("node1", "kubernetes.io/gce-pd")};
  std::string error;
  try {
    run(s, podWith({pvc}), {NodeBuilder("node1").json()});
  } catch (const std::runtime_error& e) {
    error = e.what();
  }
  EXPECT_TRUE(contains(error,
                       "could not translate pv: failed to get region from zones: multiple "
                       "or no regions gotten from zones, got: map[us-east1:{} us-west1:{}]"));
}

// FindMatchingVolume's filters, one at a time against a volume that otherwise fits.
TEST(VolumeBindingBinderTest, FindMatchingVolumeFilters) {
  auto matches = [](Json pvc, Json pv) {
    Storage s;
    s.pvcs = {pvc};
    s.pvs = {pv};
    return find(s, podWith({pvc})).filter == "Success";
  };
  auto fitting = [] {
    return PVBuilder("pv", kWaitClass).capacity("5G").phase("Available").volumeMode("Filesystem");
  };
  Json claim = unboundPVC();
  EXPECT_TRUE(matches(claim, fitting().json()));
  EXPECT_FALSE(matches(claim, fitting().capacity("999M").json()));
  EXPECT_TRUE(matches(claim, fitting().capacity("1G").json()));
  EXPECT_TRUE(matches(claim, fitting().capacity("1000000000").json()));
  EXPECT_FALSE(matches(claim, fitting().volumeMode("Block").json()));
  EXPECT_FALSE(matches(claim, fitting().phase("Released").json()));
  EXPECT_FALSE(matches(claim, fitting().deleting().json()));
  EXPECT_FALSE(matches(claim, fitting().claimRef("testns", "someone-else", "x").json()));
  // Pre-bound to the claim (no uid): whatever its phase.
  EXPECT_TRUE(
      matches(claim, fitting().phase("Pending").claimRef("testns", "unbound-pvc", "").json()));
  // Access modes: every mode of the claim.
  Json rwo = testPVC("unbound-pvc", "1G", "", kUnbound, "", kWaitClass);
  spec(rwo)["accessModes"] = boost::json::array{"ReadWriteOnce"};
  EXPECT_FALSE(matches(rwo, fitting().json()));
  EXPECT_TRUE(matches(rwo, fitting().accessModes({"ReadWriteOnce", "ReadOnlyMany"}).json()));
  // volumeAttributesClassName must be equal.
  Json vac = fitting().json();
  spec(vac)["volumeAttributesClassName"] = "gold";
  EXPECT_FALSE(matches(claim, vac));
  // The claim's selector on the volume's labels.
  Json selective = unboundPVC();
  spec(selective)["selector"] = {{"matchLabels", {{"tier", "fast"}}}};
  EXPECT_FALSE(matches(selective, fitting().json()));
  EXPECT_TRUE(matches(selective, fitting().label("tier", "fast").json()));
  spec(selective)["selector"] = {
      {"matchExpressions",
       boost::json::array{
           {{"key", "tier"}, {"operator", "NotIn"}, {"values", boost::json::array{"slow"}}}}}};
  EXPECT_TRUE(matches(selective, fitting().json()));
  // The beta class annotation wins over spec.storageClassName.
  Json beta = PVBuilder("pv", "other").capacity("5G").phase("Available").json();
  annotations(beta)["volume.beta.kubernetes.io/storage-class"] = kWaitClass;
  EXPECT_TRUE(matches(claim, beta));
}

// A selector that does not convert is an error once matching is attempted.
TEST(VolumeBindingBinderTest, BadClaimSelectorIsAnError) {
  Json claim = unboundPVC();
  spec(claim)["selector"] = {
      {"matchExpressions",
       boost::json::array{
           {{"key", "tier"}, {"operator", "Gt"}, {"values", boost::json::array{"1"}}}}}};
  Storage s;
  s.classes = testClasses();
  s.pvcs = {claim};
  std::string error;
  try {
    run(s, podWith({claim}), {testNode()});
  } catch (const std::runtime_error& e) {
    error = e.what();
  }
  EXPECT_TRUE(contains(error,
                       "error creating internal label selector for claim: "
                       "testns/unbound-pvc: \"Gt\" is not a valid label selector operator"));
}

// CheckNodeAffinity as upstream: terms ORed, expressions ANDed, matchFields never compared (the
// node carries only its labels), an unparsable term matches nothing.
TEST(VolumeBindingBinderTest, BoundVolumeNodeAffinity) {
  auto onNode = [](Json affinity, const NodeBuilder& node) {
    Storage s;
    s.classes = testClasses();
    s.pvcs = {boundPVC()};
    s.pvs = {PVBuilder("pv-bound", kWaitClass).phase("Bound").rawNodeAffinity(affinity).json()};
    return filterOf(run(s, podWith(s.pvcs), {node.json()}), "node1");
  };
  auto term = [](boost::json::array expressions, boost::json::array fields = {}) {
    boost::json::object t;
    if (!expressions.empty()) {
      t["matchExpressions"] = expressions;
    }
    if (!fields.empty()) {
      t["matchFields"] = fields;
    }
    return t;
  };
  auto req = [](const char* key, const char* op, boost::json::array values = {}) {
    boost::json::object r = {{"key", key}, {"operator", op}};
    if (!values.empty()) {
      r["values"] = values;
    }
    return r;
  };
  auto required = [](boost::json::array terms) {
    return Json{{"required", {{"nodeSelectorTerms", terms}}}};
  };
  const std::string conflict = unresolvable({kNodeConflict});
  NodeBuilder node =
      NodeBuilder("node1").noLabels().label(kNodeLabelKey, "node1").label("size", "8");

  EXPECT_EQ(onNode(required({term({req("nodeKey", "In", {"node1"})})}), node), "Success");
  EXPECT_EQ(onNode(required({term({req("nodeKey", "NotIn", {"node1"})})}), node), conflict);
  EXPECT_EQ(onNode(required({term({req("nodeKey", "Exists")})}), node), "Success");
  EXPECT_EQ(onNode(required({term({req("gone", "DoesNotExist")})}), node), "Success");
  EXPECT_EQ(onNode(required({term({req("size", "Gt", {"7"})})}), node), "Success");
  EXPECT_EQ(onNode(required({term({req("size", "Lt", {"7"})})}), node), conflict);
  // ANDed within a term, ORed across terms.
  EXPECT_EQ(
      onNode(required({term({req("nodeKey", "In", {"node1"}), req("gone", "Exists")})}), node),
      conflict);
  EXPECT_EQ(
      onNode(required({term({req("gone", "Exists")}), term({req("size", "In", {"8"})})}), node),
      "Success");
  // matchFields are not compared: a term of fields alone matches.
  EXPECT_EQ(onNode(required({term({}, {req("metadata.name", "In", {"elsewhere"})})}), node),
            "Success");
  // An unparsable term matches nothing; an empty one is dropped.
  EXPECT_EQ(onNode(required({term({req("nodeKey", "Foo", {"node1"})})}), node), conflict);
  EXPECT_EQ(onNode(required({term({req("size", "Gt", {"x"})})}), node), conflict);
  EXPECT_EQ(onNode(required({boost::json::object()}), node), conflict);
  // No required part, or no node affinity at all: every node.
  EXPECT_EQ(onNode(Json{{"required", nullptr}}, node), "Success");
  EXPECT_EQ(onNode(nullptr, node), "Success");
}

}  // namespace
}  // namespace schedhost::testing::volumebinding::binder_test
