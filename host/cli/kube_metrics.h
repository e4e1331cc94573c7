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
//
// And the families client-go's components export about their client (component-base
// metrics/prometheus/restclient and client-go tools/leaderelection):
//
//   rest_client_requests_total{code,method,host}          requests by the answer's status
//                                                         ("<error>": none came)
//   rest_client_request_duration_seconds{verb,host}       their latency (not the watches')
//   leader_election_master_status{name}                   1 while leading the lease `name`
#pragma once

#include <chrono>
#include <functional>
#include <memory>
#include <string>
#include <string_view>

#include "host/connectors/kube/kube_cluster.h"
#include "host/metrics/registry.h"

namespace sh::cli {

// The transport's HttpsTransport::Options::onRequest, counting into `registry`'s rest_client_*
// families (created here; once per registry). `server` is the API server's URL: its host and
// port are the host label.
std::function<void(std::string_view, int, std::chrono::nanoseconds)> restClientMetrics(
    metrics::Registry& registry, const std::string& server);

// leader_election_master_status{name=lease}, 0 until set.
metrics::Gauge& leaderElectionStatus(metrics::Registry& registry, const std::string& lease);

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
