// topologySpreadConstraint: one constraint with its parsed selector and defaults applied, and
// what the counting needs to know about a pod's constraints.
#ifndef SCHEDHOST_PLUGINS_PODTOPOLOGYSPREAD_CONSTRAINT_H
#define SCHEDHOST_PLUGINS_PODTOPOLOGYSPREAD_CONSTRAINT_H

#include "selector.h"

#include <schedhost/plugin.h>

#include <algorithm>
#include <cstdint>
#include <memory>
#include <vector>

namespace schedhost::plugins::podtopologyspread {

struct Constraint {
  int32_t maxSkew = 1;
  sh_id topologyKey = SH_ID_NONE;
  int32_t minDomains = 1;
  bool honorAffinity = true;  // nodeAffinityPolicy, Honor by default
  bool honorTaints = false;   // nodeTaintsPolicy, Ignore by default
  std::shared_ptr<const Selector> selector;
};
using Constraints = std::shared_ptr<const std::vector<Constraint>>;

// Whether a constraint's node inclusion policies admit every node for this pod, so the counts
// over all eligible nodes (the ones a MatchCounter keeps) are the pod's counts.
inline bool includesEveryNode(const Constraint& c, const sh_pod& pod) noexcept {
  if (c.honorTaints) {
    return false;
  }
  bool requiredAffinity = pod.node_affinity != nullptr && pod.node_affinity->has_required != 0;
  return !c.honorAffinity || (pod.node_selector_count == 0 && !requiredAffinity);
}

// The constraints' topology keys, sorted and unique: a node must carry all of them.
inline std::vector<sh_id> topologyKeysOf(const std::vector<Constraint>& cs) {
  std::vector<sh_id> keys;
  keys.reserve(cs.size());
  for (const Constraint& c : cs) {
    keys.push_back(c.topologyKey);
  }
  std::sort(keys.begin(), keys.end());
  keys.erase(std::unique(keys.begin(), keys.end()), keys.end());
  return keys;
}

}  // namespace schedhost::plugins::podtopologyspread

#endif  // SCHEDHOST_PLUGINS_PODTOPOLOGYSPREAD_CONSTRAINT_H
