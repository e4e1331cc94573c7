// VolumeZone: a pod fits a node only if the zone and region labels of every PersistentVolume
// bound to its claims name the node's zone and region. A node without any zone or region label
// always fits.
//
// Extension points: PreFilter, Filter, EnqueueExtensions.
// Reads PersistentVolumeClaims, PersistentVolumes and StorageClasses (declared kinds).
// Upstream: pkg/scheduler/framework/plugins/volumezone/volume_zone.go (v1.36).
//
//   volume_zone.cc  construction, PreFilter, Filter, registration
//   pv_topology.cc  a PV's topology labels (getPVTopologies, LabelZonesToSet)
//   events.cc       EnqueueExtensions and queueing hints
#ifndef SCHEDHOST_PLUGINS_VOLUMEZONE_VOLUME_ZONE_H
#define SCHEDHOST_PLUGINS_VOLUMEZONE_VOLUME_ZONE_H

#include "pv_topology.h"

#include <schedhost/helpers.hpp>
#include <schedhost/plugin.hpp>

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

namespace schedhost::plugins::volumezone {

constexpr const char* kName = "VolumeZone";
// Upstream's preFilterStateKey = "PreFilter" + Name.
inline const std::string kPreFilterStateKey = std::string("PreFilter") + kName;

constexpr char kErrReasonConflict[] = "node(s) had no available volume zone";
// storagev1.VolumeBindingWaitForFirstConsumer, a StorageClass's volumeBindingMode.
constexpr std::string_view kWaitForFirstConsumer = "WaitForFirstConsumer";

// What PreFilter computes for Filter: the topologies of the pod's bound PVs, shared read-only
// between a state and its clones (upstream's stateData.Clone returns itself).
struct PreFilterState {
  std::shared_ptr<const std::vector<PvTopology>> podPVTopologies;
};

// The pod's volumes (sh_pod.volumes, ABI 1.3). A pod view without them (a host older than 1.3,
// which never loads this plugin) reads as having none: PreFilter checks hasVolumeFields first.
inline bool hasVolumeFields(const sh_pod& pod) noexcept {
  return pod.struct_size >= offsetof(sh_pod, resource_claim_count) + sizeof(uint32_t);
}
inline uint32_t volumeCount(const sh_pod& pod) noexcept {
  return hasVolumeFields(pod) && pod.volumes != nullptr ? pod.volume_count : 0;
}

class VolumeZone : public PreFilterPlugin, public FilterPlugin, public EnqueueExtensions {
 public:
  // The kinds of objects it reads, by index.
  static constexpr uint32_t kPersistentVolumeClaims = 0;
  static constexpr uint32_t kPersistentVolumes = 1;
  static constexpr uint32_t kStorageClasses = 2;
  static constexpr sh_object_kind kKinds[] = {
      objectKind("", "v1", "persistentvolumeclaims", "PersistentVolumeClaim", kNamespaced),
      objectKind("", "v1", "persistentvolumes", "PersistentVolume", kClusterScoped),
      objectKind("storage.k8s.io", "v1", "storageclasses", "StorageClass", kClusterScoped)};

  VolumeZone(Host& host, const Args& args);

  Status preFilter(Cycle& cycle, const sh_pod& pod, PreFilterResult& result);
  Status filter(Cycle& cycle, const sh_pod& pod, const sh_node_info& nodeInfo);
  std::vector<EventRegistration> eventsToRegister();
  sh_queueing_hint queueingHint(std::size_t index, const sh_pod& pod,
                                const sh_event_objects& event);

 private:
  // getPVbyPod: the topologies of the PVs bound to the pod's claims, or the status upstream
  // gives for a claim, class or volume it cannot resolve.
  Status podPVTopologies(const Cycle& cycle, const sh_pod& pod, std::vector<PvTopology>& out) const;

  Host host_;
  sh_id preFilterKey_;
  TopologyLabels labels_;
};

}  // namespace schedhost::plugins::volumezone

#endif  // SCHEDHOST_PLUGINS_VOLUMEZONE_VOLUME_ZONE_H
