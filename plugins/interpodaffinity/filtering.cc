// InterPodAffinity filtering: PreFilter counts, per topology pair, the existing pods' required
// anti-affinity terms that match the incoming pod and the existing pods that match its required
// terms (from the counters kept across cycles); AddPod/RemovePod keep a cycle state's counts up
// to date; Filter checks the node's domains against them. Upstream:
// interpodaffinity/filtering.go.
#include "inter_pod_affinity.h"

#include <schedhost/helpers.hpp>
#include <schedhost/plugin.hpp>

#include <cstdint>
#include <memory>
#include <mutex>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace schedhost::plugins::interpodaffinity {

namespace {

constexpr char kErrReasonAffinity[] = "node(s) didn't match pod affinity rules";
constexpr char kErrReasonAntiAffinity[] = "node(s) didn't match pod anti-affinity rules";
constexpr char kErrReasonExistingAntiAffinity[] =
    "node(s) didn't satisfy existing pods anti-affinity rules";

// Adds `value` for every term of `terms` (another pod's anti-affinity) matching `pod`.
void updateWithAntiAffinityTerms(TermCounts& counts, Terms terms, std::string_view ownerNs,
                                 const sh_pod& pod, const NsLabels& podNsLabels,
                                 const sh_node& node, int64_t value) {
  for (const sh_pod_affinity_term& t : terms) {
    if (termMatches(t, ownerNs, pod, podNsLabels)) {
      counts.update(node, t.topology_key, value);
    }
  }
}

// Adds `value` for every incoming anti-affinity term that `other` matches.
void updateWithIncomingAntiAffinityTerms(TermCounts& counts, Terms terms, std::string_view ownerNs,
                                         const sh_pod& other, NamespaceLabels& namespaces,
                                         const sh_node& node, int64_t value) {
  for (const sh_pod_affinity_term& t : terms) {
    if (incomingTermMatches(t, ownerNs, other, namespaces)) {
      counts.update(node, t.topology_key, value);
    }
  }
}

// Adds `value` for every incoming affinity term when `other` matches all of them.
void updateWithIncomingAffinityTerms(TermCounts& counts, Terms terms, std::string_view ownerNs,
                                     const sh_pod& other, NamespaceLabels& namespaces,
                                     const sh_node& node, int64_t value) {
  if (podMatchesAllIncomingTerms(terms, ownerNs, other, namespaces)) {
    for (const sh_pod_affinity_term& t : terms) {
      counts.update(node, t.topology_key, value);
    }
  }
}

}  // namespace

Status InterPodAffinity::preFilter(Cycle& cycle, const sh_pod& pod, PreFilterResult& /*result*/) {
  std::string parseError = podParseError(pod, host_);
  if (!parseError.empty()) {
    return Status::unresolvable("parsing pod: " + parseError);
  }
  const Terms affinity = requiredAffinityTerms(pod);
  const Terms antiAffinity = requiredAntiAffinityTerms(pod);
  const bool hasTerms = !affinity.empty() || !antiAffinity.empty();
  Snapshot snapshot = cycle.snapshot();
  // Plain variables rather than a structured binding: lambdas below capture them, which
  // C++17 does not allow for bindings.
  const auto antiAffinityNodes = snapshot.nodesWithRequiredAntiAffinityPods();
  const sh_node_info* const* antiNodes = antiAffinityNodes.first;
  const std::size_t antiCount = antiAffinityNodes.second;
  if (!hasTerms && antiCount == 0) {
    return Status::skip();  // nothing can hold the pod back
  }
  const std::string_view ns = view(pod.namespace_);
  NamespaceLabels namespaces(host_.api(), cycle.handle());

  auto state = std::make_unique<PreFilterState>();
  state->namespaceLabels = namespaces.get(ns);
  const IncomingPod in{&pod, ns, state->namespaceLabels};
  const IncomingTerms incoming{affinity, antiAffinity, ns};
  // What is worth keeping across cycles: the incoming terms walk every pod of the cluster;
  // the existing anti-affinity terms only the pods that have some.
  const bool keepIncoming = hasTerms && cacheable(affinity) && cacheable(antiAffinity);
  const bool keepAnti =
      antiCount > 0 &&
      (keepIncoming ||
       worthKeeping(antiNodes, antiCount, snapshot.size(), [](const sh_node_info& ni) {
         return ni.pods_with_required_anti_affinity_count;
       }));

  std::unique_lock<std::mutex> lock;
  const NodeScan* scan = nullptr;
  if (keepIncoming || keepAnti) {
    lock = counters_->lock();
    scan = &counters_->scan(snapshot);
    state->scanVersion = scan->version();
  }

  // Existing pods' required anti-affinity against the incoming pod: only nodes holding such
  // pods contribute.
  auto collectAnti = [&in](const sh_node_info& ni, PairSink& sink) {
    collectExistingAntiAffinity(ni, in, sink);
  };
  if (keepAnti) {
    PairCounter& counter =
        counters_->counter(existingAntiAffinityKey(in), [] { return PairCounter(1); });
    counter.sync(*scan, collectAnti);
    state->existingAntiAffinityCounts =
        TermCounts(counter.totals().totals(0), counter.totals().nonZero(0));
  } else if (antiCount > 0) {
    PairTotals totals = sumDirectly(
        1, antiCount, [&](std::size_t i) -> const sh_node_info& { return *antiNodes[i]; },
        collectAnti);
    state->existingAntiAffinityCounts = TermCounts(totals.totals(0), totals.nonZero(0));
  }

  // The incoming pod's required terms against every existing pod.
  auto collectIncoming = [&](const sh_node_info& ni, PairSink& sink) {
    collectIncomingTerms(ni, incoming, namespaces, sink);
  };
  if (keepIncoming) {
    PairCounter& counter =
        counters_->counter(incomingTermsKey(incoming), [] { return PairCounter(2); });
    counter.sync(*scan, collectIncoming);
    state->affinityCounts = TermCounts(counter.totals().totals(0), counter.totals().nonZero(0));
    state->antiAffinityCounts = TermCounts(counter.totals().totals(1), counter.totals().nonZero(1));
  } else if (hasTerms) {
    PairTotals totals = sumDirectly(
        2, snapshot.size(), [&](std::size_t i) -> const sh_node_info& { return snapshot.at(i); },
        collectIncoming);
    state->affinityCounts = TermCounts(totals.totals(0), totals.nonZero(0));
    state->antiAffinityCounts = TermCounts(totals.totals(1), totals.nonZero(1));
  }
  if (lock.owns_lock()) {
    lock.unlock();
  }

  if (state->existingAntiAffinityCounts.empty() && !hasTerms) {
    return Status::skip();
  }
  state->matchesOwnAffinity = podMatchesAllIncomingTerms(affinity, ns, pod, namespaces);
  cycle.write(preFilterKey_, std::move(state));
  return Status::success();
}

