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
#include "node_contributions.h"
#include "pair_counts.h"
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

// One topologyToMatchedTermCount of a PreFilter state: totals from the counter cache, shared
// read-only, until AddPod or RemovePod writes; the state then works on a copy of its own. A
// pair whose total is 0 counts as absent (upstream deletes such entries).
class TermCounts {
 public:
  TermCounts() = default;
  TermCounts(std::shared_ptr<const PairMap> shared, std::size_t nonZero)
      : shared_(std::move(shared)), nonZero_(nonZero) {}
  TermCounts(const TermCounts& o)
      : shared_(o.shared_),
        own_(o.own_ != nullptr ? std::make_unique<PairMap>(*o.own_) : nullptr),
        nonZero_(o.nonZero_) {}
  TermCounts& operator=(const TermCounts& o) {
    TermCounts copy(o);
    std::swap(shared_, copy.shared_);
    std::swap(own_, copy.own_);
    nonZero_ = copy.nonZero_;
    return *this;
  }
  TermCounts(TermCounts&&) noexcept = default;
  TermCounts& operator=(TermCounts&&) noexcept = default;

  int64_t count(uint64_t pair) const noexcept {
    const PairMap* m = own_ != nullptr ? own_.get() : shared_.get();
    const PairTotal* t = m == nullptr ? nullptr : m->find(pair);
    return t == nullptr ? 0 : t->sum;
  }
  bool empty() const noexcept { return nonZero_ == 0; }

  // topologyToMatchedTermCount.update: adds `value` to (key, the node's value of key) when the
  // node has the label.
  void update(const sh_node& node, sh_id key, int64_t value) {
    const sh_label* label = findLabel(node, key);
    if (label == nullptr) {
      return;
    }
    if (own_ == nullptr) {
      own_ = shared_ != nullptr ? std::make_unique<PairMap>(*shared_) : std::make_unique<PairMap>();
      shared_.reset();
    }
    PairTotal& t = (*own_)[topologyPair(key, label->value)];
    const bool wasNonZero = t.sum != 0;
    t.sum += value;
    if (t.sum != 0 && !wasNonZero) {
      ++nonZero_;
    } else if (t.sum == 0 && wasNonZero) {
      --nonZero_;
    }
  }

 private:
  std::shared_ptr<const PairMap> shared_;
  std::unique_ptr<PairMap> own_;
  std::size_t nonZero_ = 0;
};

// What PreFilter computes for Filter; AddPod/RemovePod keep it up to date on clones.
struct PreFilterState {
  // Existing pods' required anti-affinity terms matching the incoming pod.
  TermCounts existingAntiAffinityCounts;
  // The incoming pod's required affinity terms (all of them) matched by existing pods.
  TermCounts affinityCounts;
  // The incoming pod's required anti-affinity terms matched by existing pods.
  TermCounts antiAffinityCounts;
  // The labels of the incoming pod's namespace (valid for the cycle).
  NsLabels namespaceLabels;
  // The incoming pod matches all its own required affinity terms (first pod of a group).
  bool matchesOwnAffinity = false;
  // The version of the node scan PreFilter read (0: none), for PreScore to use again.
  uint64_t scanVersion = 0;
};

// What PreScore computes for Score: Σ weights per topology pair (shared, never changed), and
// the topology keys of the pairs that exist.
struct PreScoreState {
  std::shared_ptr<const PairMap> topologyScore;
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
  // Per-node contributions kept across cycles for PreFilter and PreScore.
  std::unique_ptr<CounterCache> counters_ = std::make_unique<CounterCache>();
};

