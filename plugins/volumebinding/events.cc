// VolumeBinding cluster events and queueing hints: which storage and node changes can make a pod
// this plugin rejected fit. Upstream: volume_binding.go (EventsToRegister and the
// isSchedulableAfter* hints), with queueing hints on (GA in v1.36), so a node's taint change is
// not registered.
#include "volume_binding.h"

#include <string_view>
#include <vector>

namespace schedhost::plugins::volumebinding {

namespace {

enum : std::size_t {
  kStorageClassEvents = 0,
  kClaimEvents = 1,
  kVolumeEvents = 2,
  kNodeEvents = 3,
  kCsiNodeEvents = 4,
  kCsiDriverEvents = 5,
  kCapacityEvents = 6,
};

// A zero value in Go: what an absent member reads as in a typed object.
bool zeroValue(const Json& v) {
  switch (v.type()) {
    case SH_ARGS_NULL:
      return true;
    case SH_ARGS_BOOL:
      return !v.asBool();
    case SH_ARGS_INT:
      return v.asInt() == 0;
    case SH_ARGS_DOUBLE:
      return v.asDouble() == 0;
    case SH_ARGS_STRING:
      return v.asString().empty();
    default:
      return v.size() == 0;
  }
}

// apiequality.Semantic.DeepEqual over JSON: an absent member equals its zero value, and a nil
// slice or map equals an empty one.
bool semanticEqual(const Json& a, const Json& b) {
  if (zeroValue(a) || zeroValue(b)) {
    return zeroValue(a) && zeroValue(b);
  }
  if (a.type() != b.type()) {
    return false;
  }
  switch (a.type()) {
    case SH_ARGS_ARRAY:
      if (a.size() != b.size()) {
        return false;
      }
      for (std::size_t i = 0; i < a.size(); ++i) {
        if (!semanticEqual(a.at(i), b.at(i))) {
          return false;
        }
      }
      return true;
    case SH_ARGS_OBJECT:
      for (std::size_t i = 0; i < a.size(); ++i) {
        if (!semanticEqual(a.at(i), b.get(a.keyAt(i)))) {
          return false;
        }
      }
      for (std::size_t i = 0; i < b.size(); ++i) {
        if (!semanticEqual(b.at(i), a.get(b.keyAt(i)))) {
          return false;
        }
      }
      return true;
    case SH_ARGS_DOUBLE:
      return a.asDouble() == b.asDouble();
    case SH_ARGS_INT:
      return a.asInt() == b.asInt();
    case SH_ARGS_BOOL:
      return a.asBool() == b.asBool();
    default:
      return a.asString() == b.asString();
  }
}

}  // namespace

std::vector<EventRegistration> VolumeBinding::eventsToRegister() {
  return {
      // A missing or misconfigured StorageClass (allowedTopologies).
      {SH_RESOURCE_STORAGE_CLASS, SH_ACTION_ADD | SH_ACTION_UPDATE, true},
      // Claims and volumes are what gets bound.
      {SH_RESOURCE_PERSISTENT_VOLUME_CLAIM, SH_ACTION_ADD | SH_ACTION_UPDATE, true},
      {SH_RESOURCE_PERSISTENT_VOLUME, SH_ACTION_ADD | SH_ACTION_UPDATE, false},
      // A node's labels decide volume node affinity and allowed topologies.
      {SH_RESOURCE_NODE, SH_ACTION_ADD | SH_ACTION_UPDATE_NODE_LABEL, false},
      // CSINode: the CSI migration of in-tree volumes.
      {SH_RESOURCE_CSI_NODE, SH_ACTION_ADD | SH_ACTION_UPDATE, true},
      // Storage capacity tracking.
      {SH_RESOURCE_CSI_DRIVER, SH_ACTION_UPDATE, true},
      {SH_RESOURCE_CSI_STORAGE_CAPACITY, SH_ACTION_ADD | SH_ACTION_UPDATE, true},
  };
}

sh_queueing_hint VolumeBinding::queueingHint(std::size_t index, const sh_pod& pod,
                                             const sh_event_objects& event) {
  ObjectEvent objects(host_.api(), event);
  const Object before = objects.oldObject();
  const Object after = objects.newObject();
  switch (index) {
    case kStorageClassEvents:
      // A new class may be the one a claim waits for; an update matters only when it changes
      // allowedTopologies (volumeBindingMode is immutable).
      if (!before || !after) {
        return SH_QUEUE;
      }
      return semanticEqual(before.root()["allowedTopologies"], after.root()["allowedTopologies"])
                 ? SH_QUEUE_SKIP
                 : SH_QUEUE;
    case kClaimEvents: {
      if (!after) {
        return SH_QUEUE;
      }
      if (after.ns() != view(pod.namespace_)) {
        return SH_QUEUE_SKIP;
      }
      // Any creation and almost any update of a claim the pod uses may help it.
      for (Volume vol : volumes(pod)) {
        if (vol.usesClaim() && vol.claim() == after.name()) {
          return SH_QUEUE;
        }
      }
      return SH_QUEUE_SKIP;
    }
    case kCsiNodeEvents:
      if (!before || !after) {
        return SH_QUEUE;
      }
      return annotation(before.root(), kMigratedPluginsAnnotation) !=
                     annotation(after.root(), kMigratedPluginsAnnotation)
                 ? SH_QUEUE
                 : SH_QUEUE_SKIP;
    case kCsiDriverEvents: {
      if (!before || !after) {
        return SH_QUEUE;
      }
      // A driver that stops tracking capacity lets its inline volumes' pods through.
      for (Volume vol : volumes(pod)) {
        if (vol.source() != SH_VOLUME_CSI || vol.driver() != after.name()) {
          continue;
        }
        if (before.path("spec.storageCapacity").asBool() &&
            !after.path("spec.storageCapacity").asBool()) {
          return SH_QUEUE;
        }
      }
      return SH_QUEUE_SKIP;
    }
    case kCapacityEvents: {
      if (!before || !after) {
        return SH_QUEUE;
      }
      // Only more room helps: a larger maximumVolumeSize (or capacity, when that is unset).
      const VolumeLimit oldLimit = volumeLimit(before);
      const VolumeLimit newLimit = volumeLimit(after);
      return newLimit.present &&
                     (!oldLimit.present || newLimit.limit.value() > oldLimit.limit.value())
                 ? SH_QUEUE
                 : SH_QUEUE_SKIP;
    }
    default:
      return SH_QUEUE;
  }
}

}  // namespace schedhost::plugins::volumebinding
