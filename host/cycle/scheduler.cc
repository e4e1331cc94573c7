#include "host/cycle/scheduler.h"

#include <algorithm>
#include <chrono>
#include <tuple>
#include <vector>

#include <spdlog/spdlog.h>

#include "host/cycle/pod_text.h"
#include "host/cycle/queue_profiles.h"
#include "host/queue/cluster_event.h"

namespace sh::cycle {
namespace {

bool assigned(const model::Pod& p) { return p.view().node_name.len > 0; }

std::string_view nominatedNodeName(const model::Pod& p) {
  return {p.view().nominated_node_name.ptr, p.view().nominated_node_name.len};
}

// Seconds since `start` on the steady clock (the event handlers' durations).
double handlingSecondsSince(std::chrono::steady_clock::time_point start) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

int64_t steadyNanos() {
  return std::chrono::duration_cast<std::chrono::nanoseconds>(
             std::chrono::steady_clock::now().time_since_epoch())
      .count();
}

}  // namespace

Scheduler::Scheduler(Frameworks frameworks, connectors::Connector& connector,
                     cycle::DecisionLog* log, SchedulerOptions options, queue::Clock* clock)
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
  objects_ = options_.objects;
  if (objects_ == nullptr) {
    ownedObjects_ = std::make_unique<connectors::ObjectStore>();
    objects_ = ownedObjects_.get();
  }
  connector_.watchKinds(*objects_);
  for (const auto& [name, fw] : frameworks_) {
    if (fw != nullptr) {
      generation_ = std::max(generation_, fw->generation());
    }
  }
  queue_ = std::make_unique<queue::SchedulingQueue>(
      queueProfiles(frameworks_, !options_.extenders.empty()), options_.queue, clock_);
  if (options_.metrics != nullptr) {
    queue_->setMetrics(options_.metrics);  // the queueing hints' durations
    filterGoroutines_ = &options_.metrics->goroutines.with({metrics::kOperationFilter});
    scoreGoroutines_ = &options_.metrics->goroutines.with({metrics::kOperationScore});
    extenderGoroutines_ =
        &options_.metrics->goroutines.with({metrics::kOperationPrioritizingExtender});
  }
  options_.maxConcurrentBindings = std::max(1, options_.maxConcurrentBindings);
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
  cancelBindings(nullptr);
  // Threads only start under bindMu_ from the loop (binding cycles, preemptions), which no
  // longer runs: the list is complete, and each thread drains the queued jobs before it ends.
  std::vector<BindThread> threads;
  {
    std::lock_guard<std::mutex> lock(bindMu_);
    threads.swap(bindThreads_);
  }
  for (BindThread& t : threads) {
    t.thread.join();
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

Scheduler::PendingOutcome Scheduler::pendingOutcome() const {
  // Every unbound pod is in one sub-queue, or given up; none is in flight between runs.
  const queue::PendingCounts q = queue_->pendingCounts();
  PendingOutcome out;
  out.unschedulable = q.unschedulable + q.backoff;
  out.pending = q.active + q.gated;
  std::lock_guard<std::mutex> lock(podsMu_);
  out.failed = failedPods_.size();
  return out;
}

std::size_t Scheduler::pendingPodCount() const {
  std::lock_guard<std::mutex> genLock(genMu_);
  std::lock_guard<std::mutex> lock(podsMu_);
  std::size_t n = 0;
  for (const auto& [uid, pod] : pods_) {
    if (!assigned(*pod) && responsibleFor(*pod)) {
      ++n;
    }
  }
  return n;
}

bool Scheduler::responsibleFor(const model::Pod& pod) const { return servedBy(frameworks_, pod); }

bool Scheduler::servedBy(const Frameworks& frameworks, const model::Pod& pod) const {
  const sh_pod& v = pod.view();
  return frameworks.find(std::string_view(v.scheduler_name.ptr, v.scheduler_name.len)) !=
         frameworks.end();
}

// ---------------------------------------------------------------------------------------
// Profile generations.

void Scheduler::installFrameworks(Frameworks next, uint64_t generation) {
  std::lock_guard<std::mutex> lock(genMu_);
  pendingFrameworks_.emplace(std::move(next), generation);
  GenerationTiming& t = timings_[generation];
  t.generation = generation;
  t.installedNanos = steadyNanos();
  while (timings_.size() > 256) {
    timings_.erase(timings_.begin());
  }
  swapPending_.store(true, std::memory_order_release);
}

uint64_t Scheduler::generation() const {
  std::lock_guard<std::mutex> lock(genMu_);
  return generation_;
}

std::optional<GenerationTiming> Scheduler::timingOf(uint64_t generation) const {
  std::lock_guard<std::mutex> lock(genMu_);
  auto it = timings_.find(generation);
  if (it == timings_.end()) {
    return std::nullopt;
  }
  return it->second;
}

void Scheduler::swapGeneration() {
  if (!swapPending_.load(std::memory_order_acquire)) {
    return;
  }
  Frameworks old;
  {
    std::lock_guard<std::mutex> lock(genMu_);
    swapPending_.store(false, std::memory_order_relaxed);
    if (!pendingFrameworks_) {
      return;
    }
    auto [next, number] = std::move(*pendingFrameworks_);
    pendingFrameworks_.reset();
    Retired retired;
    retired.generation = generation_;
    retired.since = std::chrono::steady_clock::now();
    for (const auto& [name, fw] : frameworks_) {
      retired.frameworks.push_back(fw);
    }
    retired_.push_back(std::move(retired));
    old = std::exchange(frameworks_, std::move(next));
    generation_ = number;
    firstCycleOnGeneration_ = false;
    timings_[number].appliedNanos = steadyNanos();
  }
  // Pods of removed profiles leave the queue; they stay in pods_ (podsWithoutProfile).
  queue_->setProfiles(queueProfiles(frameworks_, !options_.extenders.empty()));
  // Pods whose schedulerName gained a profile join the queue (a scan of every known pod, so
  // only when a profile appeared).
  const bool added = std::any_of(frameworks_.begin(), frameworks_.end(),
                                 [&old](const auto& entry) { return !old.contains(entry.first); });
  std::vector<std::shared_ptr<const model::Pod>> adopted;
  if (added) {
    std::lock_guard<std::mutex> lock(podsMu_);
    for (const auto& [uid, pod] : pods_) {
      if (!assigned(*pod) && responsibleFor(*pod) && !servedBy(old, *pod)) {
        adopted.push_back(pod);
      }
    }
  }
  for (const auto& pod : adopted) {
    if (!cache_.isAssumedPod(std::string(pod->uid()))) {
      queue_->add(pod);
    }
  }
  // `old` goes here; cycles still running on it keep their own references.
}

std::size_t Scheduler::checkRetiredGenerations(std::chrono::seconds limit) {
  std::lock_guard<std::mutex> lock(genMu_);
  const auto now = std::chrono::steady_clock::now();
  std::erase_if(retired_, [](const Retired& r) {
    return std::all_of(r.frameworks.begin(), r.frameworks.end(),
                       [](const std::weak_ptr<const Framework>& w) { return w.expired(); });
  });
  for (Retired& r : retired_) {
    if (!r.warned && now - r.since > limit) {
      r.warned = true;
      spdlog::warn(
          "profile generation {} is still in use {} s after it was replaced (a pod waiting on "
          "Permit, or a binding cycle, holds it)",
          r.generation, std::chrono::duration_cast<std::chrono::seconds>(now - r.since).count());
    }
  }
  return retired_.size();
}

SchedulerStatus Scheduler::status() const {
  SchedulerStatus out;
  {
    std::lock_guard<std::mutex> lock(genMu_);
    out.generation = generation_;
    for (const auto& [name, fw] : frameworks_) {
      out.profiles.push_back(name);
    }
    const auto now = std::chrono::steady_clock::now();
    for (const Retired& r : retired_) {
      const bool held =
          std::any_of(r.frameworks.begin(), r.frameworks.end(),
                      [](const std::weak_ptr<const Framework>& w) { return !w.expired(); });
      if (held) {
        out.retiredInUse.emplace_back(r.generation,
                                      std::chrono::duration<double>(now - r.since).count());
      }
    }
    std::lock_guard<std::mutex> podsLock(podsMu_);
    for (const auto& [uid, pod] : pods_) {
      if (!assigned(*pod) && !servedBy(frameworks_, *pod)) {
        const sh_pod& v = pod->view();
        out.podsWithoutProfile.emplace_back(
            podKey(v), std::string(v.scheduler_name.ptr, v.scheduler_name.len));
      }
    }
  }
  std::sort(out.podsWithoutProfile.begin(), out.podsWithoutProfile.end());
  out.queue = queue_->pendingCounts();
  {
    std::lock_guard<std::mutex> lock(bindMu_);
    out.bindingsInFlight = bindingsInFlight_ - preemptionsInFlight_;
    out.preemptionsInFlight = preemptionsInFlight_;
  }
  return out;
}

// ---------------------------------------------------------------------------------------
// The loop.

void Scheduler::applyChanges(std::chrono::milliseconds wait) {
  // Everything already there in one batch (one call into the connector, not one per change),
  // then whatever came meanwhile, without waiting.
  std::vector<connectors::ClusterChange> batch;
  for (auto timeout = wait; connector_.nextBatch(batch, timeout) > 0;
       timeout = std::chrono::milliseconds(0)) {
    for (const connectors::ClusterChange& c : batch) {
      handleChange(c);
    }
    batch.clear();
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
  swapGeneration();
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
  synced_.store(true);
  lastRetiredCheck_ = std::chrono::steady_clock::now();
  while (!stopping_.load()) {
    if (!follow && !inputOver_.load() && connector_.exhausted()) {
      inputOver_.store(true);
    }
    swapGeneration();
    if (const auto now = std::chrono::steady_clock::now();
        now - lastRetiredCheck_ > std::chrono::seconds(1)) {
      lastRetiredCheck_ = now;
      checkRetiredGenerations(drainWarning_);
    }
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
  waitForBindingsAfterStop();
  // Apply what the last bindings produced, so the cluster and the cache agree.
  applyChanges(std::chrono::milliseconds(0));
  return stats();
}

// ---------------------------------------------------------------------------------------
// Event handlers (upstream eventhandlers.go). Each records its time under its event's label in
// scheduler_event_handling_duration_seconds as upstream's does: the whole handler for an add
// or a delete; for an update with several derived events, the cache update plus that event's
// move, per event.

void Scheduler::observeEventHandling(std::string_view event, double seconds) {
  auto it = eventHandlingHistograms_.find(event);
  if (it == eventHandlingHistograms_.end()) {
    it = eventHandlingHistograms_
             .emplace(std::string(event), &options_.metrics->eventHandlingDuration.with({event}))
             .first;
  }
  it->second->observe(seconds);
}

void Scheduler::handleChange(const connectors::ClusterChange& c) {
  using Type = connectors::ClusterChange::Type;
  if (c.kind == connectors::ClusterChange::Kind::kObject) {
    onObjectChange(c);
    return;
  }
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

void Scheduler::onObjectChange(const connectors::ClusterChange& c) {
  const auto start = std::chrono::steady_clock::now();
  std::vector<connectors::ObjectEvent> events;
  const bool deleted = c.type == connectors::ClusterChange::Type::kDeleted;
  if (c.relist != nullptr) {
    objects_->replace(c.objectKind, *c.relist, events);
  } else if (c.objectKind == connectors::ClusterChange::kByApiKind) {
    objects_->applyByKind(deleted, c.object, events);
  } else {
    objects_->apply(c.objectKind, deleted, c.object, events);
  }
  for (const connectors::ObjectEvent& ev : events) {
    if (ev.kind >= kindInfo_.size()) {
      kindInfo_ = objects_->kinds();
      if (ev.kind >= kindInfo_.size()) {
        continue;
      }
    }
    const connectors::ObjectKind& kind = kindInfo_[ev.kind].spec;
    queue::ClusterEvent event{connectors::eventResourceOf(kind, ev.kind), ev.action, {}};
    if (event.resource >= connectors::kObjectEventResourceBase) {
      // Upstream labels a custom resource's event "<resource>.<version>.<group><Action>".
      event.customLabel = kind.resourceName() + std::string(queue::actionName(ev.action));
    }
    auto hold = [&](const connectors::ObjectPtr& o) {
      return o == nullptr ? queue::EventObject() : queue::EventObject(o, &o->view(), ev.kind);
    };
    const auto moving = std::chrono::steady_clock::now();
    queue_->moveAllToActiveOrBackoffQueue(event, hold(ev.oldObject), hold(ev.newObject));
    if (timesEvents()) {
      // The store's update, then this event's move, as a node update's events.
      observeEventHandling(event.label(), std::chrono::duration<double>(moving - start).count() +
                                              handlingSecondsSince(moving));
    }
  }
}

std::shared_ptr<const connectors::ObjectSnapshot> Scheduler::objectSnapshot() {
  const uint64_t generation = objects_->generation();
  // A profile whose plugins declare no kind pays one atomic load per cycle.
  if (generation != objectSnapshotGeneration_) {
    objectSnapshot_ = objects_->kindCount() == 0 ? nullptr : objects_->snapshot();
    objectSnapshotGeneration_ = generation;
  }
  return objectSnapshot_;
}

void Scheduler::onNodeAdd(const std::shared_ptr<const model::Node>& node) {
  const auto start = std::chrono::steady_clock::now();
  const queue::ClusterEvent added{SH_RESOURCE_NODE, SH_ACTION_ADD, {}};
  Status s = cache_.addNode(node);
  if (!s.ok()) {
    spdlog::warn("cache: {}", s.message());
  }
  queue_->moveAllToActiveOrBackoffQueue(added, nullptr, node);
  if (timesEvents()) {
    observeEventHandling(added.label(), handlingSecondsSince(start));
  }
}

void Scheduler::onNodeUpdate(const std::shared_ptr<const model::Node>& old,
                             const std::shared_ptr<const model::Node>& cur) {
  const auto start = std::chrono::steady_clock::now();
  Status s = cache_.updateNode(old, cur);
  if (!s.ok()) {
    spdlog::warn("cache: {}", s.message());
  }
  const std::vector<queue::ClusterEvent> events = queue::nodeUpdateEvents(*old, *cur);
  const double updating = handlingSecondsSince(start);
  for (const queue::ClusterEvent& ev : events) {
    const auto moving = std::chrono::steady_clock::now();
    queue_->moveAllToActiveOrBackoffQueue(ev, old, cur);
    if (timesEvents()) {
      observeEventHandling(ev.label(), updating + handlingSecondsSince(moving));
    }
  }
}

void Scheduler::onNodeDelete(const std::shared_ptr<const model::Node>& node) {
  const auto start = std::chrono::steady_clock::now();
  const queue::ClusterEvent deleted{SH_RESOURCE_NODE, SH_ACTION_DELETE, {}};
  queue_->moveAllToActiveOrBackoffQueue(deleted, node, nullptr);
  Status s = cache_.removeNode(*node);
  if (!s.ok()) {
    spdlog::warn("cache: {}", s.message());
  }
  if (timesEvents()) {
    observeEventHandling(deleted.label(), handlingSecondsSince(start));
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
  const auto start = std::chrono::steady_clock::now();
  if (assigned(*pod)) {
    const queue::ClusterEvent added{SH_RESOURCE_ASSIGNED_POD, SH_ACTION_ADD, {}};
    Status s = cache_.addPod(pod);
    if (!s.ok()) {
      spdlog::warn("cache: {}", s.message());
    }
    queue_->moveAllToActiveOrBackoffQueue(added, nullptr, pod);
    if (timesEvents()) {
      observeEventHandling(added.label(), handlingSecondsSince(start));
    }
    return;
  }
  if (responsibleFor(*pod)) {
    queue_->add(pod);
    if (timesEvents()) {
      observeEventHandling(queue::kUnschedulablePodAdd, handlingSecondsSince(start));
    }
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
    // A pod given up on stays so (its own status patch comes back here), unless bound.
    if (!failedPods_.empty() && failedPods_.contains(uid)) {
      if (!assigned(*cur)) {
        return;
      }
      failedPods_.erase(uid);
    }
  }
  auto start = std::chrono::steady_clock::now();
  if (assigned(*old)) {
    // Upstream updateAssignedPodInCache: AssignedPodUpdate for the whole handler, and each
    // derived event for the cache update plus its move.
    Status s = cache_.updatePod(old, cur);
    if (!s.ok()) {
      spdlog::warn("cache: {}", s.message());
    }
    const std::vector<queue::ClusterEvent> events = queue::podUpdateEvents(*old, *cur);
    const double updating = handlingSecondsSince(start);
    for (const queue::ClusterEvent& ev : events) {
      const auto moving = std::chrono::steady_clock::now();
      queue_->moveAllToActiveOrBackoffQueue(ev, old, cur);
      if (timesEvents()) {
        observeEventHandling(ev.label(), updating + handlingSecondsSince(moving));
      }
    }
    if (timesEvents()) {
      observeEventHandling(
          queue::ClusterEvent{SH_RESOURCE_ASSIGNED_POD, SH_ACTION_UPDATE, {}}.label(),
          handlingSecondsSince(start));
    }
    return;
  }
  if (assigned(*cur)) {
    if (!attempts_.empty()) {
      attempts_.forget(podKey(cur->view()));
    }
    // Bound (by us or by someone else): it leaves the queue and joins the cache, where it
    // replaces the copy we assumed.
    if (responsibleFor(*old)) {
      queue_->remove(old);
      if (timesEvents()) {
        observeEventHandling(queue::kUnschedulablePodDelete, handlingSecondsSince(start));
      }
    }
    start = std::chrono::steady_clock::now();
    const queue::ClusterEvent added{SH_RESOURCE_ASSIGNED_POD, SH_ACTION_ADD, {}};
    Status s = cache_.addPod(cur);
    if (!s.ok()) {
      spdlog::warn("cache: {}", s.message());
    }
    queue_->moveAllToActiveOrBackoffQueue(added, nullptr, cur);
    if (timesEvents()) {
      observeEventHandling(added.label(), handlingSecondsSince(start));
    }
    return;
  }
  if (!responsibleFor(*cur)) {
    return;
  }
  // Upstream updatePodInSchedulingQueue: UnschedulablePodUpdate for the whole handler, and
  // the same duration under each other label the update derives (UnschedulablePodUpdatePodLabel,
  // ...).
  struct Observe {
    Scheduler& scheduler;
    const model::Pod& old;
    const model::Pod& cur;
    std::chrono::steady_clock::time_point start;
    ~Observe() {
      if (!scheduler.timesEvents()) {
        return;
      }
      const double seconds = handlingSecondsSince(start);
      scheduler.observeEventHandling(queue::kUnschedulablePodUpdate, seconds);
      for (const queue::ClusterEvent& ev : queue::podUpdateEvents(old, cur)) {
        if (const std::string label = ev.label(); label != queue::kUnschedulablePodUpdate) {
          scheduler.observeEventHandling(label, seconds);
        }
      }
    }
  } observe{*this, *old, *cur, start};
  if (cache_.isAssumedPod(uid)) {
    // An assumed pod is not in the queue; its deletion starting is handled as a deletion
    // (upstream updatePodInSchedulingQueue).
    if (cur->view().deleting != 0 && old->view().deleting == 0) {
      handleAssumedPodDeletion(*cur);
    }
    return;
  }
  queue_->update(old, cur);
  if (nominatedNodeName(*old).size() > 0 && nominatedNodeName(*old) != nominatedNodeName(*cur)) {
    // The pod no longer holds room on its old nominated node, where pods of lower or equal
    // priority counted it as placed: as if it had left that node.
    moveLowerOrEqualPriority(old);
  }
}

void Scheduler::moveLowerOrEqualPriority(const std::shared_ptr<const model::Pod>& pod) {
  // Upstream eventhandlers.go: MoveAllToActiveOrBackoffQueue(EventAssignedPodDelete, pod,
  // nil, getLEPriorityPreCheck(priority)).
  const int32_t priority = pod->view().priority;
  queue_->moveAllToActiveOrBackoffQueue(
      queue::ClusterEvent{SH_RESOURCE_ASSIGNED_POD, SH_ACTION_DELETE, {}}, pod, nullptr,
      [priority](const queue::QueuedPodInfo& other) {
        return other.pod->view().priority <= priority;
      });
}

void Scheduler::handleAssumedPodDeletion(const model::Pod& pod) {
  // Upstream eventhandlers.go: handleAssumedPodDeletion. The cached copy is the one that holds
  // room on its node.
  const std::string uid = str(pod.view().uid);
  std::shared_ptr<const model::Pod> cached = cache_.getPod(uid);
  if (cached == nullptr) {
    return;  // its binding cycle already finished with it
  }
  // Waiting on Permit: rejected, and its binding cycle forgets it. Past Permit (PreBind,
  // Bind): forgotten here so its room is free at once; the binding then fails.
  auto waiting = waitingPods_.get(uid);
  cancelBindings(&uid);  // a PreBind waiting on the cluster for it stops waiting
  if (waiting == nullptr || !waiting->reject("", "removed")) {
    Status s = cache_.forgetPod(cached);
    if (!s.ok()) {
      spdlog::warn("cache: {}", s.message());
    }
  }
  queue_->moveAllToActiveOrBackoffQueue(
      queue::ClusterEvent{SH_RESOURCE_ASSIGNED_POD, SH_ACTION_DELETE, {}}, cached, nullptr);
}

void Scheduler::onPodDelete(const std::shared_ptr<const model::Pod>& pod) {
  const std::string uid = str(pod->view().uid);
  {
    std::lock_guard<std::mutex> lock(podsMu_);
    pods_.erase(uid);
    failedPods_.erase(uid);
    failuresAfterInput_.erase(uid);
  }
  if (!attempts_.empty()) {
    attempts_.forget(podKey(pod->view()));
  }
  const auto start = std::chrono::steady_clock::now();
  const queue::ClusterEvent deleted{SH_RESOURCE_ASSIGNED_POD, SH_ACTION_DELETE, {}};
  if (assigned(*pod)) {
    Status s = cache_.removePod(*pod);
    if (!s.ok()) {
      spdlog::warn("cache: {}", s.message());
    }
    queue_->moveAllToActiveOrBackoffQueue(deleted, pod, nullptr);
    if (timesEvents()) {
      observeEventHandling(deleted.label(), handlingSecondsSince(start));
    }
    return;
  }
  if (!responsibleFor(*pod)) {
    return;
  }
  queue_->remove(pod);
  if (cache_.isAssumedPod(uid)) {
    handleAssumedPodDeletion(*pod);
  } else if (!nominatedNodeName(*pod).empty()) {
    // Pods of lower or equal priority counted it as placed on its nominated node.
    moveLowerOrEqualPriority(pod);
  }
  if (timesEvents()) {
    observeEventHandling(queue::kUnschedulablePodDelete, handlingSecondsSince(start));
  }
}

std::optional<Scheduler::ClusterCopy> Scheduler::clusterCopyFor(std::string_view podKey) const {
  ClusterCopy copy;
  copy.pod = queue_->pendingPod(podKey);
  if (copy.pod == nullptr) {
    return std::nullopt;
  }
  std::tie(copy.nodes, copy.pods) = cache_.objects();
  copy.objects = connector_.clusterObjects();
  if (objects_ != nullptr) {
    if (std::shared_ptr<const connectors::ObjectSnapshot> snapshot = objects_->snapshot()) {
      for (const connectors::KindVersionPtr& kind : snapshot->kinds) {
        if (kind != nullptr) {
          copy.kindObjects.insert(copy.kindObjects.end(), kind->objects().begin(),
                                  kind->objects().end());
        }
      }
    }
  }
  return copy;
}

}  // namespace sh::cycle
