// VolumeRestrictions: a pod fits a node only if none of its in-line disks (GCE PD, AWS EBS, RBD,
// iSCSI) conflicts with a disk a pod on that node mounts, and none of its ReadWriteOncePod
// PersistentVolumeClaims is already used by another pod of the cluster.
//
// Extension points: PreFilter (+AddPod/RemovePod), Filter, EnqueueExtensions.
// Reads PersistentVolumeClaims (core/v1, a declared kind).
// Upstream: pkg/scheduler/framework/plugins/volumerestrictions/volume_restrictions.go (v1.36).
//
//   volume_restrictions.cc  construction, PreFilter, AddPod/RemovePod, Filter, registration
//   disk_conflicts.cc       the in-line disk rules (isVolumeConflict, satisfyVolumeConflicts)
//   events.cc               EnqueueExtensions and queueing hints
#ifndef SCHEDHOST_PLUGINS_VOLUMERESTRICTIONS_VOLUME_RESTRICTIONS_H
#define SCHEDHOST_PLUGINS_VOLUMERESTRICTIONS_VOLUME_RESTRICTIONS_H

#include <schedhost/helpers.hpp>
#include <schedhost/plugin.hpp>

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

namespace schedhost::plugins::volumerestrictions {

constexpr const char* kName = "VolumeRestrictions";
// Upstream's preFilterStateKey = "PreFilter" + Name.
inline const std::string kPreFilterStateKey = std::string("PreFilter") + kName;

constexpr char kErrReasonDiskConflict[] = "node(s) had no available disk";
constexpr char kErrReasonReadWriteOncePodConflict[] =
    "node(s) unavailable due to PersistentVolumeClaim with ReadWriteOncePod access mode already "
    "in-use by another pod";

// What PreFilter computes for Filter; AddPod/RemovePod keep the count up to date on clones.
struct PreFilterState {
  // Names of the pod's PersistentVolumeClaims with the ReadWriteOncePod access mode, sorted and
  // unique; shared read-only between a state and its clones.
  std::shared_ptr<const std::vector<std::string>> readWriteOncePodPVCs;
  // The number of references to these claims by pods of the snapshot.
  int64_t conflictingPVCRefCount = 0;
};

// The pod's volumes (sh_pod.volumes, ABI 1.3). A pod view without them (a host older than 1.3,
// which never loads this plugin) reads as having none: callers that decide on volumes check
// hasVolumeFields first.
inline bool hasVolumeFields(const sh_pod& pod) noexcept {
  return pod.struct_size >= offsetof(sh_pod, resource_claim_count) + sizeof(uint32_t);
}
inline uint32_t volumeCount(const sh_pod& pod) noexcept {
  return hasVolumeFields(pod) && pod.volumes != nullptr ? pod.volume_count : 0;
}

// Whether an in-line volume is one the conflict rules look at (upstream's
// needsRestrictionsCheck): GCE PD, AWS EBS, RBD or iSCSI.
bool needsRestrictionsCheck(const sh_volume& volume) noexcept;
// Whether `volume` of the incoming pod conflicts with a volume of `existing` (isVolumeConflict).
bool isVolumeConflict(const sh_volume& volume, const sh_pod& existing) noexcept;
// Whether none of the pod's in-line disks conflicts with any of `pods` (satisfyVolumeConflicts).
bool satisfyVolumeConflicts(const sh_pod& pod, const sh_pod* const* pods,
                            std::size_t count) noexcept;

class VolumeRestrictions : public PreFilterPlugin,
                           public PreFilterExtensions,
                           public FilterPlugin,
                           public EnqueueExtensions {
 public:
  // The kinds of objects it reads: PersistentVolumeClaims, for their access modes.
  static constexpr uint32_t kPersistentVolumeClaims = 0;
  static constexpr sh_object_kind kKinds[] = {
      objectKind("", "v1", "persistentvolumeclaims", "PersistentVolumeClaim", kNamespaced)};

  VolumeRestrictions(Host& host, const Args& args);

  Status preFilter(Cycle& cycle, const sh_pod& pod, PreFilterResult& result);
  Status addPod(Cycle& cycle, const sh_pod& pod, const sh_pod& other, const sh_node_info& node);
  Status removePod(Cycle& cycle, const sh_pod& pod, const sh_pod& other, const sh_node_info& node);
  Status filter(Cycle& cycle, const sh_pod& pod, const sh_node_info& nodeInfo);
  std::vector<EventRegistration> eventsToRegister();
  sh_queueing_hint queueingHint(std::size_t index, const sh_pod& pod,
                                const sh_event_objects& event);

 private:
  // The names of the pod's ReadWriteOncePod claims (readWriteOncePodPVCsForPod), or a status
  // when a claim is missing or malformed.
  Status readWriteOncePodPVCs(const Cycle& cycle, const sh_pod& pod,
                              std::vector<std::string>& out) const;
  // Whether a pod of the snapshot uses the claim ns/name (StorageInfos().IsPVCUsedByPods).
  bool pvcInUse(const Cycle& cycle, std::string_view ns, std::string_view name) const noexcept;
  Status updateWithPod(Cycle& cycle, const sh_pod& other, int64_t multiplier);

  Host host_;
  sh_id preFilterKey_;
  // The host has snapshot_pvc_in_use (ABI 1.3).
  bool servesPvcInUse_;
};

}  // namespace schedhost::plugins::volumerestrictions

#endif  // SCHEDHOST_PLUGINS_VOLUMERESTRICTIONS_VOLUME_RESTRICTIONS_H
