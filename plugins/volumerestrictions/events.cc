// VolumeRestrictions cluster events and queueing hints. Upstream: volume_restrictions.go
// (EventsToRegister, isSchedulableAfterPodDeleted, isSchedulableAfterPersistentVolumeClaimAdded),
// with queueing hints on (always, in v1.36).
#include "volume_restrictions.h"

#include <schedhost/plugin.hpp>

#include <string_view>
#include <vector>

namespace schedhost::plugins::volumerestrictions {

namespace {

enum : std::size_t { kPodDelete = 0, kNodeAdd = 1, kPersistentVolumeClaimAdd = 2 };

// Whether `pod` has a persistentVolumeClaim volume naming `claim`.
bool usesClaim(const sh_pod& pod, std::string_view claim) noexcept {
  for (uint32_t i = 0; i < volumeCount(pod); ++i) {
    const sh_volume& v = pod.volumes[i];
    if (v.source == SH_VOLUME_PVC && view(v.claim) == claim) {
      return true;
    }
  }
  return false;
}

// isSchedulableAfterPodDeleted: the deleted pod (of the pod's namespace) held a disk the pod
// conflicts with, or used one of the pod's claims (it may have been the ReadWriteOncePod
// holder: the claim's access mode is not fetched, to keep hints cheap).
sh_queueing_hint afterPodDeleted(const sh_pod& pod, const sh_pod* deleted) noexcept {
  if (deleted == nullptr) {
    return SH_QUEUE;
  }
  if (view(deleted->namespace_) != view(pod.namespace_)) {
    return SH_QUEUE_SKIP;
  }
  if (!satisfyVolumeConflicts(pod, &deleted, 1)) {
    return SH_QUEUE;
  }
  for (uint32_t i = 0; i < volumeCount(*deleted); ++i) {
    const sh_volume& v = deleted->volumes[i];
    if (v.source == SH_VOLUME_PVC && usesClaim(pod, view(v.claim))) {
      return SH_QUEUE;
    }
  }
  return SH_QUEUE_SKIP;
}

// isSchedulableAfterPersistentVolumeClaimAdded: the new claim is one the pod refers to.
sh_queueing_hint afterClaimAdded(const sh_host_api* api, const sh_pod& pod,
                                 const sh_event_objects& event) noexcept {
  const Object claim = ObjectEvent(api, event).newObject();
  if (!claim) {
    return SH_QUEUE;
  }
  if (claim.ns() != view(pod.namespace_)) {
    return SH_QUEUE_SKIP;
  }
  return usesClaim(pod, claim.name()) ? SH_QUEUE : SH_QUEUE_SKIP;
}

}  // namespace

std::vector<EventRegistration> VolumeRestrictions::eventsToRegister() {
  return {
      // Volumes conflicting with other pods' are freed when those pods go; spec.volumes is
      // immutable, so pod updates never help.
      {SH_RESOURCE_POD, SH_ACTION_DELETE, true},
      // Any new node may help: no hint.
      {SH_RESOURCE_NODE, SH_ACTION_ADD, false},
      // A missing claim (needed for its access modes) may be created.
      {SH_RESOURCE_PERSISTENT_VOLUME_CLAIM, SH_ACTION_ADD, true},
  };
}

sh_queueing_hint VolumeRestrictions::queueingHint(std::size_t index, const sh_pod& pod,
                                                  const sh_event_objects& event) {
  if (!hasVolumeFields(pod)) {
    return SH_QUEUE;
  }
  switch (index) {
    case kPodDelete:
      return afterPodDeleted(pod, event.old_pod);
    case kPersistentVolumeClaimAdd:
      return afterClaimAdded(host_.api(), pod, event);
    default:
      return SH_QUEUE;
  }
}

}  // namespace schedhost::plugins::volumerestrictions
