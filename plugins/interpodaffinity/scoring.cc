// InterPodAffinity scoring: PreScore sums, per topology pair, the weights of the preferred terms
// between the incoming pod and the existing pods (and the existing pods' required affinity,
// weighted by hardPodAffinityWeight); Score adds up the node's pairs; NormalizeScore maps them
// min-max onto [0, 100]. Upstream: interpodaffinity/scoring.go.
#include "inter_pod_affinity.h"

#include <schedhost/helpers.hpp>
#include <schedhost/plugin.hpp>

#include <algorithm>
#include <cstdint>
#include <limits>
#include <memory>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace schedhost::plugins::interpodaffinity {

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
  // Plain variables rather than a structured binding: a lambda below captures them, which
  // C++17 does not allow for bindings.
  const auto affinityNodes = snapshot.nodesWithAffinityPods();
  const sh_node_info* const* withAffinity = affinityNodes.first;
  const std::size_t withAffinityCount = affinityNodes.second;
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

  const bool keep = cacheable(preferredAffinity) && cacheable(preferredAnti) &&
                    (hasConstraints || worthKeeping(withAffinity, withAffinityCount,
                                                    snapshot.size(), [](const sh_node_info& ni) {
                                                      return ni.pods_with_affinity_count;
                                                    }));
  auto state = std::make_unique<PreScoreState>();
  if (keep) {
    // The nodes PreFilter read in this cycle are the same nodes: use them again.
    const auto* preFilter = cycle.read<PreFilterState>(preFilterKey_);
    auto lock = counters_->lock();
    const NodeScan& scan =
        counters_->scan(snapshot, preFilter != nullptr ? preFilter->scanVersion : 0);
    PairCounter& counter = counters_->counter(scoresKey(query), [] { return PairCounter(1); });
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
                  [&](std::size_t i) -> const sh_node_info& { return *withAffinity[i]; }, collect);
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
    return Status::error("failed to read \"" + kPreScoreStateKey + "\" from cycleState: not found");
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
Status InterPodAffinity::normalizeScore(Cycle& cycle, const sh_pod& /*pod*/, sh_node_score* scores,
                                        std::size_t count) {
  const auto* state = cycle.read<PreScoreState>(preScoreKey_);
  if (state == nullptr) {
    return Status::error("failed to read \"" + kPreScoreStateKey + "\" from cycleState: not found");
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

}  // namespace schedhost::plugins::interpodaffinity
