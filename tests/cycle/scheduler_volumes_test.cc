// Storage in the running scheduler, on the embedded cluster with the default profile: a
// WaitForFirstConsumer claim is annotated with the chosen node, provisioned in the node's zone by
// the cluster's PV controller emulation and bound, and only then is the pod bound. Without a PV
// controller VolumeBinding's PreBind waits (bindTimeoutSeconds); the wait ends as soon as the pod
// is deleted, or the scheduler stops past its stop grace (the host's cycle_wait), each with
// upstream's error.
#include <gtest/gtest.h>

#include <string>

#include "tests/cycle/scheduler_harness.h"

namespace sh::cycle::scheduler_volumes_test {
namespace {

using testing::node;
using testing::SchedulerHarness;

constexpr char kClaimKind[] = "v1|PersistentVolumeClaim";
constexpr char kVolumeKind[] = "v1|PersistentVolume";

boost::json::value storageClass() {
  return boost::json::parse(
      R"({"apiVersion":"storage.k8s.io/v1","kind":"StorageClass","metadata":{"name":"zonal"},
          "provisioner":"ebs.csi.aws.com","volumeBindingMode":"WaitForFirstConsumer"})");
}

boost::json::value claim(std::string_view name) {
  boost::json::value c = boost::json::parse(
      R"({"apiVersion":"v1","kind":"PersistentVolumeClaim",
          "metadata":{},
          "spec":{"storageClassName":"zonal","accessModes":["ReadWriteOnce"],
                  "resources":{"requests":{"storage":"1Gi"}}},
          "status":{"phase":"Pending"}})");
  c.at("metadata").as_object()["namespace"] = testing::kNamespace;
  c.at("metadata").as_object()["name"] = name;
  c.at("metadata").as_object()["uid"] = std::string(name) + "-uid";
  return c;
}

boost::json::value podWithClaim(std::string_view name, std::string_view claimName) {
  boost::json::value p = testing::pod(name, "100m", "100Mi");
  p.at("spec").as_object()["volumes"] = boost::json::array{boost::json::object{
      {"name", "data"}, {"persistentVolumeClaim", boost::json::object{{"claimName", claimName}}}}};
  return p;
}

std::string field(const connectors::ObjectPtr& o, std::initializer_list<std::string_view> path) {
  if (o == nullptr) {
    return "<no object>";
  }
  const boost::json::value* cur = &o->json();
  for (std::string_view key : path) {
    if (!cur->is_object() || (cur = cur->as_object().if_contains(key)) == nullptr) {
      return "<absent>";
    }
  }
  return testing::jstr(*cur);
}

std::string selectedNode(SchedulerHarness& h, std::string_view claimName) {
  auto c = h.cluster().object(kClaimKind, testing::keyOf(claimName));
  const std::string n = field(c, {"metadata", "annotations", "volume.kubernetes.io/selected-node"});
  return n.starts_with("<") ? "" : n;
}

// The decision log, for the message of a failed expectation.
std::string decisions(SchedulerHarness& h) {
  std::string out;
  for (const boost::json::object& line : h.decisions()) {
    out += boost::json::serialize(line) + "\n";
  }
  return out;
}

bool anyEventSays(SchedulerHarness& h, std::string_view pod, std::string_view text) {
  for (const connectors::EventRecord& e : h.events(pod, "FailedScheduling")) {
    if (e.message.find(text) != std::string::npos) {
      return true;
    }
  }
  return false;
}

TEST(SchedulerVolumesTest, ClaimIsProvisionedInTheChosenNodesZoneBeforeThePodBinds) {
  SchedulerHarness h;
  h.add(node("n1", "4", "8Gi", "110", "zone-a"));
  h.add(storageClass());
  for (const char* name : {"web-0", "web-1"}) {
    h.add(claim(std::string("data-") + name));
    h.add(podWithClaim(name, std::string("data-") + name));
  }
  ASSERT_NO_FATAL_FAILURE(h.start());
  h.run();

  for (const char* name : {"web-0", "web-1"}) {
    SCOPED_TRACE(name);
    ASSERT_EQ(h.nodeOf(name), "n1") << decisions(h);
    const std::string claimName = std::string("data-") + name;
    auto c = h.cluster().object(kClaimKind, testing::keyOf(claimName));
    EXPECT_EQ(selectedNode(h, claimName), "n1");
    EXPECT_EQ(field(c, {"status", "phase"}), "Bound");
    const std::string volume = field(c, {"spec", "volumeName"});
    EXPECT_EQ(volume, "pvc-" + claimName + "-uid");
    auto pv = h.cluster().object(kVolumeKind, volume);
    EXPECT_EQ(field(pv, {"spec", "nodeAffinity", "required", "nodeSelectorTerms"}),
              R"([{"matchExpressions":[{"key":"topology.kubernetes.io/zone","operator":"In",)"
              R"("values":["zone-a"]}]}])");
  }
}

TEST(SchedulerVolumesTest, DeletingThePodEndsPreBindsWaitWithUpstreamsError) {
  // No PV controller: the claim is annotated and nothing ever binds it, so PreBind would wait
  // bindTimeoutSeconds (600 s) but for the deletion.
  SchedulerHarness h({.follow = true, .pvController = false});
  h.add(node("n1", "4", "8Gi", "110", "zone-a"));
  h.add(storageClass());
  h.add(claim("data-web-0"));
  const boost::json::value pod = podWithClaim("web-0", "data-web-0");
  h.add(pod);
  ASSERT_NO_FATAL_FAILURE(h.start());
  h.runInBackground();
  ASSERT_TRUE(SchedulerHarness::eventually([&] { return selectedNode(h, "data-web-0") == "n1"; }))
      << "PreBind wrote the selected node";

  h.appendChange("DELETED", pod);
  // Bounded far below bindTimeoutSeconds: only the cancellation ends the wait this soon.
  EXPECT_TRUE(SchedulerHarness::eventually(
      [&] {
        return anyEventSays(h, "web-0",
                            "running PreBind plugin \"VolumeBinding\": binding volumes: pod does "
                            "not exist any more: pod \"web-0\" not found");
      },
      std::chrono::seconds(60)));
  h.stopBackground();
  EXPECT_EQ(h.nodeOf("web-0"), "");
}

TEST(SchedulerVolumesTest, StoppingPastTheGraceEndsPreBindsWait) {
  SchedulerHarness h(
      {.follow = true, .pvController = false, .stopGrace = std::chrono::milliseconds(200)});
  h.add(node("n1", "4", "8Gi", "110", "zone-a"));
  h.add(storageClass());
  h.add(claim("data-web-0"));
  h.add(podWithClaim("web-0", "data-web-0"));
  ASSERT_NO_FATAL_FAILURE(h.start());
  h.runInBackground();
  ASSERT_TRUE(SchedulerHarness::eventually([&] { return selectedNode(h, "data-web-0") == "n1"; }));

  // Returns once the binding cycle has ended: after the grace, its wait is cancelled.
  h.stopBackground();
  EXPECT_TRUE(anyEventSays(
      h, "web-0", "running PreBind plugin \"VolumeBinding\": binding volumes: context canceled"));
  EXPECT_EQ(h.nodeOf("web-0"), "");
}

}  // namespace
}  // namespace sh::cycle::scheduler_volumes_test
