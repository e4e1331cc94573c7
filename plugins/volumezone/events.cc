// VolumeZone cluster events and queueing hints. Upstream: volume_zone.go (EventsToRegister,
// isSchedulableAfterStorageClassAdded, isSchedulableAfterPersistentVolumeClaimChange,
// isSchedulableAfterPersistentVolumeChange), with queueing hints on (always, in v1.36).
#include "volume_zone.h"

#include <schedhost/plugin.hpp>

#include <string_view>
#include <vector>

namespace schedhost::plugins::volumezone {

namespace {

enum : std::size_t {
  kStorageClassAdd = 0,
  kNodeChange = 1,
  kPersistentVolumeClaimChange = 2,
  kPersistentVolumeChange = 3
};

// isSchedulableAfterStorageClassAdded: only a class that waits for the first consumer lets an
// unbound claim pass PreFilter.
sh_queueing_hint afterStorageClassAdded(const Object& added) noexcept {
  if (!added) {
    return SH_QUEUE;
  }
  const Json mode = added.path("volumeBindingMode");
  return mode.isString() && mode.asString() == kWaitForFirstConsumer ? SH_QUEUE : SH_QUEUE_SKIP;
}

// isSchedulableAfterPersistentVolumeClaimChange (isPVCRequestedFromPod): the claim, added or
// updated, is one of the pod's.
sh_queueing_hint afterClaimChange(const sh_pod& pod, const Object& claim) noexcept {
  if (!claim) {
    return SH_QUEUE;
  }
  if (claim.ns() != view(pod.namespace_)) {
    return SH_QUEUE_SKIP;
  }
  for (uint32_t i = 0; i < volumeCount(pod); ++i) {
    const sh_volume& v = pod.volumes[i];
    if (v.source == SH_VOLUME_PVC && view(v.claim) == claim.name()) {
      return SH_QUEUE;
    }
  }
  return SH_QUEUE_SKIP;
}

}  // namespace

std::vector<EventRegistration> VolumeZone::eventsToRegister() {
  return {
      // A new class that waits for the first consumer lets unbound claims through; a class's
      // volumeBindingMode is immutable, so updates never help.
      {SH_RESOURCE_STORAGE_CLASS, SH_ACTION_ADD, true},
      // A new node, or new zone labels on one: no hint.
      {SH_RESOURCE_NODE, SH_ACTION_ADD | SH_ACTION_UPDATE_NODE_LABEL, false},
      // A claim created, or bound (spec.volumeName filled).
      {SH_RESOURCE_PERSISTENT_VOLUME_CLAIM, SH_ACTION_ADD | SH_ACTION_UPDATE, true},
      // A volume created, or its zone labels changed.
      {SH_RESOURCE_PERSISTENT_VOLUME, SH_ACTION_ADD | SH_ACTION_UPDATE, true},
  };
}

sh_queueing_hint VolumeZone::queueingHint(std::size_t index, const sh_pod& pod,
                                          const sh_event_objects& event) {
  if (!hasVolumeFields(pod)) {
    return SH_QUEUE;
  }
  const ObjectEvent objects(host_.api(), event);
  switch (index) {
    case kStorageClassAdd:
      return afterStorageClassAdded(objects.newObject());
    case kPersistentVolumeClaimChange:
      return afterClaimChange(pod, objects.newObject());
    case kPersistentVolumeChange: {
      // isSchedulableAfterPersistentVolumeChange: a new PV, or a change of its topology.
      const Object before = objects.oldObject();
      const Object after = objects.newObject();
      if (!after) {
        return SH_QUEUE;
      }
      if (!before) {
        return SH_QUEUE;
      }
      return pvTopologies(labels_, before) == pvTopologies(labels_, after) ? SH_QUEUE_SKIP
                                                                           : SH_QUEUE;
    }
    default:
      return SH_QUEUE;
  }
}

}  // namespace schedhost::plugins::volumezone
