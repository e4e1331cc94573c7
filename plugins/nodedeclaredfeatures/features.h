// The node declared features of v1.36: what k8s.io/component-helpers v0.36.2 registers
// (nodedeclaredfeatures/features/registry.go, AllFeatures), the list kube-scheduler v1.36 builds
// its framework from (ndf.DefaultFramework, also what NodeInfo maps a node's
// status.declaredFeatures with). Each feature's InferForScheduling reads the pod's spec.
#ifndef SCHEDHOST_PLUGINS_NODEDECLAREDFEATURES_FEATURES_H
#define SCHEDHOST_PLUGINS_NODEDECLAREDFEATURES_FEATURES_H

#include "framework.h"

#include <vector>

namespace schedhost::plugins::nodedeclaredfeatures {

// The version the scheduler compares a feature's MaxVersion with (upstream: the binary's own
// version, version.Get()).
inline constexpr Version kSchedulerVersion{1, 36, 0};

// features.AllFeatures of v0.36.2, in its order (the Framework sorts them by name):
//
//   RestartAllContainersOnContainerExits     a container or init container with a
//                                            restartPolicyRules action RestartAllContainers
//   InPlacePodLevelResourcesVerticalScaling  never at scheduling (only on resize)
//   ExtendWebSocketsToKubelet                never
//   InPlacePodVerticalScalingInitContainers  never at scheduling (only on resize)
//   UserNamespacesHostNetworkSupport         hostNetwork: true with hostUsers: false
//
// None has a MaxVersion.
std::vector<Feature> allFeatures();

}  // namespace schedhost::plugins::nodedeclaredfeatures

#endif  // SCHEDHOST_PLUGINS_NODEDECLAREDFEATURES_FEATURES_H
