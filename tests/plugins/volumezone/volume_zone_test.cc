// VolumeZone through the real host: upstream volume_zone_test.go's tables (TestSingleZone,
// TestMultiZone, TestWithBinding, TestIsSchedulableAfterPersistentVolumeClaimAdded,
// TestIsSchedulableAfterStorageClassAdded, TestIsSchedulableAfterPersistentVolumeChange) and
// volumehelpers.LabelZonesToSet's parsing.
#include <gtest/gtest.h>

#include <boost/json.hpp>
#include <memory>
#include <stdexcept>
#include <string>
#include <tuple>
#include <utility>
#include <vector>

#include "host/connectors/object_store.h"
#include "host/evaluate/evaluate.h"
#include "tests/plugins/plugin_test_util.h"

namespace schedhost::testing::volume_zone_test {
namespace {

using sh::evaluate::Result;
using Labels = std::vector<std::pair<std::string, std::string>>;

constexpr char kPlugin[] = "VolumeZone";
constexpr char kConflict[] = "UnschedulableAndUnresolvable: node(s) had no available volume zone";

constexpr char kBetaZone[] = "failure-domain.beta.kubernetes.io/zone";
constexpr char kBetaRegion[] = "failure-domain.beta.kubernetes.io/region";
constexpr char kZone[] = "topology.kubernetes.io/zone";
constexpr char kRegion[] = "topology.kubernetes.io/region";

// -- Manifests --------------------------------------------------------------------------------

boost::json::object labelsJson(const Labels& labels) {
  boost::json::object out;
  for (const auto& [k, v] : labels) {
    out[k] = v;
  }
  return out;
}

boost::json::value pv(const std::string& name, const Labels& labels) {
  return {{"metadata", {{"name", name}, {"labels", labelsJson(labels)}}}};
}

// A claim bound to `volumeName` (fully: VolumeBinding, which every profile with claims has,
// then lets it through).
boost::json::value boundClaim(const std::string& name, const std::string& volumeName) {
  return {{"metadata",
           {{"name", name},
            {"namespace", "default"},
            {"annotations", {{"pv.kubernetes.io/bind-completed", "yes"}}}}},
          {"spec", {{"volumeName", volumeName}}}};
}

// An unbound claim of class `className` (none when empty).
boost::json::value unboundClaim(const std::string& name, const std::string& className) {
  boost::json::object spec;
  if (!className.empty()) {
    spec["storageClassName"] = className;
  }
  return {{"metadata", {{"name", name}, {"namespace", "default"}}}, {"spec", spec}};
}

// A class without a provisioner: VolumeBinding then rejects every node for an unbound claim of
// it, so that no binding is simulated (PreBind would wait for one that evaluate never makes).
boost::json::value storageClass(const std::string& name, const std::string& bindingMode) {
  boost::json::object sc = {{"metadata", {{"name", name}}},
                            {"provisioner", "kubernetes.io/no-provisioner"}};
  if (!bindingMode.empty()) {
    sc["volumeBindingMode"] = bindingMode;
  }
  return sc;
}

// createPodWithVolume: a pod of namespace default with one persistentVolumeClaim volume (none
// when `claim` is empty).
boost::json::value podJson(const std::string& name, const std::string& claim,
                           const std::string& ns = "default") {
  auto w =
      makePod().name(name).uid(name).inNamespace(ns).container(sh::model::testing::kPauseImage);
  if (!claim.empty()) {
    w.pvc(claim);
  }
  return w.parseJson();
}

PodPtr podObj(const std::string& name, const std::string& claim,
              const std::string& ns = "default") {
  std::string error;
  auto pod = sh::model::parsePod(podJson(name, claim, ns), error);
  if (!pod) {
    throw std::runtime_error(error);
  }
  return pod;
}

boost::json::value nodeJson(const Labels& labels) {
  auto w = makeNode().name("host1").capacity({{"cpu", "4"}, {"memory", "16Gi"}, {"pods", "110"}});
  for (const auto& [k, v] : labels) {
    w.label(k, v);
  }
  return w.parseJson();
}

struct Storage {
  std::vector<boost::json::value> pvs;
  std::vector<boost::json::value> pvcs;
  std::vector<boost::json::value> classes;
};

boost::json::array toArray(const std::vector<boost::json::value>& values) {
  boost::json::array out;
  for (const boost::json::value& v : values) {
    out.push_back(v);
  }
  return out;
}

Result run(const Storage& storage, const boost::json::value& pod, const Labels& nodeLabels) {
  boost::json::object doc;
  doc["name"] = "volume zone test";
  // VolumeBinding: the host refuses a pod with claims in a profile without it; after VolumeZone,
  // it never answers first.
  doc["plugins"] = boost::json::array{boost::json::object{{"name", kPlugin}},
                                      boost::json::object{{"name", "VolumeBinding"}}};
  doc["nodes"] = boost::json::array{nodeJson(nodeLabels)};
  doc["pod"] = pod;
  doc["persistentVolumes"] = toArray(storage.pvs);
  doc["persistentVolumeClaims"] = toArray(storage.pvcs);
  doc["storageClasses"] = toArray(storage.classes);
  std::string error;
  auto scenario = sh::evaluate::parseScenario(doc, error);
  if (!scenario) {
    throw std::runtime_error(error);
  }
  return sh::evaluate::run(*scenario, testOptions());
}

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

std::string filterOf(const Result& r) {
  sh::evaluate::PluginStatus s = filterStatus(r, "host1", kPlugin);
  std::string out = s.code;
  for (const std::string& reason : s.reasons) {
    out += ": " + reason;
  }
  return out;
}

struct ZoneCase {
  std::string name;
  std::string claim;  // the pod's one claim; none when empty
  Labels nodeLabels;
  std::string wantPreFilter = "Success";
  std::string wantFilter = "Success";  // checked when PreFilter did not fail
};

void runCases(const Storage& storage, const std::vector<ZoneCase>& cases) {
  for (const ZoneCase& c : cases) {
    SCOPED_TRACE(c.name);
    Result r = run(storage, podJson("pod_1", c.claim), c.nodeLabels);
    EXPECT_EQ(preFilterOf(r), c.wantPreFilter);
    if (c.wantPreFilter == "Success" || c.wantPreFilter == "Skip") {
      EXPECT_EQ(filterOf(r), c.wantFilter);
    }
  }
}

// -- Filter -----------------------------------------------------------------------------------

TEST(VolumeZoneTest, SingleZone) {
  Storage storage;
  storage.pvs = {
      pv("Vol_1", {{kBetaZone, "us-west1-a"}}),
      pv("Vol_2", {{kBetaRegion, "us-west1"}, {"uselessLabel", "none"}}),
      pv("Vol_3", {{kBetaRegion, "us-west1"}}),
      pv("Vol_Stable_1", {{kZone, "us-west1-a"}}),
      pv("Vol_Stable_2", {{kRegion, "us-west1"}, {"uselessLabel", "none"}}),
      pv("Vol_Stable_3", {{kZone, "us-west1-a"}, {kRegion, "us-west1-a"}}),
  };
  storage.pvcs = {
      boundClaim("PVC_1", "Vol_1"),
      boundClaim("PVC_2", "Vol_2"),
      boundClaim("PVC_3", "Vol_3"),
      boundClaim("PVC_4", "Vol_not_exist"),
      boundClaim("PVC_Stable_1", "Vol_Stable_1"),
      boundClaim("PVC_Stable_2", "Vol_Stable_2"),
      boundClaim("PVC_Stable_3", "Vol_Stable_3"),
  };
  runCases(
      storage,
      {
          {"pod without volume", "", {{kBetaZone, "us-west1-a"}}, "Skip"},
          {"node without labels", "PVC_1", {}},
          {"beta zone label matched",
           "PVC_1",
           {{kBetaZone, "us-west1-a"}, {"uselessLabel", "none"}}},
          {"beta region label matched",
           "PVC_2",
           {{kBetaRegion, "us-west1"}, {"uselessLabel", "none"}}},
          {"beta region label doesn't match",
           "PVC_2",
           {{kBetaRegion, "no_us-west1"}, {"uselessLabel", "none"}},
           "Success",
           kConflict},
          {"beta zone label doesn't match",
           "PVC_1",
           {{kBetaZone, "no_us-west1-a"}, {"uselessLabel", "none"}},
           "Success",
           kConflict},
          {"zone label matched", "PVC_Stable_1", {{kZone, "us-west1-a"}, {"uselessLabel", "none"}}},
          {"region label matched",
           "PVC_Stable_2",
           {{kRegion, "us-west1"}, {"uselessLabel", "none"}}},
          {"region label doesn't match",
           "PVC_Stable_2",
           {{kRegion, "no_us-west1"}, {"uselessLabel", "none"}},
           "Success",
           kConflict},
          {"zone label doesn't match",
           "PVC_Stable_1",
           {{kZone, "no_us-west1-a"}, {"uselessLabel", "none"}},
           "Success",
           kConflict},
          {"pv with zone and region, node with only zone",
           "PVC_Stable_3",
           {{kZone, "us-west1-a"}},
           "Success",
           kConflict},
          {"pv with zone,node with beta zone",
           "PVC_Stable_1",
           {{kBetaZone, "us-west1-a"}},
           "Success",
           kConflict},
          {"pv with beta label,node with ga label, matched", "PVC_1", {{kZone, "us-west1-a"}}},
          {"pv with beta label,node with ga label, don't match",
           "PVC_1",
           {{kZone, "us-west1-b"}},
           "Success",
           kConflict},
          // Our own: the lister errors of a missing volume and a missing claim.
          {"pv not found",
           "PVC_4",
           {{kZone, "us-west1-a"}},
           "UnschedulableAndUnresolvable: persistentvolume \"Vol_not_exist\" not found"},
          {"pvc not found",
           "PVC_missing",
           {{kZone, "us-west1-a"}},
           "UnschedulableAndUnresolvable: persistentvolumeclaim \"PVC_missing\" not found"},
      });
}

TEST(VolumeZoneTest, MultiZone) {
  Storage storage;
  storage.pvs = {
      pv("Vol_1", {{kBetaZone, "us-west1-a"}}),
      pv("Vol_2", {{kBetaZone, "us-west1-b"}, {"uselessLabel", "none"}}),
      pv("Vol_3", {{kBetaZone, "us-west1-c__us-west1-a"}}),
      pv("Vol_Stable_1", {{kZone, "us-west1-a"}}),
      pv("Vol_Stable_2", {{kZone, "us-west1-c__us-west1-a"}}),
  };
  storage.pvcs = {
      boundClaim("PVC_1", "Vol_1"),
      boundClaim("PVC_2", "Vol_2"),
      boundClaim("PVC_3", "Vol_3"),
      boundClaim("PVC_4", "Vol_not_exist"),
      boundClaim("PVC_Stable_1", "Vol_Stable_1"),
      boundClaim("PVC_Stable_2", "Vol_Stable_2"),
  };
  runCases(
      storage,
      {
          {"node without labels", "PVC_3", {}},
          {"beta zone label matched",
           "PVC_3",
           {{kBetaZone, "us-west1-a"}, {"uselessLabel", "none"}}},
          {"beta zone label doesn't match",
           "PVC_1",
           {{kBetaZone, "us-west1-b"}, {"uselessLabel", "none"}},
           "Success",
           kConflict},
          {"zone label matched", "PVC_Stable_2", {{kZone, "us-west1-a"}, {"uselessLabel", "none"}}},
          {"zone label doesn't match",
           "PVC_Stable_1",
           {{kZone, "us-west1-b"}, {"uselessLabel", "none"}},
           "Success",
           kConflict},
      });
}

TEST(VolumeZoneTest, WithBinding) {
  Storage storage;
  storage.classes = {storageClass("Class_Immediate", ""),
                     storageClass("Class_Wait", "WaitForFirstConsumer")};
  storage.pvs = {pv("Vol_1", {{kBetaZone, "us-west1-a"}})};
  storage.pvcs = {
      boundClaim("PVC_1", "Vol_1"),
      unboundClaim("PVC_NoSC", "Class_0"),
      unboundClaim("PVC_EmptySC", ""),
      unboundClaim("PVC_WaitSC", "Class_Wait"),
      unboundClaim("PVC_ImmediateSC", "Class_Immediate"),
  };
  const Labels node = {{kBetaZone, "us-west1-a"}, {"uselessLabel", "none"}};
  runCases(
      storage,
      {
          {"label zone failure domain matched", "PVC_1", node},
          {"unbound volume empty storage class", "PVC_EmptySC", node,
           "UnschedulableAndUnresolvable: PersistentVolumeClaim had no pv name and storageClass "
           "name"},
          // Upstream's test reads the class through a fake lister; the informer's lister says
          // storageclass.storage.k8s.io (errors.NewNotFound(storagev1.Resource("storageclass"))).
          {"unbound volume no storage class", "PVC_NoSC", node,
           "UnschedulableAndUnresolvable: storageclass.storage.k8s.io \"Class_0\" not found"},
          {"unbound volume immediate binding mode", "PVC_ImmediateSC", node,
           "UnschedulableAndUnresolvable: VolumeBindingMode not set for StorageClass "
           "\"Class_Immediate\""},
          {"unbound volume wait binding mode", "PVC_WaitSC", node, "Skip"},
      });
}

TEST(VolumeZoneTest, ImmediateClassWithoutVolume) {
  // A class that binds at once, and a claim still unbound: PreFilter has no PV to read.
  Storage storage;
  storage.classes = {storageClass("fast", "Immediate")};
  storage.pvcs = {unboundClaim("data", "fast")};
  Result r = run(storage, podJson("pod_1", "data"), {{kZone, "a"}});
  EXPECT_EQ(preFilterOf(r), "UnschedulableAndUnresolvable: PersistentVolume had no name");
}

TEST(VolumeZoneTest, BetaStorageClassAnnotationWins) {
  // GetPersistentVolumeClaimClass reads the beta annotation before spec.storageClassName.
  Storage storage;
  storage.classes = {storageClass("wait", "WaitForFirstConsumer")};
  boost::json::value claim = unboundClaim("data", "missing");
  claim.as_object()["metadata"].as_object()["annotations"] =
      boost::json::object{{"volume.beta.kubernetes.io/storage-class", "wait"}};
  storage.pvcs = {claim};
  Result r = run(storage, podJson("pod_1", "data"), {{kZone, "a"}});
  EXPECT_EQ(preFilterOf(r), "Skip");
}

TEST(VolumeZoneTest, EveryVolumeMustMatch) {
  // Two claims, zones a and b: no node can be in both.
  Storage storage;
  storage.pvs = {pv("va", {{kZone, "a"}}), pv("vb", {{kZone, "b"}})};
  storage.pvcs = {boundClaim("ca", "va"), boundClaim("cb", "vb")};
  auto w = makePod().name("p").uid("p").inNamespace("default").pvc("ca").pvc("cb");
  Result r = run(storage, w.parseJson(), {{kZone, "a"}});
  EXPECT_EQ(filterOf(r), kConflict);
}

TEST(VolumeZoneTest, UnparsableZoneLabelsAreIgnored) {
  // LabelZonesToSet refuses an empty element; upstream then ignores the label, so the PV has no
  // topology left and PreFilter skips.
  for (const char* value : {"", "a____b", "__a", "a__", " __a"}) {
    SCOPED_TRACE(value);
    Storage storage;
    storage.pvs = {pv("v", {{kZone, value}})};
    storage.pvcs = {boundClaim("c", "v")};
    Result r = run(storage, podJson("pod_1", "c"), {{kZone, "a"}});
    EXPECT_EQ(preFilterOf(r), "Skip");
  }
  // Elements are trimmed, and a set: "a__b__a" names a and b.
  Storage storage;
  storage.pvs = {pv("v", {{kZone, "b__a__b"}})};
  storage.pvcs = {boundClaim("c", "v")};
  EXPECT_EQ(filterOf(run(storage, podJson("pod_1", "c"), {{kZone, "a"}})), "Success");
  EXPECT_EQ(filterOf(run(storage, podJson("pod_1", "c"), {{kZone, "c"}})), kConflict);
}

TEST(VolumeZoneTest, EphemeralVolumesAreNotLookedAt) {
  // Only persistentVolumeClaim volumes count (getPersistentVolumeClaimNameFromPod).
  auto w = makePod().name("p").uid("p").inNamespace("default").ephemeralVolume("scratch");
  Result r = run({}, w.parseJson(), {{kZone, "a"}});
  EXPECT_EQ(preFilterOf(r), "Skip");
}

TEST(VolumeZoneTest, MalformedVolumeNameIsAnError) {
  Storage storage;
  storage.pvcs = {
      {{"metadata", {{"name", "c"}, {"namespace", "default"}}}, {"spec", {{"volumeName", 7}}}}};
  try {
    run(storage, podJson("pod_1", "c"), {{kZone, "a"}});
    FAIL() << "expected an Error";
  } catch (const std::runtime_error& e) {
    EXPECT_TRUE(
        contains(e.what(), "persistentvolumeclaim default/c: spec.volumeName: expected a string"));
  }
}

// -- Events and queueing hints ----------------------------------------------------------------

enum : std::size_t { kStorageClassAdd = 0, kNodeChange = 1, kClaimChange = 2, kVolumeChange = 3 };
enum : uint32_t { kClaims = 0, kVolumes = 1, kClasses = 2 };

TEST(VolumeZoneTest, EventsToRegister) {
  LoadedPlugin plugin(kPlugin);
  const std::vector<std::tuple<int32_t, uint32_t, int32_t>> want = {
      {SH_RESOURCE_STORAGE_CLASS, SH_ACTION_ADD, 1},
      {SH_RESOURCE_NODE, SH_ACTION_ADD | SH_ACTION_UPDATE_NODE_LABEL, 0},
      {SH_RESOURCE_PERSISTENT_VOLUME_CLAIM, SH_ACTION_ADD | SH_ACTION_UPDATE, 1},
      {SH_RESOURCE_PERSISTENT_VOLUME, SH_ACTION_ADD | SH_ACTION_UPDATE, 1},
  };
  EXPECT_EQ(registrations(plugin), want);
}

// An object as the host stores it, read through a scenario's storage array `field`.
std::shared_ptr<const sh::connectors::StoredObject> stored(const char* field,
                                                           const boost::json::value& object) {
  boost::json::object doc;
  doc["pod"] = podJson("any", "");
  doc[field] = boost::json::array{object};
  std::string error;
  auto scenario = sh::evaluate::parseScenario(doc, error);
  if (!scenario || scenario->kindObjects.size() != 1) {
    throw std::runtime_error(error);
  }
  return scenario->kindObjects.front();
}

using ObjectPtr = std::shared_ptr<const sh::connectors::StoredObject>;

sh_event_objects objectEvent(int32_t resource, uint32_t kind, const ObjectPtr& before,
                             const ObjectPtr& after) {
  sh_event_objects e{};
  e.struct_size = sizeof(sh_event_objects);
  e.resource = resource;
  e.actions = before == nullptr ? SH_ACTION_ADD : SH_ACTION_UPDATE;
  e.old_object = before != nullptr ? &before->view() : nullptr;
  e.new_object = after != nullptr ? &after->view() : nullptr;
  e.kind = kind;
  return e;
}

TEST(VolumeZoneTest, IsSchedulableAfterPersistentVolumeClaimChange) {
  LoadedPlugin plugin(kPlugin);
  auto claimIn = [](const std::string& ns, const std::string& volumeName) {
    return stored("persistentVolumeClaims",
                  boost::json::value{{"metadata", {{"name", "PVC_1"}, {"namespace", ns}}},
                                     {"spec", {{"volumeName", volumeName}}}});
  };
  struct Case {
    std::string name;
    PodPtr pod;
    ObjectPtr before;
    ObjectPtr after;
    sh_queueing_hint want;
  };
  const std::vector<Case> cases = {
      {"pvc-was-added-but-pod-refers-no-pvc", podObj("pod_1", ""), nullptr,
       claimIn("default", "Vol_1"), SH_QUEUE_SKIP},
      {"pvc-was-added-and-pod-was-bound-to-different-pvc", podObj("pod_1", "PVC_2"), nullptr,
       claimIn("default", "Vol_1"), SH_QUEUE_SKIP},
      {"pvc-was-added-and-pod-was-bound-to-pvc-but-different-ns", podObj("pod_1", "PVC_1"), nullptr,
       claimIn("ns1", "Vol_1"), SH_QUEUE_SKIP},
      {"pvc-was-added-and-pod-was-bound-to-the-pvc", podObj("pod_1", "PVC_1"), nullptr,
       claimIn("default", "Vol_1"), SH_QUEUE},
      {"pvc-was-updated-and-pod-was-bound-to-the-pvc", podObj("pod_1", "PVC_1"),
       claimIn("default", ""), claimIn("default", "Vol_1"), SH_QUEUE},
      {"pvc-was-updated-but-pod-refers-no-pvc", podObj("pod_1", ""), claimIn("default", ""),
       claimIn("default", "Vol_1"), SH_QUEUE_SKIP},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.name);
    EXPECT_EQ(
        plugin.hint(kClaimChange, c.pod->view(),
                    objectEvent(SH_RESOURCE_PERSISTENT_VOLUME_CLAIM, kClaims, c.before, c.after)),
        c.want);
  }
}

TEST(VolumeZoneTest, IsSchedulableAfterStorageClassAdded) {
  LoadedPlugin plugin(kPlugin);
  PodPtr pod = podObj("pod_1", "PVC_1");
  struct Case {
    std::string name;
    std::string bindingMode;
    sh_queueing_hint want;
  };
  const std::vector<Case> cases = {
      {"sc-doesn't-have-volume-binding-mode", "", SH_QUEUE_SKIP},
      {"new-sc-is-wait-for-first-consumer-mode", "WaitForFirstConsumer", SH_QUEUE},
      {"new-sc-binds-immediately", "Immediate", SH_QUEUE_SKIP},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.name);
    ObjectPtr sc = stored("storageClasses", storageClass("SC_1", c.bindingMode));
    EXPECT_EQ(plugin.hint(kStorageClassAdd, pod->view(),
                          objectEvent(SH_RESOURCE_STORAGE_CLASS, kClasses, nullptr, sc)),
              c.want);
  }
}

