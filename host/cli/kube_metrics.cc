#include "host/cli/kube_metrics.h"

#include <mutex>
#include <string>
#include <utility>
#include <vector>

namespace sh::cli {

struct KubeMetrics::Source {
  std::mutex mu;
  const kube::KubeCluster* cluster = nullptr;
};

namespace {

metrics::FamilySnapshot family(std::string name, std::string help, metrics::MetricType type,
                               std::vector<std::string> labelNames = {}) {
  metrics::FamilySnapshot f;
  f.desc.name = std::move(name);
  f.desc.help = std::move(help);
  f.desc.type = type;
  f.desc.labelNames = std::move(labelNames);
  return f;
}

void add(metrics::FamilySnapshot& f, std::vector<std::string> labelValues, uint64_t value) {
  metrics::ChildSnapshot c;
  c.labelValues = std::move(labelValues);
  c.value = static_cast<double>(value);
  f.children.push_back(std::move(c));
}

}  // namespace

std::function<void(std::string_view, int, std::chrono::nanoseconds)> restClientMetrics(
    metrics::Registry& registry, const std::string& server) {
  // client-go's URL.Host: the authority, without the scheme and any path.
  std::string_view host = server;
  if (const std::size_t scheme = host.find("://"); scheme != std::string_view::npos) {
    host.remove_prefix(scheme + 3);
  }
  host = host.substr(0, host.find('/'));
  metrics::CounterFamily& requests =
      registry.counter("rest_client_requests_total",
                       "Number of HTTP requests, partitioned by status code, method, and host.",
                       {"code", "method", "host"});
  // component-base metrics/prometheus/restclient: requestLatency's buckets.
  metrics::HistogramFamily& latency = registry.histogram(
      "rest_client_request_duration_seconds",
      "Request latency in seconds. Broken down by verb, and host.", {"verb", "host"},
      {0.005, 0.025, 0.1, 0.25, 0.5, 1.0, 2.0, 4.0, 8.0, 15.0, 30.0, 60.0});
  return [&requests, &latency, host = std::string(host)](std::string_view method, int status,
                                                         std::chrono::nanoseconds took) {
    const std::string code = status == 0 ? std::string("<error>") : std::to_string(status);
    requests.with({code, method, host}).inc();
    if (took.count() > 0) {
      latency.with({method, host}).observe(static_cast<double>(took.count()) / 1e9);
    }
  };
}

metrics::Gauge& leaderElectionStatus(metrics::Registry& registry, const std::string& lease) {
  return registry
      .gauge("leader_election_master_status",
             "Gauge of if the reporting system is master of the relevant lease, 0 indicates "
             "backup, 1 indicates master. 'name' is the string used to identify the lease. "
             "Please make sure to group by name.",
             {"name"})
      .with({lease});
}

KubeMetrics::KubeMetrics(metrics::Registry& registry, const kube::KubeCluster& cluster)
    : source_(std::make_shared<Source>()) {
  source_->cluster = &cluster;
  registry.addCollector([source = source_](std::vector<metrics::FamilySnapshot>& out) {
    std::lock_guard<std::mutex> lock(source->mu);
    if (source->cluster == nullptr) {
      return;
    }
    const kube::KubeCluster::Stats s = source->cluster->stats();
    using metrics::MetricType;
    auto rejected = family("schedhost_kube_objects_rejected_total",
                           "Objects from the API server that did not parse, left out and warned.",
                           MetricType::kCounter);
    add(rejected, {}, s.rejected);
    auto writes = family("schedhost_kube_object_writes_total",
                         "Plugins' writes to objects of their declared kinds, by result.",
                         MetricType::kCounter, {"result"});
    add(writes, {"error"}, s.objectWriteFailures);
    add(writes, {"success"}, s.objectWrites);
    auto notServed =
        family("schedhost_kube_declared_kinds_not_served",
               "Kinds plugins declared that the API server did not serve.", MetricType::kGauge);
    add(notServed, {}, s.kindsNotServed);
    auto binds = family("schedhost_kube_binds_total",
                        "Binds sent to the API server, by result (conflict: bound elsewhere).",
                        MetricType::kCounter, {"result"});
    add(binds, {"conflict"}, s.bindConflicts);
    add(binds, {"success"}, s.binds);
    out.push_back(std::move(binds));
    out.push_back(std::move(notServed));
    out.push_back(std::move(writes));
    out.push_back(std::move(rejected));
  });
}

KubeMetrics::~KubeMetrics() {
  std::lock_guard<std::mutex> lock(source_->mu);
  source_->cluster = nullptr;
}

}  // namespace sh::cli
