// VolumeBinding through the real host: upstream volume_binding_test.go's TestVolumeBinding
// (v1.36: StorageCapacityScoring off, so PreScore skips and no case scores), PreFilter's claim
// checks and the StatefulSet cases end to end (a WaitForFirstConsumer claim provisioned on the
// node chosen, a local volume's node, a bound zonal volume).
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "tests/plugins/volumebinding/volume_binding_test_util.h"

namespace schedhost::testing::volumebinding::volume_binding_test {
namespace {

// The classes of upstream's table: immediate-sc, wait-sc and wait-hdd-sc (no provisioner).
Storage withClasses(Storage s) {
  s.classes.push_back(storageClass("immediate-sc", "Immediate"));
  s.classes.push_back(storageClass("wait-sc", "WaitForFirstConsumer"));
  s.classes.push_back(storageClass("wait-hdd-sc", "WaitForFirstConsumer"));
  return s;
}

struct Case {
  std::string name;
  std::vector<std::string> claims;  // the pod's claims
  std::vector<Json> nodes;
  Storage storage;
  std::string wantPreFilter;
  std::vector<std::string> wantFilter;  // per node, when PreFilter passed
};

void runCases(const std::vector<Case>& cases) {
  for (const Case& c : cases) {
    SCOPED_TRACE(c.name);
    sh::evaluate::Result r = run(withClasses(c.storage), podJson("pod-a", c.claims), c.nodes);
    EXPECT_EQ(preFilterOf(r), c.wantPreFilter);
    if (c.wantPreFilter != "Success" && c.wantPreFilter != "Skip") {
      continue;
    }
    for (std::size_t i = 0; i < c.nodes.size(); ++i) {
      const std::string node(c.nodes[i].at("metadata").at("name").as_string());
      EXPECT_EQ(filterOf(r, node), c.wantFilter[i]) << node;
    }
  }
}

std::vector<Json> hostnameNodes(std::vector<std::string> names) {
  std::vector<Json> out;
  for (const std::string& n : names) {
    out.push_back(NodeBuilder(n).json());
  }
  return out;
}

TEST(VolumeBindingTest, UpstreamTable) {
  const std::string ok = "Success";
  const std::string bindConflict = std::string("UnschedulableAndUnresolvable: ") + kBindConflict;
  std::vector<Case> cases;
  cases.push_back({"pod has not pvcs", {}, hostnameNodes({"node-a"}), {}, "Skip", {ok}});
  {
    Storage s;
    s.pvcs = {PVCBuilder("pvc-a", "wait-sc").boundTo("pv-a").json()};
    s.pvs = {PVBuilder("pv-a", "wait-sc").phase("Available").json()};
    cases.push_back({"all bound", {"pvc-a"}, hostnameNodes({"node-a"}), s, ok, {ok}});
  }
  {
    // v1.36's PreFilter returns no node set for bound local volumes.
    Storage s;
    s.pvcs = {PVCBuilder("pvc-a", "wait-sc").boundTo("pv-a").json(),
              PVCBuilder("pvc-b", "wait-sc").boundTo("pv-b").json()};
    s.pvs = {
        PVBuilder("pv-a", "wait-sc").phase("Bound").nodeAffinity({{kHostname, {"node-a"}}}).json(),
        PVBuilder("pv-b", "wait-sc").phase("Bound").nodeAffinity({{kHostname, {"node-a"}}}).json()};
    cases.push_back({"all bound with local volumes",
                     {"pvc-a", "pvc-b"},
                     hostnameNodes({"node-a"}),
                     s,
                     ok,
                     {ok}});
  }
  cases.push_back({"PVC does not exist",
                   {"pvc-a"},
                   hostnameNodes({"node-a"}),
                   {},
                   "UnschedulableAndUnresolvable: persistentvolumeclaim \"pvc-a\" not found",
                   {}});
  {
    Storage s;
    s.pvcs = {PVCBuilder("pvc-a", "wait-sc").boundTo("pv-a").json()};
    cases.push_back({"Part of PVCs do not exist",
                     {"pvc-a", "pvc-b"},
                     hostnameNodes({"node-a"}),
                     s,
                     "UnschedulableAndUnresolvable: persistentvolumeclaim \"pvc-b\" not found",
                     {}});
  }
  {
    Storage s;
    s.pvcs = {PVCBuilder("pvc-a", "immediate-sc").json()};
    cases.push_back({"immediate claims not bound",
                     {"pvc-a"},
                     hostnameNodes({"node-a"}),
                     s,
                     "UnschedulableAndUnresolvable: pod has unbound immediate "
                     "PersistentVolumeClaims",
                     {}});
  }
  {
    Storage s;
    s.pvcs = {PVCBuilder("pvc-a", "wait-sc").json()};
    cases.push_back(
        {"unbound claims no matches", {"pvc-a"}, hostnameNodes({"node-a"}), s, ok, {bindConflict}});
  }
  {
    Storage s;
    s.pvcs = {PVCBuilder("pvc-a", "wait-sc").boundTo("pv-a").json(),
              PVCBuilder("pvc-b", "wait-sc").json()};
    s.pvs = {
        PVBuilder("pv-a", "wait-sc").phase("Available").nodeAffinity({{"foo", {"bar"}}}).json()};
    cases.push_back(
        {"bound and unbound unsatisfied",
         {"pvc-a", "pvc-b"},
         {NodeBuilder("node-a").label("foo", "barbar").json()},
         s,
         ok,
         {std::string("UnschedulableAndUnresolvable: ") + kNodeConflict + ", " + kBindConflict}});
  }
  {
    Storage s;
    s.pvcs = {PVCBuilder("pvc-a", "wait-sc").boundTo("pv-a").json()};
    cases.push_back({"pv not found",
                     {"pvc-a"},
                     hostnameNodes({"node-a"}),
                     s,
                     ok,
                     {std::string("UnschedulableAndUnresolvable: ") + kPVNotExist}});
  }
  {
    Storage s;
    s.pvcs = {PVCBuilder("pvc-a", "wait-sc").boundTo("pv-a").phase("Lost").json()};
    cases.push_back({"pv not found claim lost",
                     {"pvc-a"},
                     hostnameNodes({"node-a"}),
                     s,
                     "UnschedulableAndUnresolvable: persistentvolumeclaim \"pvc-a\" bound to "
                     "non-existent persistentvolume \"pv-a\"",
                     {}});
  }
  {
    Storage s;
    s.pvcs = {PVCBuilder("pvc-a", "wait-sc").request("50Gi").json()};
    for (const char* n : {"pv-a-0", "pv-a-1"}) {
      s.pvs.push_back(PVBuilder(n, "wait-sc")
                          .phase("Available")
                          .capacity("200Gi")
                          .nodeAffinity({{kHostname, {"node-a"}}})
                          .json());
    }
    for (const char* n : {"pv-b-0", "pv-b-1"}) {
      s.pvs.push_back(PVBuilder(n, "wait-sc")
                          .phase("Available")
                          .capacity("100Gi")
                          .nodeAffinity({{kHostname, {"node-b"}}})
                          .json());
    }
    cases.push_back({"local volumes with close capacity are preferred",
                     {"pvc-a"},
                     hostnameNodes({"node-a", "node-b", "node-c"}),
                     s,
                     ok,
                     {ok, ok, bindConflict}});
  }
  {
    Storage s;
    s.pvcs = {PVCBuilder("pvc-0", "wait-sc").request("50Gi").json(),
              PVCBuilder("pvc-1", "wait-hdd-sc").request("100Gi").json()};
    for (const char* n : {"pv-a-0", "pv-a-1"}) {
      s.pvs.push_back(PVBuilder(n, "wait-sc")
                          .phase("Available")
                          .capacity("200Gi")
                          .nodeAffinity({{kHostname, {"node-a"}}})
                          .json());
    }
    for (const char* n : {"pv-a-2", "pv-a-3"}) {
      s.pvs.push_back(PVBuilder(n, "wait-hdd-sc")
                          .phase("Available")
                          .capacity("200Gi")
                          .nodeAffinity({{kHostname, {"node-a"}}})
                          .json());
    }
    for (const char* n : {"pv-b-0", "pv-b-1"}) {
      s.pvs.push_back(PVBuilder(n, "wait-sc")
                          .phase("Available")
                          .capacity("100Gi")
                          .nodeAffinity({{kHostname, {"node-b"}}})
                          .json());
    }
    for (const char* n : {"pv-b-2", "pv-b-3"}) {
      s.pvs.push_back(PVBuilder(n, "wait-hdd-sc")
                          .phase("Available")
                          .capacity("100Gi")
                          .nodeAffinity({{kHostname, {"node-b"}}})
                          .json());
    }
    cases.push_back({"local volumes with close capacity are preferred (multiple pvcs)",
                     {"pvc-0", "pvc-1"},
                     hostnameNodes({"node-a", "node-b", "node-c"}),
                     s,
                     ok,
                     {ok, ok, bindConflict}});
  }
  {
    Storage s;
    s.pvcs = {PVCBuilder("pvc-a", "wait-sc").request("50Gi").json()};
    const std::string zone = "topology.kubernetes.io/zone";
    const std::string region = "topology.kubernetes.io/region";
    for (const char* n : {"pv-a-0", "pv-a-1"}) {
      s.pvs.push_back(PVBuilder(n, "wait-sc")
                          .phase("Available")
                          .capacity("200Gi")
                          .nodeAffinity({{region, {"region-a"}}, {zone, {"zone-a"}}})
                          .json());
    }
    for (const char* n : {"pv-b-0", "pv-b-1"}) {
      s.pvs.push_back(PVBuilder(n, "wait-sc")
                          .phase("Available")
                          .capacity("100Gi")
                          .nodeAffinity({{region, {"region-b"}}, {zone, {"zone-b"}}})
                          .json());
    }
    std::vector<Json> nodes;
    for (const char* z : {"a", "b", "c"}) {
      for (const char* n : {"a", "b"}) {
        nodes.push_back(NodeBuilder(std::string("zone-") + z + "-node-" + n)
                            .label(region, std::string("region-") + z)
                            .label(zone, std::string("zone-") + z)
                            .json());
      }
    }
    cases.push_back({"zonal volumes with close capacity are preferred",
                     {"pvc-a"},
                     nodes,
                     s,
                     ok,
                     {ok, ok, ok, ok, bindConflict, bindConflict}});
  }
  runCases(cases);
}

// With the gate off there is no scorer: PreScore skips, so the plugin never scores a node.
TEST(VolumeBindingTest, PreScoreSkipsWithoutStorageCapacityScoring) {
  Storage s;
  s.pvcs = {PVCBuilder("pvc-a", "wait-sc").request("50Gi").json()};
  s.pvs = {PVBuilder("pv-a", "wait-sc")
               .phase("Available")
               .capacity("200Gi")
               .nodeAffinity({{kHostname, {"node-a"}}})
               .json()};
  sh::evaluate::Result r =
      run(withClasses(s), podJson("pod-a", {"pvc-a"}), hostnameNodes({"node-a"}));
  ASSERT_EQ(r.selected, std::optional<std::string>("node-a"));
  EXPECT_EQ(scoreOf(r, "node-a", kPlugin), -1);
}

// podHasPVCs: a claim being deleted, an ephemeral volume's claim not made yet or not the pod's.
TEST(VolumeBindingTest, PreFilterRejectsClaimsItCannotUse) {
  {
    Storage s;
    s.pvcs = {PVCBuilder("pvc-a", "wait-sc").deleting().json()};
    sh::evaluate::Result r = run(withClasses(s), podJson("pod-a", {"pvc-a"}), hostnameNodes({"n"}));
    EXPECT_EQ(preFilterOf(r),
              "UnschedulableAndUnresolvable: persistentvolumeclaim \"pvc-a\" is being deleted");
  }
  auto ephemeralPod = [] {
    return makePod()
        .name("pod-a")
        .uid("pod-a-uid")
        .inNamespace("default")
        .container(sh::model::testing::kPauseImage)
        .ephemeralVolume("scratch")
        .parseJson();
  };
  {
    sh::evaluate::Result r = run(withClasses({}), ephemeralPod(), hostnameNodes({"n"}));
    EXPECT_EQ(preFilterOf(r),
              "UnschedulableAndUnresolvable: waiting for ephemeral volume controller to create "
              "the persistentvolumeclaim \"pod-a-scratch\"");
  }
  {
    Storage s;
    s.pvcs = {PVCBuilder("pod-a-scratch", "wait-sc").ownedBy("pod-a", "other-uid").json()};
    sh::evaluate::Result r = run(withClasses(s), ephemeralPod(), hostnameNodes({"n"}));
    EXPECT_EQ(preFilterOf(r),
              "UnschedulableAndUnresolvable: PVC default/pod-a-scratch was not created for pod "
              "default/pod-a (pod is not owner)");
  }
  {
    Storage s;
    s.pvcs = {PVCBuilder("pod-a-scratch", "wait-sc").ownedBy("pod-a", "pod-a-uid").json()};
    s.pvs = {PVBuilder("pv-a", "wait-sc").phase("Available").json()};
    sh::evaluate::Result r = run(withClasses(s), ephemeralPod(), hostnameNodes({"n"}));
    EXPECT_EQ(preFilterOf(r), "Success");
    EXPECT_EQ(filterOf(r, "n"), "Success");
  }
  {
    // A class without volumeBindingMode is an error (IsDelayBindingMode).
    Storage s;
    s.classes = {storageClass("no-mode", "")};
    s.pvcs = {PVCBuilder("pvc-a", "no-mode").json()};
    std::string error;
    try {
      run(s, podJson("pod-a", {"pvc-a"}), hostnameNodes({"n"}));
    } catch (const std::runtime_error& e) {
      error = e.what();
    }
    EXPECT_TRUE(contains(error, "VolumeBindingMode not set for StorageClass \"no-mode\""));
  }
  {
    // No class, a class that does not exist, a pre-bound claim: the PV controller's to bind.
    for (Json pvc : {PVCBuilder("pvc-a", "").noClass().json(), PVCBuilder("pvc-a", "gone").json(),
                     PVCBuilder("pvc-a", "wait-sc").preboundTo("pv-a").json()}) {
      Storage s;
      s.pvcs = {pvc};
      sh::evaluate::Result r =
          run(withClasses(s), podJson("pod-a", {"pvc-a"}), hostnameNodes({"n"}));
      EXPECT_EQ(preFilterOf(r),
                "UnschedulableAndUnresolvable: pod has unbound immediate PersistentVolumeClaims");
    }
  }
}

// The StatefulSet case: a claim of a WaitForFirstConsumer class with a provisioner is
// provisioned where the pod goes, restricted by the class's allowedTopologies; Reserve and
// PreBind ask for it with the selected-node annotation.
TEST(VolumeBindingTest, WaitForFirstConsumerClaimIsProvisionedOnTheChosenNode) {
  const std::string zone = "topology.kubernetes.io/zone";
  Storage s;
  s.classes = {withAllowedTopology(
      storageClass("standard", "WaitForFirstConsumer", "ebs.csi.aws.com"), zone, {"z2"})};
  s.pvcs = {PVCBuilder("data-web-0", "standard").request("1Gi").version("5").json()};
  sh::evaluate::Result r = run(s, podJson("web-0", {"data-web-0"}),
                               {NodeBuilder("node-a").label(zone, "z1").json(),
                                NodeBuilder("node-b").label(zone, "z2").json()});
  EXPECT_EQ(filterOf(r, "node-a"), std::string("UnschedulableAndUnresolvable: ") + kBindConflict);
  EXPECT_EQ(filterOf(r, "node-b"), "Success");
  ASSERT_EQ(r.selected, std::optional<std::string>("node-b"));
  std::vector<std::string> writes = plannedWrites(r);
  ASSERT_EQ(writes.size(), 1u);
  EXPECT_TRUE(contains(writes[0], "update persistentvolumeclaims default/data-web-0: "));
  EXPECT_TRUE(
      contains(writes[0], "\"annotations\":{\"volume.kubernetes.io/selected-node\":\"node-b\"}"));
  EXPECT_TRUE(contains(writes[0], "\"resourceVersion\":\"5\""));
}

// A static local volume: the claim binds to the volume of the node, whose node affinity decides.
TEST(VolumeBindingTest, StaticLocalVolumeBindsOnItsNode) {
  Storage s;
  s.classes = {storageClass("local", "WaitForFirstConsumer", "kubernetes.io/no-provisioner")};
  s.pvcs = {PVCBuilder("data", "local").request("10Gi").uid("claim-uid").json()};
  s.pvs = {PVBuilder("local-a", "local")
               .phase("Available")
               .capacity("100Gi")
               .nodeAffinity({{kHostname, {"node-a"}}})
               .json(),
           PVBuilder("local-b", "local")
               .phase("Available")
               .capacity("5Gi")
               .nodeAffinity({{kHostname, {"node-b"}}})
               .json()};
  sh::evaluate::Result r =
      run(s, podJson("pod", {"data"}), hostnameNodes({"node-a", "node-b", "node-c"}));
  EXPECT_EQ(filterOf(r, "node-a"), "Success");
  // node-b's volume is too small, node-c has none; no-provisioner cannot provision.
  EXPECT_EQ(filterOf(r, "node-b"), std::string("UnschedulableAndUnresolvable: ") + kBindConflict);
  EXPECT_EQ(filterOf(r, "node-c"), std::string("UnschedulableAndUnresolvable: ") + kBindConflict);
  ASSERT_EQ(r.selected, std::optional<std::string>("node-a"));
  std::vector<std::string> writes = plannedWrites(r);
  ASSERT_EQ(writes.size(), 1u);
  EXPECT_TRUE(contains(writes[0], "update persistentvolumes local-a: "));
  EXPECT_TRUE(contains(writes[0],
                       "\"claimRef\":{\"kind\":\"PersistentVolumeClaim\",\"namespace\":\"default\","
                       "\"name\":\"data\",\"uid\":\"claim-uid\",\"apiVersion\":\"v1\","
                       "\"resourceVersion\":\"1\"}"));
  EXPECT_TRUE(contains(writes[0], "\"pv.kubernetes.io/bound-by-controller\":\"yes\""));
}

// A bound zonal volume keeps the pod in its zone; the claim being bound, nothing is written.
TEST(VolumeBindingTest, BoundZonalVolumeKeepsThePodInItsZone) {
  const std::string zone = "topology.kubernetes.io/zone";
  Storage s;
  s.classes = {storageClass("standard", "WaitForFirstConsumer", "pd.csi.storage.gke.io")};
  s.pvcs = {PVCBuilder("data", "standard").boundTo("pv-zonal").json()};
  s.pvs = {PVBuilder("pv-zonal", "standard")
               .phase("Bound")
               .claimRef("default", "data", "pvc-uid")
               .nodeAffinity({{zone, {"us-east1-b"}}})
               .json()};
  sh::evaluate::Result r = run(s, podJson("pod", {"data"}),
                               {NodeBuilder("node-a").label(zone, "us-east1-a").json(),
                                NodeBuilder("node-b").label(zone, "us-east1-b").json()});
  EXPECT_EQ(filterOf(r, "node-a"), std::string("UnschedulableAndUnresolvable: ") + kNodeConflict);
  EXPECT_EQ(filterOf(r, "node-b"), "Success");
  ASSERT_EQ(r.selected, std::optional<std::string>("node-b"));
  EXPECT_TRUE(plannedWrites(r).empty());
  EXPECT_FALSE(r.bindingFailure.has_value());
}

}  // namespace
}  // namespace schedhost::testing::volumebinding::volume_binding_test
