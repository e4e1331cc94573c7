// PodTopologySpread cluster events and queueing hints: which pod and node changes can make a
// pod this plugin rejected fit. Upstream: podtopologyspread/plugin.go
// (isSchedulableAfterPodChange, isSchedulableAfterNodeChange).
#include "pod_topology_spread.h"

#include <schedhost/helpers.hpp>
#include <schedhost/plugin.hpp>

#include <string>
#include <vector>

namespace schedhost::plugins::podtopologyspread {

namespace {

bool sameLabels(const sh_label* a, uint32_t na, const sh_label* b, uint32_t nb) noexcept {
  if (na != nb) {
    return false;
  }
  for (uint32_t i = 0; i < na; ++i) {
    if (a[i].key != b[i].key || !sameId(a[i].value, b[i].value)) {
      return false;
    }
  }
  return true;
}

bool sameTolerations(const sh_pod& a, const sh_pod& b) noexcept {
  if (a.toleration_count != b.toleration_count) {
    return false;
  }
  for (uint32_t i = 0; i < a.toleration_count; ++i) {
    const sh_toleration& x = a.tolerations[i];
    const sh_toleration& y = b.tolerations[i];
    if (!sameId(x.key, y.key) || !sameId(x.value, y.value) || x.op != y.op ||
        x.effect != y.effect || x.toleration_seconds != y.toleration_seconds) {
      return false;
    }
  }
  return true;
}

bool sameTaints(const sh_node& a, const sh_node& b) noexcept {
  if (a.taint_count != b.taint_count) {
    return false;
  }
  for (uint32_t i = 0; i < a.taint_count; ++i) {
    const sh_taint& x = a.taints[i];
    const sh_taint& y = b.taints[i];
    if (!sameId(x.key, y.key) || !sameId(x.value, y.value) || x.effect != y.effect) {
      return false;
    }
  }
  return true;
}

}  // namespace

std::vector<EventRegistration> PodTopologySpread::eventsToRegister() {
  return {
      {SH_RESOURCE_POD,
       SH_ACTION_ADD | SH_ACTION_UPDATE_POD_LABEL | SH_ACTION_UPDATE_POD_TOLERATION |
           SH_ACTION_DELETE,
       true},
      {SH_RESOURCE_NODE,
       SH_ACTION_ADD | SH_ACTION_DELETE | SH_ACTION_UPDATE_NODE_LABEL | SH_ACTION_UPDATE_NODE_TAINT,
       true}};
}

sh_queueing_hint PodTopologySpread::queueingHint(std::size_t index, const sh_pod& pod,
                                                 const sh_event_objects& event) {
  return index == 0 ? podHint(pod, event) : nodeHint(pod, event);
}

// The hint's constraints: nullptr when they cannot be known without a cycle (List
// defaulting with DoNotSchedule default constraints), which answers Queue.
Constraints PodTopologySpread::hintConstraints(const sh_pod& pod, bool& queue) const {
  std::string error;
  if (pod.topology_spread_constraint_count > 0) {
    Constraints cs = podConstraints(pod, SH_DO_NOT_SCHEDULE, error);
    queue = cs == nullptr;
    return cs;
  }
  bool unknown = false;
  Constraints cs = defaultConstraints(nullptr, pod, SH_DO_NOT_SCHEDULE, unknown);
  queue = unknown;
  return cs;
}

// isSchedulableAfterPodChange.
sh_queueing_hint PodTopologySpread::podHint(const sh_pod& pod,
                                            const sh_event_objects& event) const {
  const sh_pod* before = event.old_pod;
  const sh_pod* after = event.new_pod;
  auto involved = [&](const sh_pod& p) {
    return view(p.uid) == view(pod.uid) || (p.node_name.len != 0 && ns(p) == ns(pod));
  };
  if ((after != nullptr && !involved(*after)) || (before != nullptr && !involved(*before))) {
    return SH_QUEUE_SKIP;
  }
  bool queue = false;
  Constraints cs = hintConstraints(pod, queue);
  if (queue || cs == nullptr) {
    return SH_QUEUE;
  }
  if (before != nullptr && after != nullptr) {
    if (view(pod.uid) == view(after->uid) && !sameTolerations(*before, *after)) {
      for (const Constraint& c : *cs) {
        if (c.honorTaints) {
          return SH_QUEUE;
        }
      }
    }
    if (sameLabels(before->labels, before->label_count, after->labels, after->label_count)) {
      return SH_QUEUE_SKIP;
    }
    for (const Constraint& c : *cs) {
      if (c.selector->matches(*before) != c.selector->matches(*after)) {
        return SH_QUEUE;
      }
    }
    return SH_QUEUE_SKIP;
  }
  const sh_pod* changed = after != nullptr ? after : before;
  if (changed == nullptr) {
    return SH_QUEUE;
  }
  for (const Constraint& c : *cs) {
    if (c.selector->matches(*changed)) {
      return SH_QUEUE;
    }
  }
  return SH_QUEUE_SKIP;
}

// isSchedulableAfterNodeChange.
sh_queueing_hint PodTopologySpread::nodeHint(const sh_pod& pod,
                                             const sh_event_objects& event) const {
  bool queue = false;
  Constraints cs = hintConstraints(pod, queue);
  if (queue || cs == nullptr) {
    return SH_QUEUE;
  }
  const sh_node* before = event.old_node;
  const sh_node* after = event.new_node;
  bool beforeMatching = before != nullptr && nodeHasAllKeys(*before, *cs);
  bool afterMatching = after != nullptr && nodeHasAllKeys(*after, *cs);
  if (before != nullptr && after != nullptr) {
    if (beforeMatching != afterMatching) {
      return SH_QUEUE;
    }
    if (afterMatching) {
      for (const Constraint& c : *cs) {
        if (labelValue(*before, c.topologyKey) != labelValue(*after, c.topologyKey)) {
          return SH_QUEUE;
        }
      }
      if (!sameTaints(*before, *after)) {
        return SH_QUEUE;
      }
    }
    return SH_QUEUE_SKIP;
  }
  if (after != nullptr) {
    return afterMatching ? SH_QUEUE : SH_QUEUE_SKIP;
  }
  return beforeMatching ? SH_QUEUE : SH_QUEUE_SKIP;
}

}  // namespace schedhost::plugins::podtopologyspread
