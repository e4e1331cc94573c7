// What would make a pod fit: the smallest changes to a scenario that would make the pod
// schedulable, each found by evaluating a modified copy of the scenario (the same plugins on
// the same nodes, with one thing changed) and counting the nodes that become feasible. Never
// applied; only reported.
//
// The changes tried, each only when the plugin it answers rejected nodes:
//   - tolerate (or remove) one taint of the nodes TaintToleration rejected;
//   - drop one entry of the pod's nodeSelector, or one requirement of its required node
//     affinity (NodeAffinity);
//   - drop one required pod affinity or anti-affinity term (InterPodAffinity);
//   - lower one resource request to what the node with the most of it free has free, of the
//     nodes NodeResourcesFit found short of it ("Insufficient ...");
//   - evict the lower-priority pods preemption would evict (PostFilter's victims: one node);
//   - add an empty node like one the pod was rejected from (its labels, taints and
//     allocatable, no pods).
#pragma once

#include <vector>

#include "host/evaluate/evaluate.h"
#include "host/explain/explanation.h"

namespace sh::explain {

struct WhatIfOptions {
  std::size_t maxPerKind = 5;  // changes tried of one kind (taints, terms, nodes)
  std::size_t examples = 5;    // node names kept per change
};

// `current` is run(scenario, options)'s result. Every evaluation is of a copy; a copy whose
// evaluation fails (a plugin's error) is left out, and `note`, when given, says how many were
// and the first error ("" when none was).
std::vector<WhatIf> whatIfs(const evaluate::Scenario& scenario, const evaluate::Result& current,
                            const evaluate::Options& options, const WhatIfOptions& limits = {},
                            std::string* note = nullptr);

}  // namespace sh::explain
