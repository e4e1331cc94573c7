// KubeMetrics: the Kubernetes connector's own counters (KubeCluster::Stats) as metrics of the
// process's registry, read at scrape time (docs/operations.md lists them):
//
//   schedhost_kube_objects_rejected_total        objects the API server sent that did not
//                                                parse (pods, nodes, plugins' declared kinds);
//                                                each is warned naming it and left out
//   schedhost_kube_object_writes_total{result}   plugins' writes: "success", "error"
//   schedhost_kube_declared_kinds_not_served     declared kinds the API server did not serve
//                                                (a CustomResourceDefinition not installed)
//   schedhost_kube_binds_total{result}           binds: "success", "conflict" (bound elsewhere)
//
// The registry outlives the cluster: the collector reads the cluster only while this object
// lives, and shows nothing after.
#pragma once

#include <memory>

#include "host/connectors/kube/kube_cluster.h"
#include "host/metrics/registry.h"

namespace sh::cli {

class KubeMetrics {
 public:
  KubeMetrics(metrics::Registry& registry, const kube::KubeCluster& cluster);
  ~KubeMetrics();
  KubeMetrics(const KubeMetrics&) = delete;
  KubeMetrics& operator=(const KubeMetrics&) = delete;

 private:
  struct Source;
  std::shared_ptr<Source> source_;
};

}  // namespace sh::cli
