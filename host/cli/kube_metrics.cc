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
