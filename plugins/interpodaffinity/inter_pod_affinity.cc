// InterPodAffinity: a pod fits a node when its required pod affinity is satisfied in the node's
// topology domain, its required anti-affinity is not violated there, and no existing pod's
// required anti-affinity forbids it; nodes in domains with pods the pod prefers (or that prefer
// it) score higher.
//
// Extension points: PreFilter (+AddPod/RemovePod), Filter, PreScore, Score, NormalizeScore,
// EnqueueExtensions.
// Upstream: pkg/scheduler/framework/plugins/interpodaffinity/{filtering,scoring,plugin}.go
// (v1.36).
#include "args.h"
#include "terms.h"

#include <schedhost/helpers.hpp>
#include <schedhost/plugin.hpp>

#include <cstdint>
#include <limits>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

namespace schedhost::plugins::interpodaffinity {

constexpr const char* kName = "InterPodAffinity";
constexpr char kErrReasonAffinity[] = "node(s) didn't match pod affinity rules";
constexpr char kErrReasonAntiAffinity[] = "node(s) didn't match pod anti-affinity rules";
constexpr char kErrReasonExistingAntiAffinity[] =
    "node(s) didn't satisfy existing pods anti-affinity rules";

// What PreFilter computes for Filter; AddPod/RemovePod keep it up to date on clones.
struct PreFilterState {
  // Existing pods' required anti-affinity terms matching the incoming pod.
  TopologyCounts existingAntiAffinityCounts;
  // The incoming pod's required affinity terms (all of them) matched by existing pods.
  TopologyCounts affinityCounts;
  // The incoming pod's required anti-affinity terms matched by existing pods.
  TopologyCounts antiAffinityCounts;
  // The labels of the incoming pod's namespace (valid for the cycle).
  NsLabels namespaceLabels;
  // The incoming pod matches all its own required affinity terms (first pod of a group).
  bool matchesOwnAffinity = false;
};

// What PreScore computes for Score: Σ weights per topology pair, and the keys seen.
struct PreScoreState {
  TopologyCounts topologyScore;
  std::vector<sh_id> topologyKeys;
};

class InterPodAffinity : public PreFilterPlugin,
                         public PreFilterExtensions,
                         public FilterPlugin,
                         public PreScorePlugin,
                         public ScorePlugin,
                         public ScoreExtensions,
                         public EnqueueExtensions {
 public:
  static constexpr const char* kDefaultArgsJson =
      R"({"hardPodAffinityWeight":1,"ignorePreferredTermsOfExistingPods":false})";

  InterPodAffinity(Host& host, const Args& args)
      : host_(host),
        args_(parseArgs(args)),
        preFilterKey_(host.intern("PreFilterInterPodAffinity")),
        preScoreKey_(host.intern("PreScoreInterPodAffinity")) {}

  Status preFilter(Cycle& cycle, const sh_pod& pod, PreFilterResult& result);
  Status addPod(Cycle& cycle, const sh_pod& pod, const sh_pod& other, const sh_node_info& node) {
    return updateWithPod(cycle, pod, other, node, 1);
  }
  Status removePod(Cycle& cycle, const sh_pod& pod, const sh_pod& other,
                   const sh_node_info& node) {
    return updateWithPod(cycle, pod, other, node, -1);
  }
  Status filter(Cycle& cycle, const sh_pod& pod, const sh_node_info& nodeInfo);
  Status preScore(Cycle& cycle, const sh_pod& pod, const sh_node_info* const* nodes,
                  std::size_t count);
  Status score(Cycle& cycle, const sh_pod& pod, const sh_node_info& nodeInfo, int64_t& score);
  Status normalizeScore(Cycle& cycle, const sh_pod& pod, sh_node_score* scores, std::size_t count);
  std::vector<EventRegistration> eventsToRegister();
  sh_queueing_hint queueingHint(std::size_t index, const sh_pod& pod,
                                const sh_event_objects& event);

 private:
  Status updateWithPod(Cycle& cycle, const sh_pod& pod, const sh_pod& other,
                       const sh_node_info& nodeInfo, int64_t multiplier);
  NsLabels namespaceLabels(Cycle& cycle, const sh_pod& pod) const {
    NamespaceLabels lookup(host_.api(), cycle.handle());
    return lookup.get(view(pod.namespace_));
  }

  Host host_;
  InterPodAffinityArgs args_;
  sh_id preFilterKey_;
  sh_id preScoreKey_;
};

namespace {

// Adds `value` for every term of `terms` (another pod's anti-affinity) matching `pod`.
void updateWithAntiAffinityTerms(TopologyCounts& counts, Terms terms, std::string_view ownerNs,
                                 const sh_pod& pod, const NsLabels& podNsLabels,
                                 const sh_node& node, int64_t value) {
  for (const sh_pod_affinity_term& t : terms) {
    if (termMatches(t, ownerNs, pod, podNsLabels)) {
      updateCount(counts, node, t.topology_key, value);
    }
  }
}

// Adds `value` for every incoming anti-affinity term that `other` matches.
void updateWithIncomingAntiAffinityTerms(TopologyCounts& counts, Terms terms,
                                         std::string_view ownerNs, const sh_pod& other,
                                         NamespaceLabels& namespaces, const sh_node& node,
                                         int64_t value) {
  for (const sh_pod_affinity_term& t : terms) {
    if (incomingTermMatches(t, ownerNs, other, namespaces)) {
      updateCount(counts, node, t.topology_key, value);
    }
  }
}

// Adds `value` for every incoming affinity term when `other` matches all of them.
void updateWithIncomingAffinityTerms(TopologyCounts& counts, Terms terms,
                                     std::string_view ownerNs, const sh_pod& other,
                                     NamespaceLabels& namespaces, const sh_node& node,
                                     int64_t value) {
  if (podMatchesAllIncomingTerms(terms, ownerNs, other, namespaces)) {
    for (const sh_pod_affinity_term& t : terms) {
      updateCount(counts, node, t.topology_key, value);
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
  const std::string_view ns = view(pod.namespace_);
  NamespaceLabels namespaces(host_.api(), cycle.handle());

  auto state = std::make_unique<PreFilterState>();
  state->namespaceLabels = namespaces.get(ns);
  Snapshot snapshot = cycle.snapshot();

  // Existing pods' required anti-affinity against the incoming pod: only nodes holding such
  // pods.
  auto [antiNodes, antiCount] = snapshot.nodesWithRequiredAntiAffinityPods();
  for (std::size_t i = 0; i < antiCount; ++i) {
    const sh_node_info& ni = *antiNodes[i];
    if (ni.node == nullptr) {
      continue;
    }
    for (uint32_t j = 0; j < ni.pods_with_required_anti_affinity_count; ++j) {
      const sh_pod& existing = *ni.pods_with_required_anti_affinity[j];
      updateWithAntiAffinityTerms(state->existingAntiAffinityCounts,
                                  existingRequiredAntiAffinityTerms(existing),
                                  view(existing.namespace_), pod, state->namespaceLabels,
                                  *ni.node, 1);
    }
  }

  // The incoming pod's required terms against every existing pod.
  if (!affinity.empty() || !antiAffinity.empty()) {
    std::size_t n = snapshot.size();
    for (std::size_t i = 0; i < n; ++i) {
      const sh_node_info& ni = snapshot.at(i);
      if (ni.node == nullptr) {
        continue;
      }
      for (uint32_t j = 0; j < ni.pod_count; ++j) {
        const sh_pod& existing = *ni.pods[j];
        updateWithIncomingAffinityTerms(state->affinityCounts, affinity, ns, existing,
                                        namespaces, *ni.node, 1);
        updateWithIncomingAntiAffinityTerms(state->antiAffinityCounts, antiAffinity, ns,
                                            existing, namespaces, *ni.node, 1);
      }
    }
  }

  if (state->existingAntiAffinityCounts.empty() && affinity.empty() && antiAffinity.empty()) {
    return Status::skip();
  }
  state->matchesOwnAffinity = podMatchesAllIncomingTerms(affinity, ns, pod, namespaces);
  cycle.write(preFilterKey_, std::move(state));
  return Status::success();
}

Status InterPodAffinity::updateWithPod(Cycle& cycle, const sh_pod& pod, const sh_pod& other,
                                       const sh_node_info& nodeInfo, int64_t multiplier) {
  auto* state = cycle.read<PreFilterState>(preFilterKey_);
  if (state == nullptr) {
    return Status::error("reading \"PreFilterInterPodAffinity\" from cycleState: not found");
  }
  if (nodeInfo.node == nullptr) {
    return Status::success();
  }
  const sh_node& node = *nodeInfo.node;
  const std::string_view ns = view(pod.namespace_);
  NamespaceLabels namespaces(host_.api(), cycle.handle());
  updateWithAntiAffinityTerms(state->existingAntiAffinityCounts,
                              existingRequiredAntiAffinityTerms(other), view(other.namespace_),
                              pod, state->namespaceLabels, node, multiplier);
  updateWithIncomingAffinityTerms(state->affinityCounts, requiredAffinityTerms(pod), ns, other,
                                  namespaces, node, multiplier);
  updateWithIncomingAntiAffinityTerms(state->antiAffinityCounts, requiredAntiAffinityTerms(pod),
                                      ns, other, namespaces, node, multiplier);
  return Status::success();
}

Status InterPodAffinity::filter(Cycle& cycle, const sh_pod& pod, const sh_node_info& nodeInfo) {
  const auto* state = cycle.read<PreFilterState>(preFilterKey_);
  if (state == nullptr) {
    return Status::error("reading \"PreFilterInterPodAffinity\" from cycleState: not found");
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
    if (countOf(state->affinityCounts, topologyPair(t.topology_key, label->value)) <= 0) {
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
          countOf(state->antiAffinityCounts, topologyPair(t.topology_key, label->value)) > 0) {
        return Status::unschedulable(kErrReasonAntiAffinity);
      }
    }
  }

  // 3. Existing pods' anti-affinity: no node label pair carries a matching term.
  if (!state->existingAntiAffinityCounts.empty()) {
    for (uint32_t i = 0; i < node.label_count; ++i) {
      const sh_label& l = node.labels[i];
      if (countOf(state->existingAntiAffinityCounts, topologyPair(l.key, l.value)) > 0) {
        return Status::unschedulable(kErrReasonExistingAntiAffinity);
      }
    }
  }
  return Status::success();
}

namespace {

// scoreMap.processTerm: adds weight·multiplier to the existing pod's node's domain of the term.
inline void addScore(PreScoreState& state, sh_id topologyKey, const sh_node& node,
                     int64_t value) {
  const sh_label* label = findLabel(node, topologyKey);
  if (label == nullptr) {
    return;
  }
  auto [it, inserted] = state.topologyScore.try_emplace(topologyPair(topologyKey, label->value), 0);
  it->second += value;
  if (inserted) {
    sh_id key = canonicalId(topologyKey);
    bool seen = false;
    for (sh_id k : state.topologyKeys) {
      seen = seen || k == key;
    }
    if (!seen) {
      state.topologyKeys.push_back(key);
    }
  }
}

}  // namespace

Status InterPodAffinity::preScore(Cycle& cycle, const sh_pod& pod,
                                  const sh_node_info* const* /*nodes*/, std::size_t count) {
  if (count == 0) {
    return Status::skip();
  }
  const WeightedTerms preferredAffinity = preferredAffinityTerms(pod);
  const WeightedTerms preferredAnti = preferredAntiAffinityTerms(pod);
  const bool hasConstraints = !preferredAffinity.empty() || !preferredAnti.empty();
  if (args_.ignorePreferredTermsOfExistingPods && !hasConstraints) {
    return Status::skip();
  }
  std::string parseError = podParseError(pod, host_);
  if (!parseError.empty()) {
    return Status::error("failed to parse pod: " + parseError);
  }

  const std::string_view ns = view(pod.namespace_);
  NamespaceLabels namespaces(host_.api(), cycle.handle());
  const NsLabels podNsLabels = namespaces.get(ns);
  const int64_t hardWeight = args_.hardPodAffinityWeight;
  auto state = std::make_unique<PreScoreState>();

  auto processExistingPod = [&](const sh_pod& existing, const sh_node& node) {
    if (node.label_count == 0) {
      return;
    }
    // The incoming pod's preferred terms matched by the existing pod.
    for (const sh_weighted_pod_affinity_term& w : preferredAffinity) {
      if (incomingTermMatches(w.term, ns, existing, namespaces)) {
        addScore(*state, w.term.topology_key, node, w.weight);
      }
    }
    for (const sh_weighted_pod_affinity_term& w : preferredAnti) {
      if (incomingTermMatches(w.term, ns, existing, namespaces)) {
        addScore(*state, w.term.topology_key, node, -static_cast<int64_t>(w.weight));
      }
    }
    // The existing pod's terms matched by the incoming pod.
    const std::string_view existingNs = view(existing.namespace_);
    if (hardWeight > 0) {
      for (const sh_pod_affinity_term& t : existingRequiredAffinityTerms(existing)) {
        if (termMatches(t, existingNs, pod, podNsLabels)) {
          addScore(*state, t.topology_key, node, hardWeight);
        }
      }
    }
    for (const sh_weighted_pod_affinity_term& w : existingPreferredAffinityTerms(existing)) {
      if (termMatches(w.term, existingNs, pod, podNsLabels)) {
        addScore(*state, w.term.topology_key, node, w.weight);
      }
    }
    for (const sh_weighted_pod_affinity_term& w : existingPreferredAntiAffinityTerms(existing)) {
      if (termMatches(w.term, existingNs, pod, podNsLabels)) {
        addScore(*state, w.term.topology_key, node, -static_cast<int64_t>(w.weight));
      }
    }
  };

  Snapshot snapshot = cycle.snapshot();
  auto processNode = [&](const sh_node_info& ni) {
    if (ni.node == nullptr) {
      return;
    }
    // Without preferred terms of its own, only pods with affinity can affect the pod.
    const sh_pod* const* pods = hasConstraints ? ni.pods : ni.pods_with_affinity;
    uint32_t podCount = hasConstraints ? ni.pod_count : ni.pods_with_affinity_count;
    for (uint32_t j = 0; j < podCount; ++j) {
      processExistingPod(*pods[j], *ni.node);
    }
  };
  if (hasConstraints) {
    std::size_t n = snapshot.size();
    for (std::size_t i = 0; i < n; ++i) {
      processNode(snapshot.at(i));
    }
  } else {
    auto [withAffinity, n] = snapshot.nodesWithAffinityPods();
    for (std::size_t i = 0; i < n; ++i) {
      processNode(*withAffinity[i]);
    }
  }

  if (state->topologyKeys.empty()) {
    return Status::skip();
  }
  cycle.write(preScoreKey_, std::move(state));
  return Status::success();
}

// Σ over the topology keys seen in PreScore of the score of the node's domain.
Status InterPodAffinity::score(Cycle& cycle, const sh_pod& /*pod*/, const sh_node_info& nodeInfo,
                               int64_t& score) {
  const auto* state = cycle.read<PreScoreState>(preScoreKey_);
  if (state == nullptr) {
    return Status::error("failed to read \"PreScoreInterPodAffinity\" from cycleState: not found");
  }
  int64_t sum = 0;
  for (sh_id key : state->topologyKeys) {
    const sh_label* label = findLabel(*nodeInfo.node, key);
    if (label != nullptr) {
      sum += countOf(state->topologyScore, topologyPair(key, label->value));
    }
  }
  score = sum;
  return Status::success();
}

// Min-max to [0, 100]: int64(100·(s − min)/(max − min)), all 0 when max = min.
Status InterPodAffinity::normalizeScore(Cycle& cycle, const sh_pod& /*pod*/,
                                        sh_node_score* scores, std::size_t count) {
  const auto* state = cycle.read<PreScoreState>(preScoreKey_);
  if (state == nullptr) {
    return Status::error("failed to read \"PreScoreInterPodAffinity\" from cycleState: not found");
  }
  if (state->topologyKeys.empty()) {
    return Status::success();
  }
  int64_t minCount = std::numeric_limits<int64_t>::max();
  int64_t maxCount = std::numeric_limits<int64_t>::min();
  for (std::size_t i = 0; i < count; ++i) {
    minCount = std::min(minCount, scores[i].score);
    maxCount = std::max(maxCount, scores[i].score);
  }
  const int64_t diff = maxCount - minCount;
  for (std::size_t i = 0; i < count; ++i) {
    double f = 0;
    if (diff > 0) {
      f = static_cast<double>(SH_MAX_NODE_SCORE) *
          (static_cast<double>(scores[i].score - minCount) / static_cast<double>(diff));
    }
    scores[i].score = static_cast<int64_t>(f);
  }
  return Status::success();
}

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

SCHEDHOST_PLUGIN(schedhost::plugins::interpodaffinity::InterPodAffinity,
                 schedhost::plugins::interpodaffinity::kName, "1.36.0")
