// NodeResourcesFit cluster events and queueing hints: which pod and node changes can make a
// pod this plugin rejected fit.
#include "fit.h"

#include <schedhost/helpers.hpp>
#include <schedhost/plugin.hpp>

#include <vector>

namespace schedhost::plugins::noderesourcesfit {

std::vector<EventRegistration> Fit::eventsToRegister() {
  return {
      // A deleted or shrunk (in-place resize) pod frees resources.
      {SH_RESOURCE_POD, SH_ACTION_DELETE | SH_ACTION_UPDATE_POD_SCALE_DOWN, true},
      {SH_RESOURCE_NODE, SH_ACTION_ADD | SH_ACTION_UPDATE_NODE_ALLOCATABLE, true},
      // DRA-backed extended resources (DRAExtendedResource, beta in 1.36): a device class
      // may come to provide a resource the pod requests. Device classes are not visible to
      // hints, so every such event requeues.
      {SH_RESOURCE_DEVICE_CLASS, SH_ACTION_ADD | SH_ACTION_UPDATE, false},
  };
}

sh_queueing_hint Fit::queueingHint(std::size_t index, const sh_pod& pod,
                                   const sh_event_objects& event) {
  switch (index) {
    case kPodDeleteOrScaleDown:
      return afterPodEvent(pod, event);
    case kNodeAddOrAllocatable:
      return afterNodeChange(pod, event);
    default:
      return SH_QUEUE;
  }
}

// A deleted pod helps when it was assigned or nominated; a scaled-down pod helps when it is
// the pod itself, or an assigned pod that gave back a resource the pod requests.
sh_queueing_hint Fit::afterPodEvent(const sh_pod& pod, const sh_event_objects& event) const {
  const sh_pod* original = event.old_pod;
  const sh_pod* modified = event.new_pod;
  if (modified == nullptr) {
    if (original == nullptr) {
      return SH_QUEUE;
    }
    bool unscheduled = original->node_name.len == 0 && original->nominated_node_name.len == 0;
    return unscheduled ? SH_QUEUE_SKIP : SH_QUEUE;
  }
  if (view(modified->uid) == view(pod.uid)) {
    return SH_QUEUE;
  }
  if (modified->node_name.len == 0 || original == nullptr) {
    return SH_QUEUE_SKIP;
  }
  const sh_resources& want = pod.requests;
  const sh_resources& before = original->requests;
  const sh_resources& after = modified->requests;
  if ((want.milli_cpu != 0 && before.milli_cpu > after.milli_cpu) ||
      (want.memory != 0 && before.memory > after.memory) ||
      (want.ephemeral_storage != 0 && before.ephemeral_storage > after.ephemeral_storage)) {
    return SH_QUEUE;
  }
  for (uint32_t i = 0; i < want.scalar_count; ++i) {
    sh_id name = want.scalars[i].name;
    if (want.scalars[i].value != 0 && isScalarResourceName(host_.str(name)) &&
        scalarValue(before, name) > scalarValue(after, name)) {
      return SH_QUEUE;
    }
  }
  return SH_QUEUE_SKIP;
}

// A node helps when the pod would fit it empty (existing pods ignored) and it is new, or it
// grew the allocatable of a resource the pod requests (or of pods).
sh_queueing_hint Fit::afterNodeChange(const sh_pod& pod, const sh_event_objects& event) const {
  const sh_node* original = event.old_node;
  const sh_node* modified = event.new_node;
  if (modified == nullptr) {
    return SH_QUEUE;
  }
  sh_node_info empty{};
  empty.struct_size = sizeof(sh_node_info);
  empty.node = modified;
  bool fits = true;
  fitsRequest(pod.requests, empty, false, [&fits](const Insufficient&) { fits = false; });
  if (!fits) {
    return SH_QUEUE_SKIP;
  }
  if (original == nullptr) {
    return SH_QUEUE;
  }
  const sh_resources& want = pod.requests;
  const sh_resources& before = original->allocatable;
  const sh_resources& after = modified->allocatable;
  if (after.allowed_pod_number > before.allowed_pod_number) {
    return SH_QUEUE;
  }
  if (requestsNothing(want)) {
    return SH_QUEUE_SKIP;
  }
  if ((want.milli_cpu > 0 && after.milli_cpu > before.milli_cpu) ||
      (want.memory > 0 && after.memory > before.memory) ||
      (want.ephemeral_storage > 0 && after.ephemeral_storage > before.ephemeral_storage)) {
    return SH_QUEUE;
  }
  for (uint32_t i = 0; i < want.scalar_count; ++i) {
    sh_id name = want.scalars[i].name;
    if (want.scalars[i].value != 0 && scalarValue(after, name) > scalarValue(before, name)) {
      return SH_QUEUE;
    }
  }
  return SH_QUEUE_SKIP;
}

}  // namespace schedhost::plugins::noderesourcesfit
