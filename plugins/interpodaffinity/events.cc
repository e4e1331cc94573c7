// InterPodAffinity cluster events and queueing hints: which pod and node changes can make a pod
// this plugin rejected fit. Upstream: interpodaffinity/plugin.go (isSchedulableAfterPodChange,
// isSchedulableAfterNodeChange).
#include "inter_pod_affinity.h"

#include <schedhost/helpers.hpp>
#include <schedhost/plugin.hpp>

#include <string_view>
#include <vector>

namespace schedhost::plugins::interpodaffinity {

enum : std::size_t { kPodEvents = 0, kNodeEvents = 1 };

std::vector<EventRegistration> InterPodAffinity::eventsToRegister() {
  return {
      {SH_RESOURCE_POD, SH_ACTION_ADD | SH_ACTION_UPDATE_POD_LABEL | SH_ACTION_DELETE, true},
      {SH_RESOURCE_NODE, SH_ACTION_ADD | SH_ACTION_UPDATE_NODE_LABEL, true},
  };
}

// isSchedulableAfterPodChange / isSchedulableAfterNodeChange. Terms are matched as upstream's
// hints do: with the pod's own terms and no namespace labels.
sh_queueing_hint InterPodAffinity::queueingHint(std::size_t index, const sh_pod& pod,
                                                const sh_event_objects& event) {
  if (!podParseError(pod, host_).empty()) {
    return SH_QUEUE;
  }
  const Terms terms = requiredAffinityTerms(pod);
  const Terms antiTerms = requiredAntiAffinityTerms(pod);
  const std::string_view ns = view(pod.namespace_);
  const NsLabels none;

  if (index == kNodeEvents) {
    const sh_node* node = event.new_node;
    if (node == nullptr) {
      return SH_QUEUE;
    }
    for (const sh_pod_affinity_term& t : terms) {
      if (findLabel(*node, t.topology_key) != nullptr) {
        return SH_QUEUE;
      }
    }
    for (const sh_pod_affinity_term& t : antiTerms) {
      if (findLabel(*node, t.topology_key) != nullptr) {
        return SH_QUEUE;
      }
    }
    return SH_QUEUE_SKIP;
  }

  const sh_pod* original = event.old_pod;
  const sh_pod* modified = event.new_pod;
  if ((modified != nullptr && modified->node_name.len == 0) ||
      (original != nullptr && original->node_name.len == 0)) {
    return SH_QUEUE_SKIP;  // an unscheduled pod changes nothing
  }
  if (modified != nullptr && original != nullptr) {
    if (!podMatchesAllTerms(terms, ns, *original, none) &&
        podMatchesAllTerms(terms, ns, *modified, none)) {
      return SH_QUEUE;
    }
    if (podMatchesAllTerms(antiTerms, ns, *original, none) &&
        !podMatchesAllTerms(antiTerms, ns, *modified, none)) {
      return SH_QUEUE;
    }
    return SH_QUEUE_SKIP;
  }
  if (modified != nullptr) {
    return podMatchesAllTerms(terms, ns, *modified, none) ? SH_QUEUE : SH_QUEUE_SKIP;
  }
  if (original == nullptr) {
    return SH_QUEUE;
  }
  return podMatchesAllTerms(antiTerms, ns, *original, none) ? SH_QUEUE : SH_QUEUE_SKIP;
}

}  // namespace schedhost::plugins::interpodaffinity
