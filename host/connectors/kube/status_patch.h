// The bodies the connector writes, built from the pod as the informer holds it: the binding,
// and the strategic merge patches of the pod's status subresource that kube-scheduler sends
// (pkg/scheduler/schedule_one.go updatePod, pkg/scheduler/util PatchPodStatus: the two-way
// diff of the old and new status, skipped when it is empty).
//
// Patches are `application/strategic-merge-patch+json`: `status.conditions` merges by `type`,
// so a patch carries only the condition it sets; `null` removes a field.
#pragma once

#include <optional>
#include <string>
#include <string_view>

#include "host/model/pod.h"

namespace sh::kube {

inline constexpr std::string_view kStrategicMergePatch = "application/strategic-merge-patch+json";

// {"apiVersion":"v1","kind":"Binding","metadata":{name, namespace, uid},"target":{...}}
std::string bindingBody(const model::Pod& pod, std::string_view nodeName);

// The patch that sets PodScheduled=False with `reason` and `message` and, unless nullopt,
// status.nominatedNodeName (`""` removes it), as it differs from `stored`. nullopt when the
// pod already shows all of it (no request then). lastTransitionTime is `now` when the
// condition's status changes, the stored one otherwise; observedGeneration is the pod's
// metadata.generation when it has one.
std::optional<std::string> schedulingFailurePatch(const model::Pod& stored, std::string_view reason,
                                                  std::string_view message,
                                                  const std::optional<std::string>& nominated,
                                                  std::string_view now);

// DisruptionTarget=True, reason PreemptionByScheduler, `message`; nullopt when the pod has it.
std::optional<std::string> disruptionTargetPatch(const model::Pod& stored, std::string_view message,
                                                 std::string_view now);

// Removes status.nominatedNodeName; nullopt when the pod has none.
std::optional<std::string> clearNominationPatch(const model::Pod& stored);

// {"kind":"DeleteOptions","apiVersion":"v1","preconditions":{"uid":...}}: a delete that
// cannot hit a pod recreated under the same name.
std::string deleteOptionsBody(const model::Pod& pod);

}  // namespace sh::kube
