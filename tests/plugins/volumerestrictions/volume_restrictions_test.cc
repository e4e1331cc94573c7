// VolumeRestrictions through the real host: upstream volume_restrictions_test.go's tables
// (TestGCEDiskConflicts, TestAWSDiskConflicts, TestRBDDiskConflicts, TestISCSIDiskConflicts,
// TestAccessModeConflicts, Test_isSchedulableAfterPodDeleted,
// Test_isSchedulableAfterPersistentVolumeClaimChange), the read-only rules, and the
// PreFilterExtensions as preemption drives them.
#include <gtest/gtest.h>

#include <boost/json.hpp>
#include <optional>
#include <stdexcept>
#include <string>
#include <tuple>
#include <vector>

#include "host/connectors/object_store.h"
#include "host/evaluate/evaluate.h"
#include "tests/plugins/plugin_test_util.h"

namespace schedhost::testing::volume_restrictions_test {
namespace {

using sh::evaluate::Result;

constexpr char kPlugin[] = "VolumeRestrictions";
constexpr char kDiskConflict[] = "node(s) had no available disk";
constexpr char kReadWriteOncePodConflict[] =
    "node(s) unavailable due to PersistentVolumeClaim with ReadWriteOncePod access mode already "
    "in-use by another pod";

// -- Volumes, pods and claims as manifests ----------------------------------------------------

boost::json::object gcePD(const std::string& pdName, bool readOnly = false) {
  return {{"name", "gce"}, {"gcePersistentDisk", {{"pdName", pdName}, {"readOnly", readOnly}}}};
}
boost::json::object awsEBS(const std::string& volumeID, bool readOnly = false) {
  return {{"name", "aws"},
          {"awsElasticBlockStore", {{"volumeID", volumeID}, {"readOnly", readOnly}}}};
}
boost::json::object rbd(const std::vector<std::string>& monitors, const std::string& pool,
                        const std::string& image, bool readOnly = false) {
  boost::json::array mons;
  for (const std::string& m : monitors) {
    mons.emplace_back(m);
  }
  boost::json::object source = {
      {"monitors", mons}, {"image", image}, {"fsType", "ext4"}, {"readOnly", readOnly}};
  if (!pool.empty()) {
    source["pool"] = pool;
  }
  return {{"name", "rbd"}, {"rbd", source}};
}
boost::json::object iscsi(const std::string& iqn, bool readOnly = false) {
  return {{"name", "iscsi"},
          {"iscsi",
           {{"targetPortal", "127.0.0.1:3260"},
            {"iqn", iqn},
            {"fsType", "ext4"},
            {"lun", 0},
            {"readOnly", readOnly}}}};
}
boost::json::object pvcVolume(const std::string& claim) {
  return {{"name", claim}, {"persistentVolumeClaim", {{"claimName", claim}}}};
}
boost::json::object emptyDir(const std::string& name) {
  return {{"name", name}, {"emptyDir", boost::json::object()}};
}

struct PodSpec {
  std::string name;
  std::vector<boost::json::object> volumes;
  std::string node;  // "" for the pending pod
  std::string ns = "default";
  int32_t priority = 0;
};

boost::json::value podJson(const PodSpec& p) {
  auto w = makePod().name(p.name).uid(p.name).inNamespace(p.ns).container(
      sh::model::testing::kPauseImage);
  if (!p.node.empty()) {
    w.node(p.node);
  }
  if (p.priority != 0) {
    w.priority(p.priority);
  }
  boost::json::array volumes;
  for (const boost::json::object& v : p.volumes) {
    volumes.emplace_back(v);
  }
  if (!volumes.empty()) {
    w.set({"spec", "volumes"}, volumes);
  }
  return w.parseJson();
}

PodPtr podObj(const PodSpec& p) {
  std::string error;
  auto pod = sh::model::parsePod(podJson(p), error);
  if (!pod) {
    throw std::runtime_error(error);
  }
  return pod;
}

// A claim bound to the volume "pv-<name>" (fully: VolumeBinding, which every profile with
// claims has, then lets it through).
boost::json::value claim(const std::string& name, const std::string& accessMode,
                         const std::string& ns = "default") {
  return {
      {"metadata",
       {{"name", name},
        {"namespace", ns},
        {"annotations", {{"pv.kubernetes.io/bind-completed", "yes"}}}}},
      {"spec",
       {{"accessModes", boost::json::array{accessMode.c_str()}}, {"volumeName", "pv-" + name}}}};
}

boost::json::value nodeJson(const std::string& name) {
  return makeNode()
      .name(name)
      .capacity({{"cpu", "4"}, {"memory", "16Gi"}, {"pods", "110"}})
      .parseJson();
}

// The scenario document of one decision: the plugin, then VolumeBinding (the host refuses a pod
// with claims in a profile without it; after the plugin, it never answers first), then
// `others`, on `nodes`, with `placed` already running, `claims` stored and the volume each is
// bound to.
boost::json::object scenarioDoc(const std::vector<std::string>& others,
                                const std::vector<std::string>& nodes,
                                const std::vector<PodSpec>& placed, const PodSpec& pod,
                                const std::vector<boost::json::value>& claims) {
  boost::json::object doc;
  doc["name"] = "volume restrictions test";
  boost::json::array ps = {boost::json::object{{"name", kPlugin}},
                           boost::json::object{{"name", "VolumeBinding"}}};
  for (const std::string& p : others) {
    ps.push_back(boost::json::object{{"name", p}});
  }
  doc["plugins"] = ps;
  boost::json::array ns;
  for (const std::string& n : nodes) {
    ns.push_back(nodeJson(n));
  }
  doc["nodes"] = ns;
  boost::json::array pods;
  for (const PodSpec& p : placed) {
    pods.push_back(podJson(p));
  }
  doc["pods"] = pods;
  doc["pod"] = podJson(pod);
  boost::json::array pvcs;
  boost::json::array pvs;
  for (const boost::json::value& c : claims) {
    pvcs.push_back(c);
    const boost::json::value* volume = c.at("spec").as_object().if_contains("volumeName");
    if (volume != nullptr && volume->is_string()) {
      pvs.push_back(boost::json::object{{"metadata", {{"name", volume->as_string()}}}});
    }
  }
  doc["persistentVolumeClaims"] = pvcs;
  doc["persistentVolumes"] = pvs;
  return doc;
}

Result run(const std::vector<std::string>& others, const std::vector<std::string>& nodes,
           const std::vector<PodSpec>& placed, const PodSpec& pod,
           const std::vector<boost::json::value>& claims = {}) {
  std::string error;
  auto scenario =
      sh::evaluate::parseScenario(scenarioDoc(others, nodes, placed, pod, claims), error);
  if (!scenario) {
    throw std::runtime_error(error);
  }
  return sh::evaluate::run(*scenario, testOptions());
}

// "Code: reason" of the plugin's PreFilter, or "Success".
std::string preFilterOf(const Result& r) {
  auto it = r.preFilter.find(kPlugin);
  if (it == r.preFilter.end()) {
    return "Success";
  }
  std::string out = it->second.code;
  for (const std::string& reason : it->second.reasons) {
    out += ": " + reason;
  }
  return out;
}

std::string filterOf(const Result& r, const std::string& node) {
  sh::evaluate::PluginStatus s = filterStatus(r, node, kPlugin);
  std::string out = s.code;
  for (const std::string& reason : s.reasons) {
    out += ": " + reason;
  }
  return out;
}

// -- In-line disks ----------------------------------------------------------------------------

struct DiskCase {
  std::string name;
  std::vector<boost::json::object> podVolumes;
  std::vector<boost::json::object> existingVolumes;  // a pod on node-1; none when empty
  bool existingPod;
  std::string wantPreFilter;
  std::string wantFilter;
};

void runDiskCases(const std::vector<DiskCase>& cases) {
  for (const DiskCase& c : cases) {
    SCOPED_TRACE(c.name);
    std::vector<PodSpec> placed;
    if (c.existingPod) {
      placed.push_back({"existing", c.existingVolumes, "node-1"});
    }
    Result r = run({}, {"node-1"}, placed, {"pod", c.podVolumes});
    EXPECT_EQ(preFilterOf(r), c.wantPreFilter);
    EXPECT_EQ(filterOf(r, "node-1"), c.wantFilter);
  }
}

const std::string kConflict = std::string("Unschedulable: ") + kDiskConflict;

// The four tables share upstream's shape: "nothing", "one state", "same state", "different
// state"; the pending pod of "nothing" and "one state" has no volumes at all.
std::vector<DiskCase> upstreamDiskCases(const boost::json::object& state,
                                        const boost::json::object& other) {
  return {
      {"nothing", {}, {}, false, "Skip", "Success"},
      {"one state", {}, {state}, true, "Skip", "Success"},
      {"same state", {state}, {state}, true, "Success", kConflict},
      {"different state", {other}, {state}, true, "Success", "Success"},
  };
}

TEST(VolumeRestrictionsTest, GCEDiskConflicts) {
  auto cases = upstreamDiskCases(gcePD("foo"), gcePD("bar"));
  cases.push_back({"pod with a volume that doesn't have restrictions",
                   {emptyDir("volume with no restriction")},
                   {},
                   false,
                   "Skip",
                   "Success"});
  cases.push_back(
      {"both read-only", {gcePD("foo", true)}, {gcePD("foo", true)}, true, "Success", "Success"});
  cases.push_back({"only the new pod read-only",
                   {gcePD("foo", true)},
                   {gcePD("foo")},
                   true,
                   "Success",
                   kConflict});
  cases.push_back({"only the existing pod read-only",
                   {gcePD("foo")},
                   {gcePD("foo", true)},
                   true,
                   "Success",
                   kConflict});
  runDiskCases(cases);
}

TEST(VolumeRestrictionsTest, AWSDiskConflicts) {
  auto cases = upstreamDiskCases(awsEBS("foo"), awsEBS("bar"));
  // An EBS volume attaches to one instance: read-only does not help.
  cases.push_back(
      {"both read-only", {awsEBS("foo", true)}, {awsEBS("foo", true)}, true, "Success", kConflict});
  runDiskCases(cases);
}

TEST(VolumeRestrictionsTest, RBDDiskConflicts) {
  auto cases = upstreamDiskCases(rbd({"a", "b"}, "foo", "bar"), rbd({"c", "d"}, "foo", "bar"));
  cases.push_back({"one monitor in common",
                   {rbd({"b", "c"}, "foo", "bar")},
                   {rbd({"a", "b"}, "foo", "bar")},
                   true,
                   "Success",
                   kConflict});
  cases.push_back({"another pool",
                   {rbd({"a"}, "other", "bar")},
                   {rbd({"a"}, "foo", "bar")},
                   true,
                   "Success",
                   "Success"});
  cases.push_back({"another image",
                   {rbd({"a"}, "foo", "baz")},
                   {rbd({"a"}, "foo", "bar")},
                   true,
                   "Success",
                   "Success"});
  // The API server defaults an unset pool to "rbd".
  cases.push_back({"an unset pool is rbd",
                   {rbd({"a"}, "", "bar")},
                   {rbd({"a"}, "rbd", "bar")},
                   true,
                   "Success",
                   kConflict});
  cases.push_back({"both read-only",
                   {rbd({"a"}, "foo", "bar", true)},
                   {rbd({"a"}, "foo", "bar", true)},
                   true,
                   "Success",
                   "Success"});
  runDiskCases(cases);
}

TEST(VolumeRestrictionsTest, ISCSIDiskConflicts) {
  auto cases = upstreamDiskCases(iscsi("iqn.2016-12.server:storage.target01"),
                                 iscsi("iqn.2017-12.server:storage.target01"));
  cases.push_back({"both read-only",
                   {iscsi("iqn.2016-12.server:storage.target01", true)},
                   {iscsi("iqn.2016-12.server:storage.target01", true)},
                   true,
                   "Success",
                   "Success"});
  cases.push_back({"one read-write",
                   {iscsi("iqn.2016-12.server:storage.target01", true)},
                   {iscsi("iqn.2016-12.server:storage.target01")},
                   true,
                   "Success",
                   kConflict});
  runDiskCases(cases);
}

TEST(VolumeRestrictionsTest, DisksOfOtherKindsNeverConflict) {
  // A GCE PD and an EBS volume with the same name are different disks.
  runDiskCases({{"gce vs aws", {gcePD("foo")}, {awsEBS("foo")}, true, "Success", "Success"}});
}

TEST(VolumeRestrictionsTest, OnlyTheConflictingNodeIsRejected) {
  Result r = run({}, {"node-1", "node-2"}, {{"existing", {gcePD("foo")}, "node-1"}},
                 {"pod", {gcePD("foo")}});
  EXPECT_EQ(filterOf(r, "node-1"), kConflict);
  EXPECT_EQ(filterOf(r, "node-2"), "Success");
  ASSERT_TRUE(r.selected.has_value());
  EXPECT_EQ(*r.selected, "node-2");
}

// -- ReadWriteOncePod -------------------------------------------------------------------------

TEST(VolumeRestrictionsTest, AccessModeConflicts) {
  const auto rwop1 = claim("claim-with-rwop-1", "ReadWriteOncePod");
  const auto rwop2 = claim("claim-with-rwop-2", "ReadWriteOncePod");
  const auto rwx = claim("claim-with-rwx", "ReadWriteMany");
  const PodSpec podWithOnePVC = {"pod-with-one-pvc", {pvcVolume("claim-with-rwop-1")}, "node-1"};
  const PodSpec podWithTwoPVCs = {"pod-with-two-pvcs",
                                  {pvcVolume("claim-with-rwop-1"), pvcVolume("claim-with-rwop-2")},
                                  "node-1"};
  const PodSpec podWithReadWriteManyPVC = {"pod-with-rwx", {pvcVolume("claim-with-rwx")}, "node-1"};
  const std::string conflict = std::string("Unschedulable: ") + kReadWriteOncePodConflict;

  struct Case {
    std::string name;
    PodSpec pod;
    std::vector<PodSpec> existing;
    std::vector<boost::json::value> claims;
    std::string wantPreFilter;
    std::string wantFilter;
  };
  const std::vector<Case> cases = {
      {"nothing", {"pod", {}}, {}, {}, "Skip", "Success"},
      {"failed to get PVC",
       {"pod-with-one-pvc", {pvcVolume("claim-with-rwop-1")}},
       {},
       {},
       "UnschedulableAndUnresolvable: persistentvolumeclaim \"claim-with-rwop-1\" not found",
       "Success"},
      {"no access mode conflict",
       {"pod-with-one-pvc", {pvcVolume("claim-with-rwop-1")}},
       {podWithReadWriteManyPVC},
       {rwop1, rwx},
       "Skip",
       "Success"},
      {"access mode conflict, unschedulable",
       {"pod-with-one-conflict", {pvcVolume("claim-with-rwop-1")}},
       {podWithOnePVC, podWithReadWriteManyPVC},
       {rwop1, rwx},
       "Success",
       conflict},
      {"two conflicts, unschedulable",
       {"pod-with-two-conflicts", {pvcVolume("claim-with-rwop-1"), pvcVolume("claim-with-rwop-2")}},
       {podWithTwoPVCs, podWithReadWriteManyPVC},
       {rwop1, rwop2, rwx},
       "Success",
       conflict},
      {"a ReadWriteMany claim in use is no conflict",
       {"pod", {pvcVolume("claim-with-rwx")}},
       {podWithReadWriteManyPVC},
       {rwx},
       "Skip",
       "Success"},
      {"the same claim name in another namespace is another claim",
       {"pod", {pvcVolume("claim-with-rwop-1")}, "", "other"},
       {podWithOnePVC},
       {rwop1, claim("claim-with-rwop-1", "ReadWriteOncePod", "other")},
       "Skip",
       "Success"},
      {"a claim in use through a generic ephemeral volume",
       {"pod", {pvcVolume("holder-data")}},
       {{"holder",
         {{{"name", "data"}, {"ephemeral", {{"volumeClaimTemplate", boost::json::object()}}}}},
         "node-1"}},
       {claim("holder-data", "ReadWriteOncePod")},
       "Success",
       conflict},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.name);
    Result r = run({}, {"node-1"}, c.existing, c.pod, c.claims);
    EXPECT_EQ(preFilterOf(r), c.wantPreFilter);
    EXPECT_EQ(filterOf(r, "node-1"), c.wantFilter);
  }
}

TEST(VolumeRestrictionsTest, ReadWriteOncePodRejectsEveryNode) {
  // The claim is used on node-1: every node is rejected, node-2 included (the claim is
  // cluster-wide), with Unschedulable so that preemption may free it.
  Result r = run({}, {"node-1", "node-2"}, {{"holder", {pvcVolume("data")}, "node-1"}},
                 {"pod", {pvcVolume("data")}}, {claim("data", "ReadWriteOncePod")});
  const std::string conflict = std::string("Unschedulable: ") + kReadWriteOncePodConflict;
  EXPECT_EQ(filterOf(r, "node-1"), conflict);
  EXPECT_EQ(filterOf(r, "node-2"), conflict);
  EXPECT_FALSE(r.selected.has_value());
  EXPECT_EQ(r.message,
            "0/2 nodes are available: 2 node(s) unavailable due to PersistentVolumeClaim with "
            "ReadWriteOncePod access mode already in-use by another pod.");
}

TEST(VolumeRestrictionsTest, MalformedAccessModesAreAnError) {
  boost::json::value bad = {{"metadata", {{"name", "data"}, {"namespace", "default"}}},
                            {"spec", {{"accessModes", "ReadWriteOncePod"}}}};
  try {
    run({}, {"node-1"}, {}, {"pod", {pvcVolume("data")}}, {bad});
    FAIL() << "expected an Error";
  } catch (const std::runtime_error& e) {
    EXPECT_TRUE(contains(
        e.what(), "persistentvolumeclaim default/data: spec.accessModes: expected an array"));
  }
}

// -- PreFilterExtensions, through preemption ---------------------------------------------------

TEST(VolumeRestrictionsTest, PreemptionFreesTheReadWriteOncePodClaim) {
  // The holder (priority 0) uses the claim; the preemptor (priority 100) wants it. Preemption
  // takes both lower-priority pods off node-1 (RemovePod: the count drops to 0), then puts back
  // what it can (AddPod): the holder brings the count back to 1 and stays a victim, the other
  // pod is reprieved.
  Result r = run({"DefaultPreemption"}, {"node-1"},
                 {{"holder", {pvcVolume("data")}, "node-1"}, {"bystander", {}, "node-1"}},
                 {"preemptor", {pvcVolume("data")}, "", "default", 100},
                 {claim("data", "ReadWriteOncePod")});
  EXPECT_EQ(filterOf(r, "node-1"), std::string("Unschedulable: ") + kReadWriteOncePodConflict);
  ASSERT_TRUE(r.nominatedNodeName.has_value());
  EXPECT_EQ(*r.nominatedNodeName, "node-1");
  EXPECT_EQ(r.victims, std::vector<std::string>{"default/holder"});
}

TEST(VolumeRestrictionsTest, PreemptionCannotFreeADiskOfAHigherPriorityPod) {
  Result r = run({"DefaultPreemption"}, {"node-1"},
                 {{"holder", {pvcVolume("data")}, "node-1", "default", 1000}},
                 {"preemptor", {pvcVolume("data")}, "", "default", 100},
                 {claim("data", "ReadWriteOncePod")});
  EXPECT_FALSE(r.nominatedNodeName.has_value());
  EXPECT_TRUE(r.victims.empty());
}

// -- Events and queueing hints ----------------------------------------------------------------

TEST(VolumeRestrictionsTest, EventsToRegister) {
  LoadedPlugin plugin(kPlugin);
  const std::vector<std::tuple<int32_t, uint32_t, int32_t>> want = {
      {SH_RESOURCE_POD, SH_ACTION_DELETE, 1},
      {SH_RESOURCE_NODE, SH_ACTION_ADD, 0},
      {SH_RESOURCE_PERSISTENT_VOLUME_CLAIM, SH_ACTION_ADD, 1},
  };
  EXPECT_EQ(registrations(plugin), want);
}

TEST(VolumeRestrictionsTest, IsSchedulableAfterPodDeleted) {
  LoadedPlugin plugin(kPlugin);
  struct Case {
    std::string name;
    PodSpec pod;
    PodSpec deleted;
    sh_queueing_hint want;
  };
  const std::string iqn1 = "iqn.2016-12.server:storage.target01";
  const std::string iqn2 = "iqn.2017-12.server:storage.target01";
  const std::vector<Case> cases = {
      {"queue-new-object-gcedisk-conflict", {"p", {gcePD("foo")}}, {"d", {gcePD("foo")}}, SH_QUEUE},
      {"skip-new-object-gcedisk-no-conflict",
       {"p", {gcePD("foo")}},
       {"d", {gcePD("bar")}},
       SH_QUEUE_SKIP},
      {"queue-new-object-awsdisk-conflict",
       {"p", {awsEBS("foo")}},
       {"d", {awsEBS("foo")}},
       SH_QUEUE},
      {"skip-new-object-awsdisk-no-conflict",
       {"p", {awsEBS("foo")}},
       {"d", {awsEBS("bar")}},
       SH_QUEUE_SKIP},
      {"queue-new-object-rbddisk-conflict",
       {"p", {rbd({"a", "b"}, "foo", "bar")}},
       {"d", {rbd({"a", "b"}, "foo", "bar")}},
       SH_QUEUE},
      {"skip-new-object-rbddisk-no-conflict",
       {"p", {rbd({"a", "b"}, "foo", "bar")}},
       {"d", {rbd({"c", "d"}, "foo", "bar")}},
       SH_QUEUE_SKIP},
      {"queue-new-object-iscsidisk-conflict", {"p", {iscsi(iqn1)}}, {"d", {iscsi(iqn1)}}, SH_QUEUE},
      {"skip-new-object-iscsidisk-no-conflict",
       {"p", {iscsi(iqn1)}},
       {"d", {iscsi(iqn2)}},
       SH_QUEUE_SKIP},
      {"queue-has-same-claim",
       {"pod1", {pvcVolume("claim-rwop")}},
       {"pod2", {pvcVolume("claim-rwop")}},
       SH_QUEUE},
      {"skip-no-same-claim",
       {"pod1", {pvcVolume("claim-1-rwop")}},
       {"pod2", {pvcVolume("claim-2-rwop")}},
       SH_QUEUE_SKIP},
      {"skip-other-namespace",
       {"p", {gcePD("foo")}},
       {"d", {gcePD("foo")}, "", "other"},
       SH_QUEUE_SKIP},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.name);
    PodPtr pod = podObj(c.pod);
    PodPtr deleted = podObj(c.deleted);
    EXPECT_EQ(plugin.hint(0, pod->view(), podEvent(SH_ACTION_DELETE, deleted, nullptr)), c.want);
  }
}

