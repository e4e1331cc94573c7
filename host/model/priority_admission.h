// Priority admission: what the API server's Priority admission plugin
// (plugin/pkg/admission/priority) does to a pod it creates. It resolves
// spec.priorityClassName to spec.priority and spec.preemptionPolicy, which the scheduler
// then reads. Manifests that never went through an API server (scenario files, the
// embedded cluster's inputs) pass through here before parse_pod.
#ifndef SCHEDHOST_HOST_MODEL_PRIORITY_ADMISSION_H
#define SCHEDHOST_HOST_MODEL_PRIORITY_ADMISSION_H

#include <boost/json/value.hpp>
#include <string>
#include <string_view>

#include "host/model/cluster_objects.h"

namespace sh::model {

// The system classes every API server serves: system-cluster-critical (2000000000) and
// system-node-critical (2000001000), both PreemptLowerPriority. nullptr for other names.
const PriorityClassInfo* systemPriorityClass(std::string_view name);

// Fills in the priority of `pod`, a v1.Pod manifest, as upstream admission does on create:
//  - spec.priorityClassName set: the class must exist, in `objects` or among the system
//    classes; its value becomes spec.priority;
//  - unset: the global default class (ClusterObjects::globalDefaultPriorityClass) gives the
//    value and its name is written to spec.priorityClassName; without one the priority is 0;
//  - spec.preemptionPolicy comes from the class (PreemptLowerPriority without one) when the
//    pod sets none. Upstream rejects a pod whose own policy differs from its class's; here
//    the pod's own is kept, so a manifest written for the scheduler alone ("Never" and no
//    class) stays usable.
// A pod that already has spec.priority has been through admission and is left as it is, and
// so is a manifest with fields of the wrong type: parse_pod reports those. `objects` may be
// null (no classes but the system ones).
//
// Returns false when the named class does not exist, with `error` set to
// "spec.priorityClassName: no PriorityClass with name <n> was found"; `pod` is then
// unchanged.
bool admitPriority(boost::json::value& pod, const ClusterObjects* objects, std::string& error);

}  // namespace sh::model

#endif  // SCHEDHOST_HOST_MODEL_PRIORITY_ADMISSION_H
