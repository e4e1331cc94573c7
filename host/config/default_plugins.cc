#include "host/config/default_plugins.h"

#include <array>

#include "host/config/feature_gates.h"

namespace sh::config {

namespace {

// Keep in step with upstream apis/config/v1/default_plugins.go: getDefaultPlugins.
constexpr std::array<DefaultPlugin, 20> kDefaultMultiPoint = {{
    {"SchedulingGates", 0},
    {"PrioritySort", 0},
    {"NodeUnschedulable", 0},
    {"NodeName", 0},
    {"TaintToleration", 3},
    {"NodeAffinity", 2},
    {"NodePorts", 0},
    {"NodeResourcesFit", 1},
    {"VolumeRestrictions", 0},
    {"NodeVolumeLimits", 0},
    {"VolumeBinding", 0},
    {"VolumeZone", 0},
    {"PodTopologySpread", 2},
    {"InterPodAffinity", 2},
    {"DynamicResources", 2},
    {"DefaultPreemption", 0},
    {"NodeResourcesBalancedAllocation", 1},
    {"ImageLocality", 1},
    {"DefaultBinder", 0},
    {"NodeDeclaredFeatures", 0},
}};

}  // namespace

std::span<const DefaultPlugin> defaultMultiPointPlugins() {
  // Upstream appends NodeDeclaredFeatures only while its gate is on.
  static_assert(kDefaultMultiPoint.back().name == "NodeDeclaredFeatures");
  if (!processFeatureGates().enabled("NodeDeclaredFeatures")) {
    return std::span<const DefaultPlugin>(kDefaultMultiPoint).first(kDefaultMultiPoint.size() - 1);
  }
  return kDefaultMultiPoint;
}

}  // namespace sh::config
