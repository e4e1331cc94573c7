// NodeVolumeLimits (upstream's CSILimits): a pod fits a node only if, for every CSI driver, the
// volumes already attached there plus the pod's new ones stay within the limit the node's
// CSINode reports (spec.drivers[].allocatable.count).
//
// Extension points: PreFilter, Filter, EnqueueExtensions.
// Upstream: pkg/scheduler/framework/plugins/nodevolumelimits/{csi.go,utils.go} (v1.36.2), with
// the in-tree to CSI translation of k8s.io/csi-translation-lib (v0.36.2).
//
//   csi_limits.cc    PreFilter, Filter and registration (csi.go)
//   events.cc        EnqueueExtensions and queueing hints (csi.go)
//   volumes.cc       the volumes of a pod and of a node (csi.go, utils.go)
//   node_usage.cc    what each node uses, kept across cycles
//   translation.cc   in-tree volumes as CSI volumes (csi-translation-lib)
//   fields.cc        reading storage objects field by field
//
// Per cycle: PreFilter resolves the pod's own volumes once, both for a node with a CSINode and
// for one without (in-tree volumes count only with one). Filter then compares them with the
// node's usage (node_usage.h), kept across cycles and derived again only for a node whose pods
// changed, or when an object of the plugin's kinds did.
#ifndef SCHEDHOST_PLUGINS_NODEVOLUMELIMITS_CSI_LIMITS_H
#define SCHEDHOST_PLUGINS_NODEVOLUMELIMITS_CSI_LIMITS_H

#include "node_usage.h"
#include "volumes.h"

#include <schedhost/plugin.hpp>

#include <memory>
#include <mutex>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace schedhost::plugins::nodevolumelimits {

constexpr const char* kName = "NodeVolumeLimits";
constexpr char kErrReasonMaxVolumeCountExceeded[] = "node(s) exceed max volume count";

// A volume of the pod being scheduled that counts against a CSI limit.
struct PodVolume {
  std::string name;  // its unique name
  std::string driver;
  uint64_t bit = 0;  // NodeUsage::volumeBit(name)
};

// What PreFilter prepared for one cycle: the pod's volumes for either kind of node, the epoch
// of the kinds' versions the cycle reads and the VolumeAttachments by spec.nodeName. Object
// views stay valid for the whole cycle.
struct CycleData {
  // The pod's volumes (filterAttachableVolumes of the new pod), or the status that resolving
  // them gave (a missing claim, an ephemeral claim of another owner, ...).
  struct PodVolumes {
    Status status;
    std::vector<PodVolume> volumes;  // by name: Filter walks them on every node, no lookup
  };
  PodVolumes withoutCsiNode;
  PodVolumes withCsiNode;
  uint64_t epoch = 0;  // NodeUsageCache::epochOf the kinds' versions
  std::shared_ptr<const AttachmentIndex> attachments;
};

// The cycle-state entry: shared, so that the host's clones (preemption, nominated pods) copy a
// pointer.
struct PreFilterState {
  std::shared_ptr<const CycleData> data;
};

class CSILimits : public PreFilterPlugin, public FilterPlugin, public EnqueueExtensions {
 public:
  // The objects it reads, all read only (indexes: KindIndex in volumes.h). CSIDriver is read by
  // upstream only under the alpha VolumeLimitScaling gate, off in v1.36.
  static constexpr sh_object_kind kKinds[] = {
      objectKind("", "v1", "persistentvolumeclaims", "PersistentVolumeClaim", kNamespaced),
      objectKind("", "v1", "persistentvolumes", "PersistentVolume", kClusterScoped),
      objectKind("storage.k8s.io", "v1", "storageclasses", "StorageClass", kClusterScoped),
      objectKind("storage.k8s.io", "v1", "csinodes", "CSINode", kClusterScoped),
      objectKind("storage.k8s.io", "v1", "volumeattachments", "VolumeAttachment", kClusterScoped),
  };

  CSILimits(Host& host, const Args& args);

  Status preFilter(Cycle& cycle, const sh_pod& pod, PreFilterResult& result);
  Status filter(Cycle& cycle, const sh_pod& pod, const sh_node_info& nodeInfo);
  std::vector<EventRegistration> eventsToRegister();
  sh_queueing_hint queueingHint(std::size_t index, const sh_pod& pod,
                                const sh_event_objects& event);

 private:
  enum Event : std::size_t {
    kCSINodeAdd = 0,
    kCSINodeUpdate = 1,
    kPodDelete = 2,
    kPVCAdd = 3,
    kVolumeAttachmentDelete = 4,
  };
  std::shared_ptr<const CycleData> prepare(const Cycle& cycle, const sh_pod& pod);
  // Filter's verdict on a node that uses `usage`.
  static Status fits(const CycleData& data, const NodeUsage& usage);
  // The VolumeAttachments by node as of `version`: the kept index when it is of that version.
  std::shared_ptr<const AttachmentIndex> attachments(const Cycle& cycle, uint64_t version);
  sh_queueing_hint afterCSINodeUpdated(const sh_event_objects& event) const;
  sh_queueing_hint afterPodDeleted(const sh_event_objects& event) const;
  sh_queueing_hint afterPVCAdded(const sh_pod& pod, const sh_event_objects& event) const;
  sh_queueing_hint afterVolumeAttachmentDeleted(const sh_pod& pod,
                                                const sh_event_objects& event) const;

  Host& host_;
  sh_id stateKey_;
  // randomVolumeIDPrefix: 32 random characters of rand.String's alphabet.
  std::string volumeIdPrefix_;
  std::mutex attachmentsMu_;
  std::shared_ptr<const AttachmentIndex> attachments_;  // the last index built
  std::unique_ptr<NodeUsageCache> usage_;
};

}  // namespace schedhost::plugins::nodevolumelimits

#endif  // SCHEDHOST_PLUGINS_NODEVOLUMELIMITS_CSI_LIMITS_H
