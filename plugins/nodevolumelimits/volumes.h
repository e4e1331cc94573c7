// Which CSI volumes a pod attaches, and which a node has attached: csi.go's
// filterAttachableVolumes, checkAttachableInlineVolume, getCSIDriverInfo, getCSIDriverInfoFromSC,
// getVolumeLimits and getNodeVolumeAttachmentInfo, on the plugin's declared kinds.
//
// A volume is named "<driver>/<volume handle>" (getVolumeUniqueName), so that the same volume
// reached from two pods, or from a pod and a VolumeAttachment, is counted once.
#ifndef SCHEDHOST_PLUGINS_NODEVOLUMELIMITS_VOLUMES_H
#define SCHEDHOST_PLUGINS_NODEVOLUMELIMITS_VOLUMES_H

#include <schedhost/plugin.hpp>

#include <cstdint>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

namespace schedhost::plugins::nodevolumelimits {

// The kinds the plugin reads, as indexes of CSILimits::kKinds.
enum KindIndex : uint32_t {
  kPersistentVolumeClaims = 0,
  kPersistentVolumes = 1,
  kStorageClasses = 2,
  kCSINodes = 3,
  kVolumeAttachments = 4,
};

// volumeUniqueName → driver name, upstream's map[string]string.
using VolumeMap = std::unordered_map<std::string, std::string>;

// getVolumeUniqueName.
std::string volumeUniqueName(std::string_view driver, std::string_view handle);

// The pod's volumes (spec.volumes), or none on a host older than ABI 1.3.
bool hostHasPodVolumes(const sh_pod& pod) noexcept;
// Whether a volume can count against a CSI limit: PreFilter's test (a PVC, an ephemeral volume
// or an in-tree volume csi-translation-lib can migrate). Inline CSI volumes cannot.
bool mayAttach(const sh_volume& vol) noexcept;

// The azureDisk.kind of pod volume `vol`, read from the pod's manifest, after API defaulting
// ("Shared" when unset). An Error status when the host has no pod_manifest service (ABI 1.3)
// or the field is not a string.
Status azureDiskKind(const Host& host, const sh_pod& pod, const sh_volume& vol, std::string& kind);

// getVolumeLimits: spec.drivers[].allocatable.count of a CSINode, by driver (a driver without
// a count has no limit). An Error status naming the field when it has the wrong type.
Status volumeLimits(const Object& csiNode, std::unordered_map<std::string, int64_t>& out);

// Resolves pods' volumes to CSI volumes through the objects a cycle sees.
class VolumeResolver {
 public:
  // `volumeIdPrefix` is the plugin's randomVolumeIDPrefix, which names an unbound claim's
  // volume ("<prefix>-<namespace>/<claim>") so that it never collides with a real handle.
  VolumeResolver(const Host& host, const Cycle& cycle, std::string_view volumeIdPrefix) noexcept
      : host_(host), cycle_(cycle), prefix_(volumeIdPrefix) {}

  // filterAttachableVolumes: adds the pod's CSI volumes to `out`. `hasCsiNode` tells whether
  // the node has a CSINode (in-tree volumes count only then). For the pod being scheduled
  // (`newPod`), a missing PersistentVolumeClaim is UnschedulableAndUnresolvable
  // `looking up PVC <ns>/<name>: persistentvolumeclaim "<name>" not found`; for a pod already
  // on the node it is not counted. An ephemeral volume's claim the pod does not control, a
  // claim without a name and an inline volume that does not translate are Errors.
  Status attachableVolumes(const sh_pod& pod, bool hasCsiNode, bool newPod, VolumeMap& out) const;

  // getNodeVolumeAttachmentInfo for the node's VolumeAttachments: attacher/handle of each one
  // with an attacher, a PersistentVolume name, and a PersistentVolume that is a CSI volume.
  Status attachedVolumes(const std::vector<const sh_object*>& attachments, VolumeMap& out) const;

 private:
  struct DriverInfo {
    std::string driver;
    std::string handle;
  };
  Status inlineVolume(const sh_pod& pod, const sh_volume& vol, bool hasCsiNode,
                      VolumeMap& out) const;
  Status driverInfo(const Object& pvc, bool hasCsiNode, DriverInfo& info) const;
  Status driverInfoFromStorageClass(const Object& pvc, bool hasCsiNode, DriverInfo& info) const;

  const Host& host_;
  Cycle cycle_;
  std::string_view prefix_;
};

}  // namespace schedhost::plugins::nodevolumelimits

#endif  // SCHEDHOST_PLUGINS_NODEVOLUMELIMITS_VOLUMES_H
