// A copy of a pod placed on a node: what the scheduler assumes in its cache, and what the
// cluster stores once the binding is made.
#pragma once

#include <memory>
#include <string_view>

#include "host/model/pod.h"

namespace sh::model {

// The pod with spec.nodeName = node (every other field as it was). Never fails for a pod
// that parse_pod produced; returns nullptr only if that invariant is broken.
std::shared_ptr<const Pod> assignToNode(const Pod& pod, std::string_view node);

// The pod with status.nominatedNodeName = node ("" removes it): what the scheduler's own
// status patch makes of a pod that preemption nominated. Same guarantees as assign_to_node.
std::shared_ptr<const Pod> withNominatedNode(const Pod& pod, std::string_view node);

}  // namespace sh::model
