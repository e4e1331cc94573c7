// A pod is never bound while something it depends on is ignored (Framework::
// unhonouredDependency): in a profile without VolumeBinding a pod with a claim, and in one
// without DynamicResources a pod with spec.resourceClaims, is turned away with
// PodScheduled=False naming what is missing, and never bound. Its neighbours schedule.
#include <gtest/gtest.h>

#include <string>

#include "tests/cycle/scheduler_harness.h"

namespace sh::cycle::scheduler_dependencies_test {
namespace {

using testing::node;
using testing::SchedulerHarness;

// Only what these tests need: no VolumeBinding, and no DynamicResources (not provided).
constexpr char kProfile[] = R"(
[[profiles]]
schedulerName = "default-scheduler"
[profiles.plugins.multiPoint]
disabled = [{name = "*"}]
enabled = [{name = "PrioritySort"}, {name = "NodeResourcesFit"}, {name = "DefaultBinder"}]
)";

boost::json::value podWith(std::string_view name, const char* field, boost::json::value list) {
  boost::json::value p = testing::pod(name, "100m", "100Mi");
  p.at("spec").as_object()[field] = std::move(list);
  return p;
}

std::string unschedulableMessage(SchedulerHarness& h, std::string_view pod) {
  auto p = h.storedPod(pod);
  auto c = p != nullptr ? testing::podScheduledCondition(*p) : std::nullopt;
  return c.has_value() && c->at("status") == "False" ? std::string(c->at("message").as_string())
                                                     : "";
}

TEST(SchedulerDependenciesTest, PodsWhoseClaimsNoPluginHonoursAreTurnedAwayNamingIt) {
  SchedulerHarness h({.profiles = kProfile});
  h.add(node("n1", "4", "8Gi"));
  h.add(podWith(
      "claim", "volumes",
      boost::json::parse(R"([{"name":"data","persistentVolumeClaim":{"claimName":"d"}}])")));
  h.add(podWith("ephemeral", "volumes",
                boost::json::parse(R"([{"name":"tmp","ephemeral":{"volumeClaimTemplate":{}}}])")));
  h.add(podWith("devices", "resourceClaims",
                boost::json::parse(R"([{"name":"gpu","resourceClaimName":"g"}])")));
  h.add(podWith("config", "volumes",
                boost::json::parse(R"([{"name":"cfg","configMap":{"name":"c"}}])")));
  ASSERT_NO_FATAL_FAILURE(h.start());
  h.run();

  EXPECT_EQ(h.nodeOf("config"), "n1");  // a volume that needs no plugin
  for (const char* pod : {"claim", "ephemeral", "devices"}) {
    EXPECT_EQ(h.nodeOf(pod), "") << pod;
  }
  EXPECT_EQ(unschedulableMessage(h, "claim"),
            "0/1 nodes are available: pod uses PersistentVolumeClaim \"d\" (volume \"data\") but "
            "profile \"default-scheduler\" has no VolumeBinding plugin: its claim would be "
            "neither bound nor provisioned, and its volume's node affinity would be ignored.");
  EXPECT_NE(unschedulableMessage(h, "ephemeral")
                .find("pod uses generic ephemeral volume \"tmp\" but profile "
                      "\"default-scheduler\" has no VolumeBinding plugin"),
            std::string::npos);
  EXPECT_NE(unschedulableMessage(h, "devices")
                .find("pod has spec.resourceClaims but profile \"default-scheduler\" has no "
                      "DynamicResources plugin: its devices would not be allocated"),
            std::string::npos);
}

}  // namespace
}  // namespace sh::cycle::scheduler_dependencies_test
