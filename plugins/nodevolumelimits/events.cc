// EnqueueExtensions of NodeVolumeLimits (csi.go EventsToRegister and the isSchedulableAfter*
// hints). A hint that cannot read its objects answers Queue, as upstream does on an error.
#include "csi_limits.h"

#include "fields.h"
#include "translation.h"

#include <cstdint>
#include <unordered_map>

namespace schedhost::plugins::nodevolumelimits {

namespace {

// spec.drivers[].allocatable.count by driver, 0 when unset; false when a field is malformed.
bool driverLimits(const Object& csiNode, std::unordered_map<std::string, int64_t>& out) {
  Fields f(csiNode, "CSINode");
  Json drivers = csiNode.path("spec.drivers");
  if (f.arrayOf(drivers, "spec.drivers")) {
    for (std::size_t i = 0; i < drivers.size(); ++i) {
      Json d = drivers.at(i);
      if (!f.objectOf(d, "spec.drivers[]")) {
        continue;
      }
      std::string name(f.stringOf(d.get("name"), "spec.drivers[].name").value_or(""));
      out[name] =
          f.integerOf(d.path("allocatable.count"), "spec.drivers[].allocatable.count").value_or(0);
    }
  }
  return f.ok();
}

}  // namespace

std::vector<EventRegistration> CSILimits::eventsToRegister() {
  return {
      // No hint: any new CSINode may make a pod rejected for its CSI volumes schedulable.
      {SH_RESOURCE_CSI_NODE, SH_ACTION_ADD, false},
      {SH_RESOURCE_CSI_NODE, SH_ACTION_UPDATE, true},
      {SH_RESOURCE_POD, SH_ACTION_DELETE, true},
      {SH_RESOURCE_PERSISTENT_VOLUME_CLAIM, SH_ACTION_ADD, true},
      {SH_RESOURCE_VOLUME_ATTACHMENT, SH_ACTION_DELETE, true},
  };
}

sh_queueing_hint CSILimits::queueingHint(std::size_t index, const sh_pod& pod,
                                         const sh_event_objects& event) {
  switch (index) {
    case kCSINodeUpdate:
      return afterCSINodeUpdated(event);
    case kPodDelete:
      return afterPodDeleted(event);
    case kPVCAdd:
      return afterPVCAdded(pod, event);
    case kVolumeAttachmentDelete:
      return afterVolumeAttachmentDeleted(pod, event);
    default:
      return SH_QUEUE;
  }
}

// isSchedulableAfterCSINodeUpdated: Queue when some driver's limit went up (a driver new to the
// CSINode counts from 0).
sh_queueing_hint CSILimits::afterCSINodeUpdated(const sh_event_objects& event) const {
  ObjectEvent e(host_.api(), event);
  Object before = e.oldObject();
  Object after = e.newObject();
  if (!before || !after || e.kind() != kCSINodes) {
    return SH_QUEUE;
  }
  std::unordered_map<std::string, int64_t> oldLimits;
  if (!driverLimits(before, oldLimits)) {
    return SH_QUEUE;
  }
  Fields f(after, "CSINode");
  Json drivers = after.path("spec.drivers");
  if (f.arrayOf(drivers, "spec.drivers")) {
    for (std::size_t i = 0; i < drivers.size(); ++i) {
      Json d = drivers.at(i);
      if (!f.objectOf(d, "spec.drivers[]")) {
        continue;
      }
      std::string name(f.stringOf(d.get("name"), "spec.drivers[].name").value_or(""));
      int64_t limit =
          f.integerOf(d.path("allocatable.count"), "spec.drivers[].allocatable.count").value_or(0);
      auto old = oldLimits.find(name);
      if (f.ok() && limit > (old == oldLimits.end() ? 0 : old->second)) {
        return SH_QUEUE;
      }
    }
  }
  return f.ok() ? SH_QUEUE_SKIP : SH_QUEUE;
}

// isSchedulableAfterPodDeleted: Queue when the deleted pod was assigned (or nominated) and had a
// volume that may count against a CSI limit.
sh_queueing_hint CSILimits::afterPodDeleted(const sh_event_objects& event) const {
  const sh_pod* deleted = event.old_pod;
  if (deleted == nullptr || !hostHasPodVolumes(*deleted)) {
    return SH_QUEUE;
  }
  if (deleted->volume_count == 0) {
    return SH_QUEUE_SKIP;
  }
  if (deleted->node_name.len == 0 && deleted->nominated_node_name.len == 0) {
    return SH_QUEUE_SKIP;
  }
  for (uint32_t i = 0; i < deleted->volume_count; ++i) {
    if (mayAttach(deleted->volumes[i])) {
      return SH_QUEUE;
    }
  }
  return SH_QUEUE_SKIP;
}

// isSchedulableAfterPVCAdded: Queue when the new claim is one the pod uses (directly or as an
// ephemeral volume's claim).
sh_queueing_hint CSILimits::afterPVCAdded(const sh_pod& pod, const sh_event_objects& event) const {
  ObjectEvent e(host_.api(), event);
  Object added = e.newObject();
  if (!added || e.kind() != kPersistentVolumeClaims || !hostHasPodVolumes(pod)) {
    return SH_QUEUE;
  }
  if (added.ns() != view(pod.namespace_)) {
    return SH_QUEUE_SKIP;
  }
  for (uint32_t i = 0; i < pod.volume_count; ++i) {
    const sh_volume& vol = pod.volumes[i];
    if (vol.source != SH_VOLUME_PVC && vol.source != SH_VOLUME_EPHEMERAL) {
      continue;
    }
    if (view(vol.claim) == added.name()) {
      return SH_QUEUE;
    }
  }
  return SH_QUEUE_SKIP;
}

// isSchedulableAfterVolumeAttachmentDeleted: Queue when the pod has a PVC (ephemeral volumes are
// not looked at), or an in-tree inline volume whose CSI driver is the attachment's attacher (or
// that does not translate).
sh_queueing_hint CSILimits::afterVolumeAttachmentDeleted(const sh_pod& pod,
                                                         const sh_event_objects& event) const {
  ObjectEvent e(host_.api(), event);
  Object deleted = e.oldObject();
  if (!deleted || e.kind() != kVolumeAttachments || !hostHasPodVolumes(pod)) {
    return SH_QUEUE;
  }
  Fields f(deleted, "VolumeAttachment");
  std::string_view attacher = f.string("spec.attacher");
  if (!f.ok()) {
    return SH_QUEUE;
  }
  for (uint32_t i = 0; i < pod.volume_count; ++i) {
    const sh_volume& vol = pod.volumes[i];
    if (vol.source == SH_VOLUME_PVC) {
      return SH_QUEUE;
    }
    const InTreePlugin* plugin = pluginOfInlineSource(vol.source);
    if (plugin == nullptr) {
      continue;
    }
    std::string kind;
    if (vol.source == SH_VOLUME_AZURE_DISK && !azureDiskKind(host_, pod, vol, kind).ok()) {
      return SH_QUEUE;
    }
    if (!translateInlineVolume(vol, kind).ok() || attacher == plugin->driver) {
      return SH_QUEUE;  // a translation error is reported as Queue
    }
  }
  return SH_QUEUE_SKIP;
}

}  // namespace schedhost::plugins::nodevolumelimits
