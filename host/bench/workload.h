// A benchmark workload, as scheduler_perf describes one: nodes from a template, pods
// scheduled before measuring (init), and the pods whose scheduling is measured.
//
// {
//   "name": "SchedulingBasic",
//   "nodes": {"count": 5000, "namePrefix": "scheduler-perf-", "template": {<v1.Node>},
//             "labels": {"topology.kubernetes.io/zone": ["zone1", "zone2", "zone3"]}},
//   "initPods": {"count": 1000, "namePrefix": "init-pod-", "namespace": "sched-0",
//                "template": {<v1.Pod>}},
//   "measuredPods": {"count": 10000, "namePrefix": "pod-", "namespace": "sched-1",
//                    "template": {<v1.Pod>}}
// }
//
// Every node gets `kubernetes.io/hostname=<name>` and the listed labels round-robin, as
// scheduler_perf's labelNodePrepareStrategy does. Counts can be overridden (--scale).
//
// Storage, as scheduler_perf's volume workloads (volumes/performance-config.yaml):
//   nodes.csiNode: {"drivers": {"ebs.csi.aws.com": 39}, "migratedPlugins":
//   ["kubernetes.io/aws-ebs"]}
//     gives each node a CSINode (nodeAllocatableStrategy's csiNodeAllocatable and
//     migratedPlugins);
//   <pods>.persistentVolumeTemplate / persistentVolumeClaimTemplate give the i-th pod of the
//     group claim "pvc-<i>" in its namespace, bound to volume "<namespace>-vol-<i>", and a
//     volume "vol" using it (test/utils: CreatePodWithPersistentVolume with bindVolume). An
//     in-tree AWS volume's volumeID is "vol-<i>"; a CSI volume's volumeHandle is its name.
#pragma once

#include <memory>
#include <optional>
#include <string>
#include <vector>

#include <boost/json/value.hpp>

#include "host/connectors/object_store.h"
#include "host/model/node.h"
#include "host/model/pod.h"

namespace sh::bench {

struct Workload {
  std::string name;
  // CSINodes, PersistentVolumes and PersistentVolumeClaims, delivered before the nodes.
  std::vector<connectors::ObjectPtr> objects;
  std::vector<std::shared_ptr<const model::Node>> nodes;
  std::vector<std::shared_ptr<const model::Pod>> initPods;
  std::vector<std::shared_ptr<const model::Pod>> measuredPods;
};

// Builds the workload's objects. `scale` multiplies every count (1.0 = as written). On
// failure returns nullopt with `error` naming the field.
std::optional<Workload> buildWorkload(const boost::json::value& doc, double scale,
                                      std::string& error);

}  // namespace sh::bench
