// PodTopologySpread scoring: PreScore sums the matching pods per domain of the ScheduleAnyway
// constraints over the filtered nodes, Score weighs each constraint by the log of its domain
// count, NormalizeScore maps fewer matching pods to a higher score. Upstream:
// podtopologyspread/scoring.go.
#include "pod_topology_spread.h"

#include <schedhost/helpers.hpp>
#include <schedhost/plugin.hpp>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <memory>
#include <unordered_map>
#include <utility>
#include <vector>

namespace schedhost::plugins::podtopologyspread {

Status PodTopologySpread::preScore(Cycle& cycle, const sh_pod& pod,
                                   const sh_node_info* const* filtered, std::size_t filteredCount) {
  Snapshot snap = cycle.snapshot();
  if (snap.size() == 0) {
    return Status::skip();
  }
  // Only non-System spreading requires nodes to have every topology key, so nodes
  // without a zone still get hostname spreading.
  bool requireAll = pod.topology_spread_constraint_count > 0 || !args_.systemDefaulted;
  std::string error;
  Constraints cs = getConstraints(&cycle, pod, SH_SCHEDULE_ANYWAY, error);
  if (!error.empty()) {
    return Status::error("calculating preScoreState: " + error);
  }
  if (cs == nullptr || cs->empty()) {
    return Status::skip();
  }
  auto state = std::make_shared<PreScoreState>();
  state->constraints = cs;
  state->counts.resize(cs->size());
  std::vector<int64_t> topoSize(cs->size(), 0);
  for (std::size_t n = 0; n < filteredCount; ++n) {
    const sh_node& node = *filtered[n]->node;
    if (requireAll && !nodeHasAllKeys(node, *cs)) {
      state->ignoredNodes.insert(node.name_id);
      continue;
    }
    for (std::size_t i = 0; i < cs->size(); ++i) {
      const Constraint& c = (*cs)[i];
      if (c.topologyKey == SH_ID_HOSTNAME) {
        continue;  // per-node counts are computed in Score
      }
      if (state->counts[i].emplace(labelValue(node, c.topologyKey), 0).second) {
        ++topoSize[i];
      }
    }
  }
  state->weights.resize(cs->size());
  for (std::size_t i = 0; i < cs->size(); ++i) {
    int64_t size = topoSize[i];
    if ((*cs)[i].topologyKey == SH_ID_HOSTNAME) {
      size = static_cast<int64_t>(filteredCount) - static_cast<int64_t>(state->ignoredNodes.size());
    }
    state->weights[i] = std::log(static_cast<double>(size + 2));
  }
  // The matching pods of every node that passes the policies, summed per domain of a
  // filtered node; kept across cycles by the MatchCounters.
  const std::vector<sh_id> keys = requireAll ? topologyKeysOf(*cs) : std::vector<sh_id>();
  const PreFilterState* preFilter = cycle.read<PreFilterState>(preFilterKey_);
  auto lock = spreadCounts_->lock();
  const NodeScan* scan = nullptr;
  for (std::size_t i = 0; i < cs->size(); ++i) {
    const Constraint& c = (*cs)[i];
    std::unordered_map<sh_id, int64_t>& domainCounts = state->counts[i];
    if (domainCounts.empty()) {
      continue;  // hostname (counted in Score), or no domain among the filtered nodes
    }
    if (scan == nullptr) {
      // The nodes PreFilter read in this cycle are the same nodes: use them again.
      scan = &spreadCounts_->scan(snap, preFilter != nullptr ? preFilter->scanVersion : 0);
    }
    MatchCounter& counter =
        syncedCounter(*spreadCounts_, {c.selector.get(), ns(pod), c.topologyKey, &keys});
    if (includesEveryNode(c, pod)) {
      std::shared_ptr<const DomainMap> domains = counter.domains();
      for (auto& [value, cnt] : domainCounts) {
        if (const Domain* d = domains->find(value); d != nullptr) {
          cnt += d->count;
        }
      }
      continue;
    }
    for (std::size_t n = 0; n < scan->size(); ++n) {
      const NodeCount& nc = counter.node(n);
      if (!nc.eligible || !matchPolicies(c, pod, *scan->at(n).node)) {
        continue;
      }
      auto it = domainCounts.find(nc.domain);
      if (it != domainCounts.end()) {
        it->second += nc.count;
      }
    }
  }
  lock.unlock();
  cycle.write(preScoreKey_, std::make_unique<PreScoreHandle>(PreScoreHandle{std::move(state)}));
  return Status::success();
}

Status PodTopologySpread::score(Cycle& cycle, const sh_pod& pod, const sh_node_info& ni,
                                int64_t& out) {
  const PreScoreHandle* h = cycle.read<PreScoreHandle>(preScoreKey_);
  if (h == nullptr || h->state == nullptr) {
    return Status::error("error reading \"" + kPreScoreStateKey + "\" from cycleState: not found");
  }
  const PreScoreState& s = *h->state;
  const sh_node& node = *ni.node;
  out = 0;
  if (s.ignoredNodes.count(node.name_id) != 0) {
    return Status::success();
  }
  double score = 0;
  const std::vector<Constraint>& cs = *s.constraints;
  for (std::size_t i = 0; i < cs.size(); ++i) {
    const Constraint& c = cs[i];
    const sh_label* label = findLabel(node, c.topologyKey);
    if (label == nullptr) {
      continue;
    }
    int64_t cnt = 0;
    if (c.topologyKey == SH_ID_HOSTNAME) {
      cnt = countMatching(ni, *c.selector, ns(pod));
    } else {
      auto it = s.counts[i].find(canonicalId(label->value));
      cnt = it == s.counts[i].end() ? 0 : it->second;
    }
    score += static_cast<double>(cnt) * s.weights[i] + static_cast<double>(c.maxSkew - 1);
  }
  out = static_cast<int64_t>(std::round(score));
  return Status::success();
}

// Ignored nodes get 0; the others 100·(max+min−s)/max, or 100 when max is 0.
Status PodTopologySpread::normalizeScore(Cycle& cycle, const sh_pod& /*pod*/, sh_node_score* scores,
                                         std::size_t count) {
  const PreScoreHandle* h = cycle.read<PreScoreHandle>(preScoreKey_);
  if (h == nullptr || h->state == nullptr) {
    return Status::error("error reading \"" + kPreScoreStateKey + "\" from cycleState: not found");
  }
  const PreScoreState& s = *h->state;
  constexpr int64_t kInvalid = -1;
  int64_t minScore = INT64_MAX;
  int64_t maxScore = 0;
  for (std::size_t i = 0; i < count; ++i) {
    if (s.ignoredNodes.count(scores[i].node->node->name_id) != 0) {
      scores[i].score = kInvalid;
      continue;
    }
    minScore = std::min(minScore, scores[i].score);
    maxScore = std::max(maxScore, scores[i].score);
  }
  for (std::size_t i = 0; i < count; ++i) {
    if (scores[i].score == kInvalid) {
      scores[i].score = 0;
    } else if (maxScore == 0) {
      scores[i].score = SH_MAX_NODE_SCORE;
    } else {
      scores[i].score = SH_MAX_NODE_SCORE * (maxScore + minScore - scores[i].score) / maxScore;
    }
  }
  return Status::success();
}

}  // namespace schedhost::plugins::podtopologyspread