Status InterPodAffinity::addPod(Cycle& cycle, const sh_pod& pod, const sh_pod& other,
                                const sh_node_info& node) {
  return updateWithPod(cycle, pod, other, node, 1);
}

Status InterPodAffinity::removePod(Cycle& cycle, const sh_pod& pod, const sh_pod& other,
                                   const sh_node_info& node) {
  return updateWithPod(cycle, pod, other, node, -1);
}

Status InterPodAffinity::updateWithPod(Cycle& cycle, const sh_pod& pod, const sh_pod& other,
                                       const sh_node_info& nodeInfo, int64_t multiplier) {
  auto* state = cycle.read<PreFilterState>(preFilterKey_);
  if (state == nullptr) {
    return Status::error("reading \"" + kPreFilterStateKey + "\" from cycleState: not found");
  }
  if (nodeInfo.node == nullptr) {
    return Status::success();
  }
  const sh_node& node = *nodeInfo.node;
  const std::string_view ns = view(pod.namespace_);
  NamespaceLabels namespaces(host_.api(), cycle.handle());
  updateWithAntiAffinityTerms(state->existingAntiAffinityCounts,
                              existingRequiredAntiAffinityTerms(other), view(other.namespace_), pod,
                              state->namespaceLabels, node, multiplier);
  updateWithIncomingAffinityTerms(state->affinityCounts, requiredAffinityTerms(pod), ns, other,
                                  namespaces, node, multiplier);
  updateWithIncomingAntiAffinityTerms(state->antiAffinityCounts, requiredAntiAffinityTerms(pod), ns,
                                      other, namespaces, node, multiplier);
  return Status::success();
}

Status InterPodAffinity::filter(Cycle& cycle, const sh_pod& pod, const sh_node_info& nodeInfo) {
  const auto* state = cycle.read<PreFilterState>(preFilterKey_);
  if (state == nullptr) {
    return Status::error("reading \"" + kPreFilterStateKey + "\" from cycleState: not found");
  }
  const sh_node& node = *nodeInfo.node;

  // 1. Required affinity: every topology key present and a matching pod in each domain, unless
  // no pod matches anywhere and the pod matches its own terms (the first pod of a group).
  bool podsExist = true;
  for (const sh_pod_affinity_term& t : requiredAffinityTerms(pod)) {
    const sh_label* label = findLabel(node, t.topology_key);
    if (label == nullptr) {
      return Status::unresolvable(kErrReasonAffinity);
    }
    if (state->affinityCounts.count(topologyPair(t.topology_key, label->value)) <= 0) {
      podsExist = false;
    }
  }
  if (!podsExist && !(state->affinityCounts.empty() && state->matchesOwnAffinity)) {
    return Status::unresolvable(kErrReasonAffinity);
  }

  // 2. Required anti-affinity: no matching pod in the node's domain of any term.
  if (!state->antiAffinityCounts.empty()) {
    for (const sh_pod_affinity_term& t : requiredAntiAffinityTerms(pod)) {
      const sh_label* label = findLabel(node, t.topology_key);
      if (label != nullptr &&
          state->antiAffinityCounts.count(topologyPair(t.topology_key, label->value)) > 0) {
        return Status::unschedulable(kErrReasonAntiAffinity);
      }
    }
  }

  // 3. Existing pods' anti-affinity: no node label pair carries a matching term.
  if (!state->existingAntiAffinityCounts.empty()) {
    for (uint32_t i = 0; i < node.label_count; ++i) {
      const sh_label& l = node.labels[i];
      if (state->existingAntiAffinityCounts.count(topologyPair(l.key, l.value)) > 0) {
        return Status::unschedulable(kErrReasonExistingAntiAffinity);
      }
    }
  }
  return Status::success();
}

}  // namespace schedhost::plugins::interpodaffinity
