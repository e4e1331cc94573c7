// The JSON of the extender protocol (upstream k8s.io/kube-scheduler/extender/v1 types.go).
// Upstream's types have no JSON tags, so the member names are the Go field names ("Pod",
// "NodeNames", "FailedNodes"); Go's decoder matches them without regard to case, and so do
// the readers here.
//
//   filter, prioritize   ExtenderArgs {Pod, Nodes (a NodeList), NodeNames}: the nodes whole,
//                        or their names only for a nodeCacheCapable extender
//   filter answer        ExtenderFilterResult {Nodes, NodeNames, FailedNodes,
//                        FailedAndUnresolvableNodes, Error}
//   prioritize answer    HostPriorityList [{Host, Score}]
//   bind                 ExtenderBindingArgs {PodName, PodNamespace, PodUID, Node}
//   bind answer          ExtenderBindingResult {Error}
//   preempt              ExtenderPreemptionArgs {Pod, NodeNameToVictims (whole pods) or
//                        NodeNameToMetaVictims (uids, nodeCacheCapable)}
//   preempt answer       ExtenderPreemptionResult {NodeNameToMetaVictims}
//
// The readers never throw: an answer that is not JSON or not the type is an error saying
// where ("FailedNodes: expected an object of strings").
#pragma once

#include <map>
#include <string>
#include <string_view>
#include <vector>

#include "host/cycle/extender.h"

namespace sh::extender {

// ExtenderArgs: `nodes` whole (nodeCacheCapable false) or by name.
std::string encodeArgs(const model::Pod& pod, const std::vector<const model::Node*>& nodes,
                       bool nodeCacheCapable);
std::string encodeBindingArgs(const model::Pod& pod, const std::string& node);
std::string encodePreemptionArgs(const model::Pod& pod, const cycle::NodeVictims& victims,
                                 bool nodeCacheCapable);

// ExtenderFilterResult. `passed` gets the names of the nodes that pass (NodeNames when
// `nodeCacheCapable` and present, else the Nodes' metadata.name); `error` the Error member.
bool decodeFilterResult(std::string_view text, bool nodeCacheCapable,
                        cycle::ExtenderFilterResult& out, std::string& extenderError,
                        std::string& problem);
bool decodeHostPriorityList(std::string_view text, std::vector<cycle::HostPriority>& out,
                            std::string& problem);
bool decodeBindingResult(std::string_view text, std::string& extenderError, std::string& problem);
// NodeNameToMetaVictims: node -> (pod uids, numPDBViolations).
struct MetaVictims {
  std::vector<std::string> uids;
  int64_t numPdbViolations = 0;
};
bool decodePreemptionResult(std::string_view text, std::map<std::string, MetaVictims>& out,
                            std::string& problem);

}  // namespace sh::extender
