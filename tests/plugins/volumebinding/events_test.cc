// VolumeBinding's events and queueing hints (upstream volume_binding_test.go:
// TestIsSchedulableAfter{StorageClass,PersistentVolumeClaim,CSINode,CSIDriver,
// CSIStorageCapacity}Change, as the v1.36 hints decide).
#include <gtest/gtest.h>

#include <memory>
#include <stdexcept>
#include <string>
#include <tuple>
#include <vector>

#include "tests/plugins/volumebinding/volume_binding_test_util.h"

namespace schedhost::testing::volumebinding::events_test {
namespace {

using ObjectPtr = std::shared_ptr<const sh::connectors::StoredObject>;

enum : std::size_t {
  kStorageClassEvents = 0,
  kClaimEvents = 1,
  kCsiNodeEvents = 4,
  kCsiDriverEvents = 5,
  kCapacityEvents = 6,
};

// An object as the host stores it, read through a scenario's storage array `field`.
ObjectPtr stored(const char* field, const Json& object) {
  boost::json::object doc;
  doc["pod"] = podJson("any", {});
  doc[field] = boost::json::array{object};
  std::string error;
  auto scenario = sh::evaluate::parseScenario(doc, error);
  if (!scenario || scenario->kindObjects.size() != 1) {
    throw std::runtime_error(error);
  }
  return scenario->kindObjects.front();
}

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

PodPtr pod(const Json& json) {
  std::string error;
  auto p = sh::model::parsePod(json, error);
  if (p == nullptr) {
    throw std::runtime_error(error);
  }
  return p;
}

TEST(VolumeBindingEventsTest, Registrations) {
  LoadedPlugin plugin(kPlugin);
  const std::vector<std::tuple<int32_t, uint32_t, int32_t>> want = {
      {SH_RESOURCE_STORAGE_CLASS, SH_ACTION_ADD | SH_ACTION_UPDATE, 1},
      {SH_RESOURCE_PERSISTENT_VOLUME_CLAIM, SH_ACTION_ADD | SH_ACTION_UPDATE, 1},
      {SH_RESOURCE_PERSISTENT_VOLUME, SH_ACTION_ADD | SH_ACTION_UPDATE, 0},
      {SH_RESOURCE_NODE, SH_ACTION_ADD | SH_ACTION_UPDATE_NODE_LABEL, 0},
      {SH_RESOURCE_CSI_NODE, SH_ACTION_ADD | SH_ACTION_UPDATE, 1},
      {SH_RESOURCE_CSI_DRIVER, SH_ACTION_UPDATE, 1},
      {SH_RESOURCE_CSI_STORAGE_CAPACITY, SH_ACTION_ADD | SH_ACTION_UPDATE, 1},
  };
  EXPECT_EQ(registrations(plugin), want);
}

TEST(VolumeBindingEventsTest, IsSchedulableAfterStorageClassChange) {
  LoadedPlugin plugin(kPlugin);
  PodPtr p = pod(podJson("pod-a", {"pvc-a", "pvc-b"}));
  auto topology = [](std::vector<std::string> hosts) {
    return withAllowedTopology(storageClass("sc-b", "WaitForFirstConsumer"), kHostname, hosts);
  };
  auto hint = [&](const Json* before, const Json& after) {
    ObjectPtr b = before != nullptr ? stored("storageClasses", *before) : nullptr;
    return plugin.hint(
        kStorageClassEvents, p->view(),
        objectEvent(SH_RESOURCE_STORAGE_CLASS, 2, b, stored("storageClasses", after)));
  };
  const Json plain = storageClass("sc-b", "WaitForFirstConsumer");
  EXPECT_EQ(hint(nullptr, plain), SH_QUEUE) << "a new class";
  EXPECT_EQ(hint(&plain, plain), SH_QUEUE_SKIP) << "unchanged";
  Json before = topology({"node1", "node2"});
  EXPECT_EQ(hint(&before, topology({"node1", "node3"})), SH_QUEUE) << "allowedTopologies changed";
  EXPECT_EQ(hint(&before, topology({"node1", "node2"})), SH_QUEUE_SKIP) << "same topologies";
  EXPECT_EQ(hint(&before, plain), SH_QUEUE) << "topologies dropped";
  // An empty list is the absent one (apiequality.Semantic).
  Json empty = plain;
  empty.as_object()["allowedTopologies"] = boost::json::array();
  EXPECT_EQ(hint(&plain, empty), SH_QUEUE_SKIP);
  // Another field changed (a label): skip.
  Json labelled = plain;
  metadata(labelled)["labels"] = {{"a", "b"}};
  EXPECT_EQ(hint(&plain, labelled), SH_QUEUE_SKIP);
}

TEST(VolumeBindingEventsTest, IsSchedulableAfterPersistentVolumeClaimChange) {
  LoadedPlugin plugin(kPlugin);
  auto hint = [&](const Json& podJson, const Json& pvc) {
    PodPtr p = pod(podJson);
    return plugin.hint(kClaimEvents, p->view(),
                       objectEvent(SH_RESOURCE_PERSISTENT_VOLUME_CLAIM, 0, nullptr,
                                   stored("persistentVolumeClaims", pvc)));
  };
  const Json withClaims = podJson("pod-a", {"pvc-a", "pvc-b"});
  EXPECT_EQ(hint(podJson("pod-a", {}), PVCBuilder("pvc-b", "sc-a").json()), SH_QUEUE_SKIP)
      << "pod has no pvcs";
  EXPECT_EQ(hint(withClaims, PVCBuilder("pvc-b", "sc-b").json()), SH_QUEUE) << "a claim of the pod";
  EXPECT_EQ(hint(withClaims, PVCBuilder("pvc-c", "sc-b").json()), SH_QUEUE_SKIP) << "another claim";
  EXPECT_EQ(hint(withClaims, PVCBuilder("pvc-b", "sc-b", "other").json()), SH_QUEUE_SKIP)
      << "another namespace";
  const Json ephemeral = makePod()
                             .name("pod-a")
                             .uid("pod-a")
                             .inNamespace("default")
                             .container(sh::model::testing::kPauseImage)
                             .ephemeralVolume("ephemeral-a")
                             .parseJson();
  EXPECT_EQ(hint(ephemeral, PVCBuilder("pod-a-ephemeral-a", "sc-a").json()), SH_QUEUE)
      << "the ephemeral volume's claim";
}

TEST(VolumeBindingEventsTest, IsSchedulableAfterCSINodeChange) {
  LoadedPlugin plugin(kPlugin);
  PodPtr p = pod(podJson("pod-a", {"pvc-a"}));
  auto hint = [&](const Json* before, const Json& after) {
    ObjectPtr b = before != nullptr ? stored("csiNodes", *before) : nullptr;
    return plugin.hint(kCsiNodeEvents, p->view(),
                       objectEvent(SH_RESOURCE_CSI_NODE, 3, b, stored("csiNodes", after)));
  };
  const Json none = csiNode("node1", "");
  const Json gce = csiNode("node1", "kubernetes.io/gce-pd");
  EXPECT_EQ(hint(nullptr, none), SH_QUEUE);
  EXPECT_EQ(hint(&none, gce), SH_QUEUE);
  EXPECT_EQ(hint(&gce, gce), SH_QUEUE_SKIP);
}

TEST(VolumeBindingEventsTest, IsSchedulableAfterCSIDriverChange) {
  LoadedPlugin plugin(kPlugin);
  const PodPtr csiPod = pod(makePod()
                                .name("pod-a")
                                .uid("pod-a")
                                .inNamespace("default")
                                .container(sh::model::testing::kPauseImage)
                                .parseJson());
  auto withCsi = [](const std::string& driver) {
    Json p = podJson("pod-a", {});
    spec(p)["volumes"] = boost::json::array{{{"name", "v"}, {"csi", {{"driver", driver}}}}};
    return pod(p);
  };
  auto hint = [&](const PodPtr& p, bool before, bool after) {
    return plugin.hint(kCsiDriverEvents, p->view(),
                       objectEvent(SH_RESOURCE_CSI_DRIVER, 4,
                                   stored("csiDrivers", csiDriver("test-driver", before)),
                                   stored("csiDrivers", csiDriver("test-driver", after))));
  };
  EXPECT_EQ(hint(withCsi("test-driver"), true, false), SH_QUEUE) << "capacity tracking dropped";
  EXPECT_EQ(hint(withCsi("test-driver"), false, true), SH_QUEUE_SKIP) << "turned on";
  EXPECT_EQ(hint(withCsi("test-driver"), true, true), SH_QUEUE_SKIP) << "unchanged";
  EXPECT_EQ(hint(withCsi("other-driver"), true, false), SH_QUEUE_SKIP) << "another driver";
  EXPECT_EQ(hint(csiPod, true, false), SH_QUEUE_SKIP) << "no CSI volume";
}

TEST(VolumeBindingEventsTest, IsSchedulableAfterCSIStorageCapacityChange) {
  LoadedPlugin plugin(kPlugin);
  PodPtr p = pod(podJson("pod-a", {"pvc-a"}));
  auto cap = [](const std::string& total, const std::string& maximum) {
    return capacity("cap-a", "sc-a", nullptr, total, maximum);
  };
  auto hint = [&](const Json* before, const Json& after) {
    ObjectPtr b = before != nullptr ? stored("csiStorageCapacities", *before) : nullptr;
    return plugin.hint(
        kCapacityEvents, p->view(),
        objectEvent(SH_RESOURCE_CSI_STORAGE_CAPACITY, 5, b, stored("csiStorageCapacities", after)));
  };
  const Json oneGi = cap("1Gi", "");
  EXPECT_EQ(hint(nullptr, oneGi), SH_QUEUE) << "a new capacity";
  EXPECT_EQ(hint(&oneGi, cap("2Gi", "")), SH_QUEUE) << "capacity grew";
  EXPECT_EQ(hint(&oneGi, cap("1024Mi", "")), SH_QUEUE_SKIP) << "the same, spelt otherwise";
  EXPECT_EQ(hint(&oneGi, cap("512Mi", "")), SH_QUEUE_SKIP) << "shrank";
  const Json max1 = cap("10Gi", "1Gi");
  EXPECT_EQ(hint(&max1, cap("1Gi", "2Gi")), SH_QUEUE) << "maximumVolumeSize grew";
  EXPECT_EQ(hint(&max1, cap("20Gi", "1Gi")), SH_QUEUE_SKIP) << "the limit is maximumVolumeSize";
  const Json nothing = cap("", "");
  EXPECT_EQ(hint(&nothing, cap("1Gi", "")), SH_QUEUE) << "a limit appeared";
  EXPECT_EQ(hint(&oneGi, nothing), SH_QUEUE_SKIP) << "the limit went away";
}

}  // namespace
}  // namespace schedhost::testing::volumebinding::events_test
