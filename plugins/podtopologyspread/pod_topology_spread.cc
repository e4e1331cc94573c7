// PodTopologySpread: construction, the constraints of a pod (its own, else the defaults) and
// the node inclusion policies, and registration. See pod_topology_spread.h for the other files.
#include "pod_topology_spread.h"

#include <schedhost/helpers.hpp>
#include <schedhost/plugin.hpp>

#include <memory>
#include <string>
#include <utility>
#include <vector>

namespace schedhost::plugins::podtopologyspread {

PodTopologySpread::PodTopologySpread(Host& host, const Args& args)
    : host_(host),
      args_(parseArgs(host, args)),
      metadataName_(host.intern("metadata.name")),
      preFilterKey_(host.intern(kPreFilterStateKey)),
      preScoreKey_(host.intern(kPreScoreStateKey)) {}

// matchNodeInclusionPolicies.
bool PodTopologySpread::matchPolicies(const Constraint& c, const sh_pod& pod,
                                      const sh_node& node) const noexcept {
  if (c.honorAffinity && !matchRequiredNodeAffinity(pod, node, metadataName_)) {
    return false;
  }
  if (c.honorTaints && findUntoleratedTaint(node, pod, kDoNotScheduleEffects) != nullptr) {
    return false;
  }
  return true;
}

// filterTopologySpreadConstraints over the pod's own constraints.
Constraints PodTopologySpread::podConstraints(const sh_pod& pod, int32_t action,
                                              std::string& error) const {
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
Constraints PodTopologySpread::defaultConstraints(const Cycle* cycle, const sh_pod& pod,
                                                  int32_t action, bool& unknown) const {
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
    selects =
        selects || (s != nullptr && (s->match_label_count > 0 || s->match_expression_count > 0));
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
Constraints PodTopologySpread::getConstraints(const Cycle* cycle, const sh_pod& pod, int32_t action,
                                              std::string& error) const {
  if (pod.topology_spread_constraint_count > 0) {
    return podConstraints(pod, action, error);
  }
  bool unknown = false;
  return defaultConstraints(cycle, pod, action, unknown);
}

}  // namespace schedhost::plugins::podtopologyspread

SCHEDHOST_PLUGIN(schedhost::plugins::podtopologyspread::PodTopologySpread,
                 schedhost::plugins::podtopologyspread::kName, "1.36.0")
