#include "host/cycle/scheduler.h"

#include <chrono>

#include <spdlog/spdlog.h>

#include "host/cycle/pod_text.h"
#include "host/cycle/queue_profiles.h"
#include "host/queue/cluster_event.h"

namespace sh::cycle {
namespace {

bool assigned(const model::Pod& p) { return p.view().node_name.len > 0; }

}  // namespace

Scheduler::Scheduler(Frameworks frameworks, connectors::Connector& connector,
                     connectors::DecisionLog* log, SchedulerOptions options, queue::Clock* clock)
    : frameworks_(std::move(frameworks)),
      connector_(connector),
      log_(log),
      options_(options),
      clock_(clock),
      parallelizer_(options.parallelism) {
  if (clock_ == nullptr) {
    // Unix-anchored: the queue's timestamps reach plugins as sh_queued_pod.timestamp_unix_nanos.
    ownedClock_ = std::make_unique<queue::SteadyClock>();
    clock_ = ownedClock_.get();
  }
  rngState_ = options_.seed;
  queue_ =
      std::make_unique<queue::SchedulingQueue>(queueProfiles(frameworks_), options_.queue, clock_);
  int threads = std::max(1, options_.bindingThreads);
  for (int i = 0; i < threads; ++i) {
    bindThreads_.emplace_back([this] { bindingWorker(); });
  }
}

Scheduler::~Scheduler() {
  stop();
  {
    std::lock_guard<std::mutex> lock(bindMu_);
    bindStopping_ = true;
  }
  bindCv_.notify_all();
  // A stopping scheduler does not wait out Permit timeouts (up to 15 minutes): the pods
  // still waiting are rejected, and their binding cycles unwind as for any rejection.
  waitingPods_.rejectAll("scheduler is stopping");
  for (auto& t : bindThreads_) {
    t.join();
  }
  std::vector<PermitWaiter> waiters;
  {
    std::lock_guard<std::mutex> lock(bindMu_);
    waiters.swap(permitWaiters_);
  }
  for (PermitWaiter& w : waiters) {
    w.thread.join();
  }
  queue_->close();
}

int64_t Scheduler::nowNanos() const { return clock_->nowNanos(); }

void Scheduler::stop() {
  stopping_.store(true);
  queue_->close();
}

SchedulerStats Scheduler::stats() const {
  std::lock_guard<std::mutex> lock(statsMu_);
  return stats_;
}

std::size_t Scheduler::pendingPodCount() const {
  std::lock_guard<std::mutex> lock(podsMu_);
  std::size_t n = 0;
  for (const auto& [uid, pod] : pods_) {
    if (!assigned(*pod) && responsibleFor(*pod)) {
      ++n;
    }
  }
  return n;
}

bool Scheduler::responsibleFor(const model::Pod& pod) const {
  const sh_pod& v = pod.view();
  return frameworks_.find(std::string_view(v.scheduler_name.ptr, v.scheduler_name.len)) !=
         frameworks_.end();
}

// ---------------------------------------------------------------------------------------
// The loop.

void Scheduler::applyChanges(std::chrono::milliseconds wait) {
  auto first = connector_.next(wait);
  if (!first) {
    return;
  }
  handleChange(*first);
  // Everything else already there, without waiting.
  while (auto more = connector_.next(std::chrono::milliseconds(0))) {
    handleChange(*more);
  }
}

bool Scheduler::finished(bool follow) const {
  if (follow || !connector_.exhausted()) {
    return false;
  }
  std::lock_guard<std::mutex> lock(bindMu_);
  return bindingsInFlight_ == 0 && queue_->quiet();
}

bool Scheduler::stepForTest() {
  applyChanges(std::chrono::milliseconds(0));
  auto info = queue_->tryPopForTest();
  if (info == nullptr) {
    return false;
  }
  scheduleOne(std::move(info));
  return true;
}

SchedulerStats Scheduler::run(bool follow) {
  queue_->run();
  // The initial list first, as an informer syncs before scheduling starts.
  applyChanges(std::chrono::milliseconds(0));
  while (!stopping_.load()) {
    applyChanges(std::chrono::milliseconds(0));
    auto info = queue_->tryPopForTest();
    if (info != nullptr) {
      scheduleOne(std::move(info));
      continue;
    }
    if (finished(follow)) {
      break;
    }
    // Nothing ready: wait a little for a change (a new pod, a binding confirmed, a node).
    applyChanges(std::chrono::milliseconds(5));
  }
  waitForBindingsForTest();
  // Apply what the last bindings produced, so the cluster and the cache agree.
  while (auto more = connector_.next(std::chrono::milliseconds(0))) {
    handleChange(*more);
  }
  return stats();
}

// ---------------------------------------------------------------------------------------
// Event handlers (upstream eventhandlers.go).

void Scheduler::handleChange(const connectors::ClusterChange& c) {
  using Type = connectors::ClusterChange::Type;
  if (c.kind == connectors::ClusterChange::Kind::kNode) {
    switch (c.type) {
      case Type::kAdded:
        onNodeAdd(c.curNode);
        break;
      case Type::kModified:
        onNodeUpdate(c.oldNode, c.curNode);
        break;
      case Type::kDeleted:
        onNodeDelete(c.oldNode);
        break;
    }
    return;
  }
  switch (c.type) {
    case Type::kAdded:
      onPodAdd(c.curPod);
      break;
    case Type::kModified:
      onPodUpdate(c.oldPod, c.curPod);
      break;
    case Type::kDeleted:
      onPodDelete(c.oldPod);
      break;
  }
}

void Scheduler::onNodeAdd(const std::shared_ptr<const model::Node>& node) {
  Status s = cache_.addNode(node);
  if (!s.ok()) {
    spdlog::warn("cache: {}", s.message());
  }
  queue_->moveAllToActiveOrBackoffQueue(queue::ClusterEvent{SH_RESOURCE_NODE, SH_ACTION_ADD, {}},
                                        nullptr, node);
}

void Scheduler::onNodeUpdate(const std::shared_ptr<const model::Node>& old,
                             const std::shared_ptr<const model::Node>& cur) {
  Status s = cache_.updateNode(old, cur);
  if (!s.ok()) {
    spdlog::warn("cache: {}", s.message());
  }
  for (const queue::ClusterEvent& ev : queue::nodeUpdateEvents(*old, *cur)) {
    queue_->moveAllToActiveOrBackoffQueue(ev, old, cur);
  }
}

void Scheduler::onNodeDelete(const std::shared_ptr<const model::Node>& node) {
  queue_->moveAllToActiveOrBackoffQueue(queue::ClusterEvent{SH_RESOURCE_NODE, SH_ACTION_DELETE, {}},
                                        node, nullptr);
  Status s = cache_.removeNode(*node);
  if (!s.ok()) {
    spdlog::warn("cache: {}", s.message());
  }
}

void Scheduler::onPodAdd(const std::shared_ptr<const model::Pod>& pod) {
  if (pod->view().phase_terminal != 0) {
    return;  // the informer excludes Succeeded and Failed pods
  }
  {
    std::lock_guard<std::mutex> lock(podsMu_);
    pods_[str(pod->view().uid)] = pod;
  }
  if (assigned(*pod)) {
    Status s = cache_.addPod(pod);
    if (!s.ok()) {
      spdlog::warn("cache: {}", s.message());
    }
    queue_->moveAllToActiveOrBackoffQueue(
        queue::ClusterEvent{SH_RESOURCE_ASSIGNED_POD, SH_ACTION_ADD, {}}, nullptr, pod);
    return;
  }
  if (responsibleFor(*pod)) {
    queue_->add(pod);
  }
}

void Scheduler::onPodUpdate(const std::shared_ptr<const model::Pod>& old,
                            const std::shared_ptr<const model::Pod>& cur) {
  const std::string uid = str(cur->view().uid);
  if (cur->view().phase_terminal != 0) {
    onPodDelete(old);
    return;
  }
  {
    std::lock_guard<std::mutex> lock(podsMu_);
    pods_[uid] = cur;
  }
  if (assigned(*old)) {
    Status s = cache_.updatePod(old, cur);
    if (!s.ok()) {
      spdlog::warn("cache: {}", s.message());
    }
    for (const queue::ClusterEvent& ev : queue::podUpdateEvents(*old, *cur)) {
      queue_->moveAllToActiveOrBackoffQueue(ev, old, cur);
    }
    return;
  }
  if (assigned(*cur)) {
    // Bound (by us or by someone else): it leaves the queue and joins the cache, where it
    // replaces the copy we assumed.
    if (responsibleFor(*old)) {
      queue_->remove(old);
    }
    Status s = cache_.addPod(cur);
    if (!s.ok()) {
      spdlog::warn("cache: {}", s.message());
    }
    queue_->moveAllToActiveOrBackoffQueue(
        queue::ClusterEvent{SH_RESOURCE_ASSIGNED_POD, SH_ACTION_ADD, {}}, nullptr, cur);
    return;
  }
  if (!responsibleFor(*cur) || cache_.isAssumedPod(uid)) {
    return;
  }
  queue_->update(old, cur);
}

void Scheduler::onPodDelete(const std::shared_ptr<const model::Pod>& pod) {
  const std::string uid = str(pod->view().uid);
  {
    std::lock_guard<std::mutex> lock(podsMu_);
    pods_.erase(uid);
  }
  const queue::ClusterEvent deleted{SH_RESOURCE_ASSIGNED_POD, SH_ACTION_DELETE, {}};
  if (assigned(*pod)) {
    Status s = cache_.removePod(*pod);
    if (!s.ok()) {
      spdlog::warn("cache: {}", s.message());
    }
    queue_->moveAllToActiveOrBackoffQueue(deleted, pod, nullptr);
    return;
  }
  if (!responsibleFor(*pod)) {
    return;
  }
  queue_->remove(pod);
  if (cache_.isAssumedPod(uid)) {
    // Deleted while we were binding it: a pod waiting on Permit is rejected (its binding
    // cycle forgets it); otherwise forget it here.
    if (auto wp = waitingPods_.get(uid)) {
      wp->reject("", "removed");
    } else if (auto cached = cache_.getPod(uid)) {
      cache_.forgetPod(cached);
    }
    queue_->moveAllToActiveOrBackoffQueue(deleted, pod, nullptr);
  }
}

}  // namespace sh::cycle
