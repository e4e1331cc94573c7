// PodTopologySpread: spreads matching pods evenly across topology domains. DoNotSchedule
// constraints filter nodes whose domain would exceed maxSkew; ScheduleAnyway constraints (and
// the System default constraints of pods that have none) score nodes with fewer matching pods
// higher.
//
// Extension points: PreFilter (with AddPod/RemovePod), Filter, PreScore, Score, NormalizeScore,
// EnqueueExtensions.
// Upstream: pkg/scheduler/framework/plugins/podtopologyspread/{common,filtering,scoring,
// plugin}.go (v1.36).
#include "args.h"
#include "constraint.h"
#include "selector.h"
#include "spread_counts.h"

#include <schedhost/helpers.hpp>
#include <schedhost/plugin.hpp>

#include <cmath>
#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <unordered_map>
#include <unordered_set>
#include <utility>
#include <vector>

namespace schedhost::plugins::podtopologyspread {

constexpr const char* kName = "PodTopologySpread";
constexpr char kErrReasonConstraintsNotMatch[] =
    "node(s) didn't match pod topology spread constraints";
constexpr char kErrReasonNodeLabelNotMatch[] =
    "node(s) didn't match pod topology spread constraints (missing required label)";

namespace {

// The value of `key` on the node, "" when absent (Go's map lookup), canonical.
sh_id labelValue(const sh_node& node, sh_id key) noexcept {
  const sh_label* l = findLabel(node, key);
  return l == nullptr ? SH_ID_NONE : canonicalId(l->value);
}

bool hasLabel(const sh_node& node, sh_id key) noexcept { return findLabel(node, key) != nullptr; }

// nodeLabelsMatchSpreadConstraints: the node has every constraint's topology key.
bool nodeHasAllKeys(const sh_node& node, const std::vector<Constraint>& cs) noexcept {
  for (const Constraint& c : cs) {
    if (!hasLabel(node, c.topologyKey)) {
      return false;
    }
  }
  return true;
}

std::string_view ns(const sh_pod& pod) noexcept { return view(pod.namespace_); }

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

class PodTopologySpread : public PreFilterPlugin,
                          public PreFilterExtensions,
                          public FilterPlugin,
                          public PreScorePlugin,
                          public ScorePlugin,
                          public ScoreExtensions,
                          public EnqueueExtensions {
 public:
  static constexpr const char* kDefaultArgsJson = R"({"defaultingType":"System"})";

  PodTopologySpread(Host& host, const Args& args)
      : host_(host),
        args_(parseArgs(host, args)),
        metadataName_(host.intern("metadata.name")),
        preFilterKey_(host.intern("PreFilterPodTopologySpread")),
        preScoreKey_(host.intern("PreScorePodTopologySpread")) {}

  Status preFilter(Cycle& cycle, const sh_pod& pod, PreFilterResult& /*result*/) {
    std::string error;
    Constraints cs = getConstraints(&cycle, pod, SH_DO_NOT_SCHEDULE, error);
    if (!error.empty()) {
      return Status::error("get constraints from pod: " + error);
    }
    if (cs == nullptr || cs->empty()) {
      return Status::skip();
    }
    auto state = std::make_unique<PreFilterState>();
    state->constraints = cs;
    state->counts.reserve(cs->size());
    state->selfMatch.reserve(cs->size());
    const std::vector<sh_id> keys = topologyKeysOf(*cs);
    {
      auto lock = spreadCounts_->lock();
      const NodeScan& scan = spreadCounts_->scan(cycle.snapshot());
      state->scanVersion = scan.version();
      for (const Constraint& c : *cs) {
        MatchCounter& counter =
            spreadCounts_->counter({c.selector.get(), ns(pod), c.topologyKey, &keys});
        if (includesEveryNode(c, pod)) {
          state->counts.emplace_back(counter.domains(), counter.domainCount(), counter.paths());
        } else {
          state->counts.push_back(countIncluded(scan, counter, c, pod));
        }
        state->selfMatch.push_back(c.selector->matches(pod) ? 1 : 0);
      }
    }
    cycle.write(preFilterKey_, std::move(state));
    return Status::success();
  }

  Status addPod(Cycle& cycle, const sh_pod& pod, const sh_pod& other, const sh_node_info& ni) {
    return updateWithPod(cycle, pod, other, ni, 1);
  }
  Status removePod(Cycle& cycle, const sh_pod& pod, const sh_pod& other,
                   const sh_node_info& ni) {
    return updateWithPod(cycle, pod, other, ni, -1);
  }

  Status filter(Cycle& cycle, const sh_pod& /*pod*/, const sh_node_info& ni) {
    const PreFilterState* s = cycle.read<PreFilterState>(preFilterKey_);
    if (s == nullptr) {
      return Status::error(
          "reading \"PreFilterPodTopologySpread\" from cycleState: not found");
    }
    if (s->constraints == nullptr || s->constraints->empty()) {
      return Status::success();
    }
    const sh_node& node = *ni.node;
    const std::vector<Constraint>& cs = *s->constraints;
    for (std::size_t i = 0; i < cs.size(); ++i) {
      const Constraint& c = cs[i];
      const sh_label* label = findLabel(node, c.topologyKey);
      if (label == nullptr) {
        return Status::unresolvable(kErrReasonNodeLabelNotMatch);
      }
      // 'existing matching num' + 'if self-match (1 or 0)' - 'global minimum' <= 'maxSkew'
      int64_t minMatch = s->minMatch(i, c.minDomains);
      int64_t self = s->selfMatch[i];
      int64_t matchNum = s->counts[i].count(canonicalId(label->value));
      if (matchNum + self - minMatch > c.maxSkew) {
        return Status::unschedulable(kErrReasonConstraintsNotMatch);
      }
    }
    return Status::success();
  }

  Status preScore(Cycle& cycle, const sh_pod& pod, const sh_node_info* const* filtered,
                  std::size_t filteredCount) {
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
        size = static_cast<int64_t>(filteredCount) -
               static_cast<int64_t>(state->ignoredNodes.size());
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
          spreadCounts_->counter({c.selector.get(), ns(pod), c.topologyKey, &keys});
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

  Status score(Cycle& cycle, const sh_pod& pod, const sh_node_info& ni, int64_t& out) {
    const PreScoreHandle* h = cycle.read<PreScoreHandle>(preScoreKey_);
    if (h == nullptr || h->state == nullptr) {
      return Status::error(
          "error reading \"PreScorePodTopologySpread\" from cycleState: not found");
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
  Status normalizeScore(Cycle& cycle, const sh_pod& /*pod*/, sh_node_score* scores,
                        std::size_t count) {
    const PreScoreHandle* h = cycle.read<PreScoreHandle>(preScoreKey_);
    if (h == nullptr || h->state == nullptr) {
      return Status::error(
          "error reading \"PreScorePodTopologySpread\" from cycleState: not found");
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

  std::vector<EventRegistration> eventsToRegister() {
    return {{SH_RESOURCE_POD,
             SH_ACTION_ADD | SH_ACTION_UPDATE_POD_LABEL | SH_ACTION_UPDATE_POD_TOLERATION |
                 SH_ACTION_DELETE,
             true},
            {SH_RESOURCE_NODE,
             SH_ACTION_ADD | SH_ACTION_DELETE | SH_ACTION_UPDATE_NODE_LABEL |
                 SH_ACTION_UPDATE_NODE_TAINT,
             true}};
  }

  sh_queueing_hint queueingHint(std::size_t index, const sh_pod& pod,
                                const sh_event_objects& event) {
    return index == 0 ? podHint(pod, event) : nodeHint(pod, event);
  }

 private:
  // The counts of one constraint over the nodes its inclusion policies admit for `pod`, from
  // the counter's per-node counts.
  ConstraintCounts countIncluded(const NodeScan& scan, const MatchCounter& counter,
                                 const Constraint& c, const sh_pod& pod) const {
    auto domains = std::make_shared<DomainMap>();
    std::size_t existing = 0;
    for (std::size_t i = 0; i < scan.size(); ++i) {
      const NodeCount& n = counter.node(i);
      if (!n.eligible || !matchPolicies(c, pod, *scan.at(i).node)) {
        continue;
      }
      Domain& d = (*domains)[n.domain];
      if (d.nodes++ == 0) {
        ++existing;
      }
      d.count += n.count;
    }
    CriticalPaths paths = criticalPathsOf(*domains);
    return ConstraintCounts(std::move(domains), existing, paths);
  }

  // matchNodeInclusionPolicies.
  bool matchPolicies(const Constraint& c, const sh_pod& pod, const sh_node& node) const noexcept {
    if (c.honorAffinity && !matchRequiredNodeAffinity(pod, node, metadataName_)) {
      return false;
    }
    if (c.honorTaints && findUntoleratedTaint(node, pod, kDoNotScheduleEffects) != nullptr) {
      return false;
    }
    return true;
  }

  // filterTopologySpreadConstraints over the pod's own constraints.
  Constraints podConstraints(const sh_pod& pod, int32_t action, std::string& error) const {
    auto out = std::make_shared<std::vector<Constraint>>();
    for (uint32_t i = 0; i < pod.topology_spread_constraint_count; ++i) {
      const sh_topology_spread_constraint& t = pod.topology_spread_constraints[i];
      if (t.when_unsatisfiable != action) {
        continue;
      }
      Selector sel;
      if (t.label_selector == nullptr) {
        sel = Selector::nothingSelector();
      } else if (!sel.add(*t.label_selector)) {
        error = "invalid label selector of the constraint on \"" +
                std::string(host_.str(t.topology_key)) + "\"";
        return nullptr;
      }
      // matchLabelKeys: the pod's values of these keys are ANDed in (Nothing stays Nothing).
      if (!sel.isNothing()) {
        for (uint32_t k = 0; k < t.match_label_key_count; ++k) {
          sh_id key = host_.intern(view(t.match_label_keys[k]));
          const sh_label* label = findLabel(pod.labels, pod.label_count, key);
          if (label != nullptr) {
            sel.addLabel(*label);
          }
        }
      }
      Constraint c;
      c.maxSkew = t.max_skew;
      c.topologyKey = t.topology_key;
      c.minDomains = t.min_domains > 0 ? t.min_domains : 1;
      c.honorAffinity = t.node_affinity_policy != SH_POLICY_IGNORE;
      c.honorTaints = t.node_taints_policy == SH_POLICY_HONOR;
      c.selector = std::make_shared<const Selector>(std::move(sel));
      out->push_back(std::move(c));
    }
    return out;
  }

  // buildDefaultConstraints: the default constraints of this action, all with the selector
  // derived from the pod's Services and controller; none when that selector is empty.
  // `cycle` NULL (queueing hints) answers nullptr with `unknown` set when a selector is needed.
  Constraints defaultConstraints(const Cycle* cycle, const sh_pod& pod, int32_t action,
                                 bool& unknown) const {
    // Most pods have no constraint of this action or no workload: answer them without
    // allocating.
    static const Constraints kNone = std::make_shared<const std::vector<Constraint>>();
    bool any = false;
    for (const DefaultConstraint& d : args_.defaultConstraints) {
      any = any || d.whenUnsatisfiable == action;
    }
    if (!any) {
      return kNone;
    }
    if (cycle == nullptr) {
      unknown = true;
      return nullptr;
    }
    const sh_label_selector* const* selectors = nullptr;
    std::size_t n = host_.api()->workload_selectors(cycle->handle(), &pod, &selectors);
    bool selects = false;
    for (std::size_t i = 0; i < n; ++i) {
      const sh_label_selector* s = selectors[i];
      selects = selects ||
                (s != nullptr && (s->match_label_count > 0 || s->match_expression_count > 0));
    }
    if (!selects) {
      return kNone;  // the derived selector is empty
    }
    auto sel = std::make_shared<Selector>();
    for (std::size_t i = 0; i < n; ++i) {
      if (selectors[i] != nullptr) {
        sel->add(*selectors[i]);
      }
    }
    std::shared_ptr<const Selector> shared = std::move(sel);
    auto out = std::make_shared<std::vector<Constraint>>();
    for (const DefaultConstraint& d : args_.defaultConstraints) {
      if (d.whenUnsatisfiable != action) {
        continue;
      }
      Constraint c;
      c.maxSkew = d.maxSkew;
      c.topologyKey = d.topologyKey;
      c.minDomains = d.minDomains > 0 ? d.minDomains : 1;
      c.honorAffinity = d.nodeAffinityPolicy != SH_POLICY_IGNORE;
      c.honorTaints = d.nodeTaintsPolicy == SH_POLICY_HONOR;
      c.selector = shared;
      out->push_back(std::move(c));
    }
    return out;
  }

  // getConstraints: the pod's own constraints of this action, else the default ones.
  Constraints getConstraints(const Cycle* cycle, const sh_pod& pod, int32_t action,
                             std::string& error) const {
    if (pod.topology_spread_constraint_count > 0) {
      return podConstraints(pod, action, error);
    }
    bool unknown = false;
    return defaultConstraints(cycle, pod, action, unknown);
  }

  Status updateWithPod(Cycle& cycle, const sh_pod& pod, const sh_pod& other,
                       const sh_node_info& ni, int64_t delta) {
    PreFilterState* s = cycle.read<PreFilterState>(preFilterKey_);
    if (s == nullptr) {
      return Status::error(
          "reading \"PreFilterPodTopologySpread\" from cycleState: not found");
    }
    if (ns(other) != ns(pod) || ni.node == nullptr || s->constraints == nullptr) {
      return Status::success();
    }
    const sh_node& node = *ni.node;
    const std::vector<Constraint>& cs = *s->constraints;
    if (!nodeHasAllKeys(node, cs)) {
      return Status::success();
    }
    for (std::size_t i = 0; i < cs.size(); ++i) {
      const Constraint& c = cs[i];
      if (!c.selector->matches(other) || !matchPolicies(c, pod, node)) {
        continue;
      }
      s->counts[i].add(labelValue(node, c.topologyKey), delta);
    }
    return Status::success();
  }

  // The hint's constraints: nullptr when they cannot be known without a cycle (List
  // defaulting with DoNotSchedule default constraints), which answers Queue.
  Constraints hintConstraints(const sh_pod& pod, bool& queue) const {
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
  sh_queueing_hint podHint(const sh_pod& pod, const sh_event_objects& event) const {
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
  sh_queueing_hint nodeHint(const sh_pod& pod, const sh_event_objects& event) const {
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

  Host host_;
  PodTopologySpreadArgs args_;
  sh_id metadataName_;
  sh_id preFilterKey_;
  sh_id preScoreKey_;
  // Matching pods per node and domain, kept across cycles for PreFilter and PreScore.
  std::unique_ptr<SpreadCounts> spreadCounts_ = std::make_unique<SpreadCounts>();
};

}  // namespace schedhost::plugins::podtopologyspread

SCHEDHOST_PLUGIN(schedhost::plugins::podtopologyspread::PodTopologySpread,
                 schedhost::plugins::podtopologyspread::kName, "1.36.0")
