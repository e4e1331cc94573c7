// PodTopologySpread filtering: PreFilter counts the matching pods per domain of every
// DoNotSchedule constraint (from the counters kept across cycles), AddPod/RemovePod keep a
// cycle state's counts up to date, and Filter checks each constraint's skew. Upstream:
// podtopologyspread/filtering.go.
#include "pod_topology_spread.h"

#include <schedhost/helpers.hpp>
#include <schedhost/plugin.hpp>

#include <memory>
#include <string>
#include <utility>
#include <vector>

namespace schedhost::plugins::podtopologyspread {

namespace {

constexpr char kErrReasonConstraintsNotMatch[] =
    "node(s) didn't match pod topology spread constraints";
constexpr char kErrReasonNodeLabelNotMatch[] =
    "node(s) didn't match pod topology spread constraints (missing required label)";

}  // namespace

Status PodTopologySpread::preFilter(Cycle& cycle, const sh_pod& pod, PreFilterResult& /*result*/) {
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
          syncedCounter(*spreadCounts_, {c.selector.get(), ns(pod), c.topologyKey, &keys});
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

Status PodTopologySpread::addPod(Cycle& cycle, const sh_pod& pod, const sh_pod& other,
                                 const sh_node_info& ni) {
  return updateWithPod(cycle, pod, other, ni, 1);
}

Status PodTopologySpread::removePod(Cycle& cycle, const sh_pod& pod, const sh_pod& other,
                                    const sh_node_info& ni) {
  return updateWithPod(cycle, pod, other, ni, -1);
}

Status PodTopologySpread::updateWithPod(Cycle& cycle, const sh_pod& pod, const sh_pod& other,
                                        const sh_node_info& ni, int64_t delta) {
  PreFilterState* s = cycle.read<PreFilterState>(preFilterKey_);
  if (s == nullptr) {
    return Status::error("reading \"" + kPreFilterStateKey + "\" from cycleState: not found");
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

// The counts of one constraint over the nodes its inclusion policies admit for `pod`, from
// the counter's per-node counts.
ConstraintCounts PodTopologySpread::countIncluded(const NodeScan& scan, const MatchCounter& counter,
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

Status PodTopologySpread::filter(Cycle& cycle, const sh_pod& /*pod*/, const sh_node_info& ni) {
  const PreFilterState* s = cycle.read<PreFilterState>(preFilterKey_);
  if (s == nullptr) {
    return Status::error("reading \"" + kPreFilterStateKey + "\" from cycleState: not found");
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

}  // namespace schedhost::plugins::podtopologyspread