namespace {

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
void updateWithIncomingAntiAffinityTerms(TermCounts& counts, Terms terms,
                                         std::string_view ownerNs, const sh_pod& other,
                                         NamespaceLabels& namespaces, const sh_node& node,
                                         int64_t value) {
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

// Whether walking the pods `count(node)` of `nodes` each cycle costs more than checking all
// `snapshotSize` nodes for changes: a few pods are cheaper to walk than thousands of nodes to
// check. Stops counting as soon as the answer is yes.
template <typename Count>
bool worthKeeping(const sh_node_info* const* nodes, std::size_t n, std::size_t snapshotSize,
                  Count&& count) noexcept {
  std::size_t pods = 0;
  for (std::size_t i = 0; i < n; ++i) {
    pods += count(*nodes[i]);
    if (pods * 4 > snapshotSize) {
      return true;
    }
  }
  return false;
}

// The totals over nodeAt(0..count) computed afresh, for queries not kept across cycles.
template <typename NodeAt, typename Collect>
PairTotals sumDirectly(std::size_t channels, std::size_t count, NodeAt&& nodeAt,
                       Collect&& collect) {
  PairTotals totals(channels);
  std::vector<PairDelta> deltas;
  for (std::size_t i = 0; i < count; ++i) {
    const sh_node_info& ni = nodeAt(i);
    if (ni.node == nullptr) {
      continue;
    }
    deltas.clear();
    PairSink sink(deltas);
    collect(ni, sink);
    totals.apply(deltas, 1);
  }
  return totals;
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
  auto [antiNodes, antiCount] = snapshot.nodesWithRequiredAntiAffinityPods();
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
    PairCounter& counter = counters_->counter(existingAntiAffinityKey(in), 1);
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
    PairCounter& counter = counters_->counter(incomingTermsKey(incoming), 2);
    counter.sync(*scan, collectIncoming);
    state->affinityCounts = TermCounts(counter.totals().totals(0), counter.totals().nonZero(0));
    state->antiAffinityCounts =
        TermCounts(counter.totals().totals(1), counter.totals().nonZero(1));
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

  // With preferred terms of its own every pod of the cluster counts, else only pods with
  // affinity.
  Snapshot snapshot = cycle.snapshot();
  auto [withAffinity, withAffinityCount] = snapshot.nodesWithAffinityPods();
  if (!hasConstraints && withAffinityCount == 0) {
    return Status::skip();  // nothing to accumulate
  }

  const std::string_view ns = view(pod.namespace_);
  NamespaceLabels namespaces(host_.api(), cycle.handle());
  const ScoreQuery query{{&pod, ns, namespaces.get(ns)},
                         preferredAffinity,
                         preferredAnti,
                         hasConstraints,
                         args_.hardPodAffinityWeight};
  auto collect = [&](const sh_node_info& ni, PairSink& sink) {
    collectScores(ni, query, namespaces, sink);
  };

  const bool keep =
      cacheable(preferredAffinity) && cacheable(preferredAnti) &&
      (hasConstraints ||
       worthKeeping(withAffinity, withAffinityCount, snapshot.size(),
                    [](const sh_node_info& ni) { return ni.pods_with_affinity_count; }));
  auto state = std::make_unique<PreScoreState>();
  if (keep) {
    // The nodes PreFilter read in this cycle are the same nodes: use them again.
    const auto* preFilter = cycle.read<PreFilterState>(preFilterKey_);
    auto lock = counters_->lock();
    const NodeScan& scan =
        counters_->scan(snapshot, preFilter != nullptr ? preFilter->scanVersion : 0);
    PairCounter& counter = counters_->counter(scoresKey(query), 1);
    counter.sync(scan, collect);
    state->topologyScore = counter.totals().totals(0);
    state->topologyKeys = counter.totals().touchedKeys(0);
  } else {
    PairTotals totals =
        hasConstraints
            ? sumDirectly(
                  1, snapshot.size(),
                  [&](std::size_t i) -> const sh_node_info& { return snapshot.at(i); }, collect)
            : sumDirectly(
                  1, withAffinityCount,
                  [&](std::size_t i) -> const sh_node_info& { return *withAffinity[i]; },
                  collect);
    state->topologyScore = totals.totals(0);
    state->topologyKeys = totals.touchedKeys(0);
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
      const PairTotal* t = state->topologyScore->find(topologyPair(key, label->value));
      sum += t == nullptr ? 0 : t->sum;
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
