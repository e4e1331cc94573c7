// A copy of a pod placed on a node: what the scheduler assumes in its cache, and what the
// cluster stores once the binding is made. A copy is made without parsing: it shares the
// original's arena and owns only what it changes; its manifest (Pod::json()) is built on
// first use.
#pragma once

#include <memory>
#include <string_view>

#include "host/model/pod.h"

namespace sh::model {

// The pod with spec.nodeName = node (every other field as it was). Never fails for a pod
// that parse_pod produced; returns nullptr only if that invariant is broken.
std::shared_ptr<const Pod> assignToNode(const Pod& pod, std::string_view node);

// The pod with status.nominatedNodeName = node ("" removes it): what the scheduler's own
// status patch makes of a pod that preemption nominated. Same guarantees as assignToNode.
std::shared_ptr<const Pod> withNominatedNode(const Pod& pod, std::string_view node);

// The pod as a binding leaves it (docs/cluster-protocol.md): spec.nodeName = node and the
// condition PodScheduled with status "True" and no reason, set on the first PodScheduled
// condition or appended after the others, as a strategic merge patch of `conditions` does.
// The view is exactly what parsing the bound manifest gives. `manifestEdit` makes the same
// change to the manifest (the connector's binding patch, with its timestamp): it runs once,
// on the first json() call, on a copy of `pod`'s manifest. Same guarantees as assignToNode.
std::shared_ptr<const Pod> bindToNode(const Pod& pod, std::string_view node,
                                      ManifestEdit manifestEdit);

}  // namespace sh::model