// A stored object of a kind the scenario format knows (here PersistentVolumeClaims), as the
// host keeps it.
std::shared_ptr<const sh::connectors::StoredObject> storedClaim(const boost::json::value& pvc) {
  boost::json::object doc;
  doc["pod"] = podJson({"any", {}});
  doc["persistentVolumeClaims"] = boost::json::array{pvc};
  std::string error;
  auto scenario = sh::evaluate::parseScenario(doc, error);
  if (!scenario || scenario->kindObjects.size() != 1) {
    throw std::runtime_error(error);
  }
  return scenario->kindObjects.front();
}

sh_event_objects claimAdded(const sh_object& pvc) {
  sh_event_objects e{};
  e.struct_size = sizeof(sh_event_objects);
  e.resource = SH_RESOURCE_PERSISTENT_VOLUME_CLAIM;
  e.actions = SH_ACTION_ADD;
  e.new_object = &pvc;
  e.kind = 0;  // the plugin's only declared kind
  return e;
}

TEST(VolumeRestrictionsTest, IsSchedulableAfterPersistentVolumeClaimAdded) {
  LoadedPlugin plugin(kPlugin);
  const PodSpec podWithOnePVC = {"pod-with-one-pvc", {pvcVolume("claim-with-rwx-1")}};
  const PodSpec podWithTwoPVCs = {"pod-with-two-pvcs",
                                  {pvcVolume("claim-with-rwx-1"), pvcVolume("claim-with-rwx-2")}};
  const PodSpec podWithNotEqualNamespace = {
      "pod-with-one-pvc", {pvcVolume("claim-with-rwx-1")}, "", "kube-system"};
  auto pvc1 = storedClaim(claim("claim-with-rwx-1", "ReadWriteMany"));
  auto pvc2 = storedClaim(claim("claim-with-rwx-2", "ReadWriteMany"));
  struct Case {
    std::string name;
    PodSpec pod;
    const sh_object* added;
    sh_queueing_hint want;
  };
  const std::vector<Case> cases = {
      {"queue-new-object-pvc-belong-pod", podWithTwoPVCs, &pvc1->view(), SH_QUEUE},
      {"skip-new-object-unused", podWithOnePVC, &pvc2->view(), SH_QUEUE_SKIP},
      {"skip-new-object-namespace-not-equal-pod", podWithNotEqualNamespace, &pvc1->view(),
       SH_QUEUE_SKIP},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.name);
    PodPtr pod = podObj(c.pod);
    EXPECT_EQ(plugin.hint(2, pod->view(), claimAdded(*c.added)), c.want);
  }
}

}  // namespace
}  // namespace schedhost::testing::volume_restrictions_test
