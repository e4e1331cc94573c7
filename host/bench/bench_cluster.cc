#include "host/bench/bench_cluster.h"

#include "host/model/pod_assign.h"

namespace sh::bench {
namespace {

std::string uidOf(const model::Pod& p) { return std::string(p.uid()); }

connectors::ClusterChange added(std::shared_ptr<const model::Pod> pod) {
  connectors::ClusterChange c;
  c.type = connectors::ClusterChange::Type::kAdded;
  c.kind = connectors::ClusterChange::Kind::kPod;
  c.curPod = std::move(pod);
  c.source = "workload";
  return c;
}

}  // namespace

BenchCluster::BenchCluster(const Workload& workload) : workload_(workload) {
  // The storage objects first, as scheduler_perf creates them before the pods that use them.
  for (const auto& o : workload.objects) {
    connectors::ClusterChange c;
    c.type = connectors::ClusterChange::Type::kAdded;
    c.kind = connectors::ClusterChange::Kind::kObject;
    c.object = o;
    c.source = "workload";
    changes_.push(std::move(c));
  }
  for (const auto& n : workload.nodes) {
    connectors::ClusterChange c;
    c.type = connectors::ClusterChange::Type::kAdded;
    c.kind = connectors::ClusterChange::Kind::kNode;
    c.curNode = n;
    c.source = "workload";
    changes_.push(std::move(c));
  }
  for (const auto& p : workload.initPods) {
    pods_[uidOf(*p)] = p;
    changes_.push(added(p));
  }
  for (const auto& p : workload.measuredPods) {
    measured_[uidOf(*p)] = true;
  }
  bindTimes_.reserve(workload.measuredPods.size());
  if (workload.initPods.empty()) {
    releaseMeasuredLocked();
  }
}

void BenchCluster::releaseMeasuredLocked() {
  released_ = true;
  measureStart_ = Clock::now();
  for (const auto& p : workload_.measuredPods) {
    pods_[uidOf(*p)] = p;
    changes_.push(added(p));
  }
  changes_.notify();
}

std::optional<connectors::ClusterChange> BenchCluster::next(std::chrono::milliseconds timeout) {
  std::unique_lock<std::mutex> lock(mu_);
  return changes_.next(lock, timeout, stopped_);
}

std::size_t BenchCluster::nextBatch(std::vector<connectors::ClusterChange>& out,
                                    std::chrono::milliseconds timeout) {
  std::unique_lock<std::mutex> lock(mu_);
  return changes_.takeAll(lock, timeout, stopped_, out);
}

bool BenchCluster::exhausted() const {
  std::lock_guard<std::mutex> lock(mu_);
  return stopped_ || (released_ && changes_.empty());
}

std::size_t BenchCluster::pending() const {
  std::lock_guard<std::mutex> lock(mu_);
  return changes_.size();
}

void BenchCluster::stop() {
  std::lock_guard<std::mutex> lock(mu_);
  stopped_ = true;
  changes_.notify();
}

Status BenchCluster::bind(const model::Pod& pod, std::string_view nodeName) {
  auto bound = model::assignToNode(pod, nodeName);
  if (bound == nullptr) {
    return Status(SH_ERROR, "cannot bind pod");
  }
  std::lock_guard<std::mutex> lock(mu_);
  const std::string uid = uidOf(pod);
  auto it = pods_.find(uid);
  if (it == pods_.end()) {
    return Status(SH_ERROR, "pod " + std::string(pod.namespaceName()) + "/" +
                                std::string(pod.name()) + " not found");
  }
  connectors::ClusterChange c;
  c.type = connectors::ClusterChange::Type::kModified;
  c.kind = connectors::ClusterChange::Kind::kPod;
  c.oldPod = it->second;
  c.curPod = bound;
  c.source = "binding";
  it->second = bound;
  changes_.push(std::move(c));
  if (measured_.count(uid) != 0) {
    bindTimes_.push_back(Clock::now());
  } else if (++initBound_ == workload_.initPods.size() && !released_) {
    releaseMeasuredLocked();
  }
  changes_.notify();
  return Status();
}

Status BenchCluster::deletePod(const model::Pod& pod, std::string_view) {
  std::lock_guard<std::mutex> lock(mu_);
  auto it = pods_.find(uidOf(pod));
  if (it == pods_.end()) {
    return Status(SH_ERROR, "pod not found");
  }
  connectors::ClusterChange c;
  c.type = connectors::ClusterChange::Type::kDeleted;
  c.kind = connectors::ClusterChange::Kind::kPod;
  c.oldPod = it->second;
  c.source = "deletion";
  pods_.erase(it);
  changes_.push(std::move(c));
  changes_.notify();
  return Status();
}

std::vector<BenchCluster::Clock::time_point> BenchCluster::measuredBindTimes() const {
  std::lock_guard<std::mutex> lock(mu_);
  return bindTimes_;
}

std::size_t BenchCluster::measuredBound() const {
  std::lock_guard<std::mutex> lock(mu_);
  return bindTimes_.size();
}

}  // namespace sh::bench