TEST(VolumeZoneTest, IsSchedulableAfterPersistentVolumeChange) {
  LoadedPlugin plugin(kPlugin);
  PodPtr pod = podObj("pod_1", "PVC_1");
  auto volume = [](const Labels& labels) {
    return stored("persistentVolumes", pv("Vol_1", labels));
  };
  struct Case {
    std::string name;
    ObjectPtr before;
    ObjectPtr after;
    sh_queueing_hint want;
  };
  const std::vector<Case> cases = {
      {"new-pv-was-added", nullptr, volume({{kBetaZone, "us-west1-b"}}), SH_QUEUE},
      {"pv-was-updated-and-changed-topology", volume({{kBetaZone, "us-west1-a"}}),
       volume({{kBetaZone, "us-west1-b"}}), SH_QUEUE},
      {"pv-was-updated-and-added-topology-label", volume({{kBetaZone, "us-west1-a"}}),
       volume({{kBetaZone, "us-west1-a"}, {kZone, "zone"}}), SH_QUEUE},
      {"pv-was-updated-but-no-topology-is-changed",
       volume({{kBetaZone, "us-west1-a"}, {kZone, "zone"}}),
       volume({{kBetaZone, "us-west1-a"}, {kZone, "zone"}}), SH_QUEUE_SKIP},
      // Our own: a label that is not a topology label, and the same zones written otherwise.
      {"pv-was-updated-with-an-unrelated-label", volume({{kZone, "a"}}),
       volume({{kZone, "a"}, {"team", "x"}}), SH_QUEUE_SKIP},
      {"pv-was-updated-with-the-same-zone-set", volume({{kZone, "a__b"}}),
       volume({{kZone, "b__a"}}), SH_QUEUE_SKIP},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.name);
    EXPECT_EQ(plugin.hint(kVolumeChange, pod->view(),
                          objectEvent(SH_RESOURCE_PERSISTENT_VOLUME, kVolumes, c.before, c.after)),
              c.want);
  }
}

}  // namespace
}  // namespace schedhost::testing::volume_zone_test
