// PodTopologySpread: spreads matching pods evenly across topology domains. DoNotSchedule
// constraints filter nodes whose domain would exceed maxSkew; ScheduleAnyway constraints (and
// the System default constraints of pods that have none) score nodes with fewer matching pods
// higher.
//
// Extension points: PreFilter (with AddPod/RemovePod), Filter, PreScore, Score, NormalizeScore,
// EnqueueExtensions.
// Upstream: pkg/scheduler/framework/plugins/podtopologyspread/{common,filtering,scoring,
// plugin}.go (v1.36).
//
//   pod_topology_spread.cc  construction, the constraints of a pod, registration (plugin.go,
//                           common.go)
//   filtering.cc            PreFilter, AddPod/RemovePod, Filter (filtering.go)
//   scoring.cc              PreScore, Score, NormalizeScore (scoring.go)
//   events.cc               EnqueueExtensions and queueing hints (plugin.go)
#ifndef SCHEDHOST_PLUGINS_PODTOPOLOGYSPREAD_POD_TOPOLOGY_SPREAD_H
#define SCHEDHOST_PLUGINS_PODTOPOLOGYSPREAD_POD_TOPOLOGY_SPREAD_H

#include "args.h"
#include "constraint.h"
#include "selector.h"
#include "spread_counts.h"

#include <schedhost/helpers.hpp>
#include <schedhost/plugin.hpp>

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <unordered_map>
#include <unordered_set>
#include <vector>

namespace schedhost::plugins::podtopologyspread {

constexpr const char* kName = "PodTopologySpread";
// Cycle-state keys, as upstream's preFilterStateKey = "PreFilter" + Name.
inline const std::string kPreFilterStateKey = std::string("PreFilter") + kName;
inline const std::string kPreScoreStateKey = std::string("PreScore") + kName;

// The value of `key` on the node, "" when absent (Go's map lookup), canonical.
inline sh_id labelValue(const sh_node& node, sh_id key) noexcept {
  const sh_label* l = findLabel(node, key);
  return l == nullptr ? SH_ID_NONE : canonicalId(l->value);
}

inline bool hasLabel(const sh_node& node, sh_id key) noexcept {
  return findLabel(node, key) != nullptr;
}

// nodeLabelsMatchSpreadConstraints: the node has every constraint's topology key.
inline bool nodeHasAllKeys(const sh_node& node, const std::vector<Constraint>& cs) noexcept {
  for (const Constraint& c : cs) {
    if (!hasLabel(node, c.topologyKey)) {
      return false;
    }
  }
  return true;
}

inline std::string_view ns(const sh_pod& pod) noexcept { return view(pod.namespace_); }

// preFilterState. Copyable: the host clones it for preemption and nominated pods; the
// constraints are shared.
struct PreFilterState {
  Constraints constraints;
  std::vector<ConstraintCounts> counts;
  std::vector<uint8_t> selfMatch;  // the pod matches constraint i's selector
  uint64_t scanVersion = 0;        // the node scan read, for PreScore to use again

  int64_t minMatch(std::size_t i, int32_t minDomains) const noexcept {
    int64_t m = counts[i].paths().p[0].num;
    if (counts[i].domains() < static_cast<std::size_t>(minDomains)) {
      m = 0;
    }
    return m;
  }
};

// preScoreState. Shared, never changed after PreScore.
struct PreScoreState {
  Constraints constraints;
  std::unordered_set<sh_id> ignoredNodes;  // node name ids
  std::vector<std::unordered_map<sh_id, int64_t>> counts;
  std::vector<double> weights;
};
struct PreScoreHandle {
  std::shared_ptr<const PreScoreState> state;
};

class PodTopologySpread : public PreFilterPlugin,
                          public PreFilterExtensions,
                          public FilterPlugin,
                          public PreScorePlugin,
                          public ScorePlugin,
                          public ScoreExtensions,
                          public EnqueueExtensions {
 public:
  static constexpr const char* kDefaultArgsJson = R"({"defaultingType":"System"})";

  PodTopologySpread(Host& host, const Args& args);

  Status preFilter(Cycle& cycle, const sh_pod& pod, PreFilterResult& result);
  Status addPod(Cycle& cycle, const sh_pod& pod, const sh_pod& other, const sh_node_info& ni);
  Status removePod(Cycle& cycle, const sh_pod& pod, const sh_pod& other, const sh_node_info& ni);
  Status filter(Cycle& cycle, const sh_pod& pod, const sh_node_info& ni);
  Status preScore(Cycle& cycle, const sh_pod& pod, const sh_node_info* const* filtered,
                  std::size_t filteredCount);
  Status score(Cycle& cycle, const sh_pod& pod, const sh_node_info& ni, int64_t& out);
  Status normalizeScore(Cycle& cycle, const sh_pod& pod, sh_node_score* scores, std::size_t count);
  std::vector<EventRegistration> eventsToRegister();
  sh_queueing_hint queueingHint(std::size_t index, const sh_pod& pod,
                                const sh_event_objects& event);

 private:
  ConstraintCounts countIncluded(const NodeScan& scan, const MatchCounter& counter,
                                 const Constraint& c, const sh_pod& pod) const;
  bool matchPolicies(const Constraint& c, const sh_pod& pod, const sh_node& node) const noexcept;
  Constraints podConstraints(const sh_pod& pod, int32_t action, std::string& error) const;
  Constraints defaultConstraints(const Cycle* cycle, const sh_pod& pod, int32_t action,
                                 bool& unknown) const;
  Constraints getConstraints(const Cycle* cycle, const sh_pod& pod, int32_t action,
                             std::string& error) const;
  Status updateWithPod(Cycle& cycle, const sh_pod& pod, const sh_pod& other, const sh_node_info& ni,
                       int64_t delta);
  Constraints hintConstraints(const sh_pod& pod, bool& queue) const;
  sh_queueing_hint podHint(const sh_pod& pod, const sh_event_objects& event) const;
  sh_queueing_hint nodeHint(const sh_pod& pod, const sh_event_objects& event) const;

  Host host_;
  PodTopologySpreadArgs args_;
  sh_id metadataName_;
  sh_id preFilterKey_;
  sh_id preScoreKey_;
  // Matching pods per node and domain, kept across cycles for PreFilter and PreScore.
  std::unique_ptr<SpreadCounts> spreadCounts_ = std::make_unique<SpreadCounts>();
};

}  // namespace schedhost::plugins::podtopologyspread

#endif  // SCHEDHOST_PLUGINS_PODTOPOLOGYSPREAD_POD_TOPOLOGY_SPREAD_H
