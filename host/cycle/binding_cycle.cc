// The binding cycle (upstream schedule_one.go: bindingCycle, runBindingCycle): each on a thread
// of its own, as upstream starts a goroutine for each, so the next pod's scheduling cycle
// starts at once and a slow binding holds up no other.
#include <spdlog/spdlog.h>

#include "host/common/quoted.h"
#include "host/cycle/pod_text.h"
#include "host/cycle/scheduler.h"

namespace sh::cycle {

namespace {

// Idle binding threads beyond this many end after kBindThreadIdle without work.
constexpr std::size_t kBindThreadsKept = 4;
constexpr auto kBindThreadIdle = std::chrono::seconds(10);

}  // namespace

void Scheduler::startBindingCycle(std::shared_ptr<const Framework> fw,
                                  std::unique_ptr<CycleState> cycle, queue::QueuedPodInfoPtr info,
                                  std::shared_ptr<const model::Pod> assumed, std::string host,
                                  int64_t startNanos, std::shared_ptr<WaitingPod> waiting) {
  // The cycle state outlives the scheduling cycle; the snapshot it points at does not.
  cycle->snapshot = nullptr;
  // What cancels the plugins' waits (cycle_wait): a stop past its grace, the pod's deletion.
  auto cancel = std::make_shared<CycleCancel>();
  cycle->cancel = cancel;
  std::string uid(assumed->view().uid.ptr, assumed->view().uid.len);
  auto job = [this, fw = std::move(fw), cycle = std::shared_ptr<CycleState>(std::move(cycle)),
              info = std::shared_ptr<queue::QueuedPodInfo>(std::move(info)),
              assumed = std::move(assumed), host = std::move(host), startNanos,
              waiting = std::move(waiting), uid, cancel]() {
    bindingCycle(fw, *cycle, info, assumed, host, startNanos, waiting);
    std::lock_guard<std::mutex> lock(bindMu_);
    if (auto it = bindingCancels_.find(uid); it != bindingCancels_.end() && it->second == cancel) {
      bindingCancels_.erase(it);
    }
  };
  std::lock_guard<std::mutex> lock(bindMu_);
  bindingCancels_[std::move(uid)] = std::move(cancel);
  ++bindingsInFlight_;
  enqueuePoolJobLocked(std::move(job));
}

void Scheduler::enqueuePoolJobLocked(std::function<void()> job) {
  bindJobs_.push_back(std::move(job));
  // Every queued job needs a thread of its own: an idle one that has not yet taken a job, or
  // a new one. At the limit it waits for a running one to finish.
  if (bindThreadsIdle_ >= bindJobs_.size() ||
      bindThreadsAlive_ >= static_cast<std::size_t>(options_.maxConcurrentBindings)) {
    bindCv_.notify_one();
    return;
  }
  std::erase_if(bindThreads_, [](BindThread& t) {
    if (!t.finished->load()) {
      return false;
    }
    t.thread.join();  // it has returned from bindingWorker: at once
    return true;
  });
  auto finished = std::make_shared<std::atomic<bool>>(false);
  ++bindThreadsAlive_;
  bindThreads_.push_back(
      {std::thread([this, finished] { bindingWorker(finished); }), std::move(finished)});
}

void Scheduler::cancelBindings(const std::string* uid) {
  std::lock_guard<std::mutex> lock(bindMu_);
  if (uid == nullptr) {
    for (auto& [_, cancel] : bindingCancels_) {
      cancel->cancel(SH_WAIT_STOPPING);
    }
    return;
  }
  if (auto it = bindingCancels_.find(*uid); it != bindingCancels_.end()) {
    it->second->cancel(SH_WAIT_POD_DELETED);
  }
}

void Scheduler::bindingFinished() {
  std::lock_guard<std::mutex> lock(bindMu_);
  --bindingsInFlight_;
  if (bindingsInFlight_ == 0) {
    bindIdleCv_.notify_all();
  }
}

void Scheduler::bindingWorker(const std::shared_ptr<std::atomic<bool>>& finished) {
  std::unique_lock<std::mutex> lock(bindMu_);
  for (;;) {
    ++bindThreadsIdle_;
    const bool woken = bindCv_.wait_for(lock, kBindThreadIdle,
                                        [&] { return bindStopping_ || !bindJobs_.empty(); });
    --bindThreadsIdle_;
    if (bindJobs_.empty()) {
      if (bindStopping_ || (!woken && bindThreadsAlive_ > kBindThreadsKept)) {
        --bindThreadsAlive_;
        finished->store(true);
        return;
      }
      continue;
    }
    {
      std::function<void()> job = std::move(bindJobs_.front());
      bindJobs_.pop_front();
      lock.unlock();
      job();
    }  // the cycle's state and framework are let go before the binding counts as over
    bindingFinished();
    lock.lock();
  }
}

void Scheduler::waitForBindingsForTest() {
  std::unique_lock<std::mutex> lock(bindMu_);
  bindIdleCv_.wait(lock, [&] { return bindingsInFlight_ == 0; });
}

bool Scheduler::waitForBindingsAfterStop() {
  const std::chrono::milliseconds grace = options_.stopGrace;
  if (grace.count() <= 0) {
    waitForBindingsForTest();
    return true;
  }
  auto idle = [&] { return bindingsInFlight_ == 0; };
  std::unique_lock<std::mutex> lock(bindMu_);
  if (bindIdleCv_.wait_for(lock, grace, idle)) {
    return true;
  }
  spdlog::warn(
      "stopping: {} binding cycle(s) still running after {} ms; rejecting the pods "
      "waiting on Permit and cancelling the plugins' waits",
      bindingsInFlight_, grace.count());
  lock.unlock();
  waitingPods_.rejectAll("scheduler is stopping");
  cancelBindings(nullptr);
  lock.lock();
  return bindIdleCv_.wait_for(lock, grace, idle);
}

void Scheduler::bindingCycle(const std::shared_ptr<const Framework>& fw, CycleState& cycle,
                             const std::shared_ptr<queue::QueuedPodInfo>& info,
                             const std::shared_ptr<const model::Pod>& assumed,
                             const std::string& host, int64_t startNanos,
                             const std::shared_ptr<WaitingPod>& waiting) {
  const sh_pod& pod = assumed->view();
  const std::string uid(pod.uid.ptr, pod.uid.len);
  const queue::ClusterEvent assignedPodDelete{SH_RESOURCE_ASSIGNED_POD, SH_ACTION_DELETE, {}};
  // Every binding failure clears the nomination (upstream handleBindingCycleError).
  const queue::NominatingInfo clearNomination = queue::NominatingInfo::overrideWith("");
  auto fail = [&](Status s, bool permitRejection) {
    fw->runUnreserve(cycle, pod, host);
    const bool forgotten = cache_.forgetPod(assumed).ok();
    // A Permit rejection is a FitError on the chosen node. Failures after WaitOnPermit are
    // never "unschedulable by plugin": no FitError, so no rejector plugins and the error
    // backoff, though a PreBind or Bind rejection still reports reason Unschedulable
    // (upstream bindingCycle, handleSchedulingFailure).
    FitError fe;
    const bool fit = permitRejection && s.isRejected();
    if (fit) {
      fe.numAllNodes = 1;
      fe.diagnosis.addPluginStatus(s);
      fe.diagnosis.nodeToStatus.set(host, s);
    }
    // The forgotten pod freed its node: an AssignedPodDelete. After a rejection it comes after
    // the failure handler and leaves the pod itself out, so the event cannot requeue it
    // (upstream handleBindingCycleError).
    const bool rejected = s.isRejected();
    if (forgotten && !rejected) {
      queue_->moveAllToActiveOrBackoffQueue(assignedPodDelete, assumed, nullptr);
    }
    handleSchedulingFailure(*fw, std::make_unique<queue::QueuedPodInfo>(*info), s,
                            fit ? &fe : nullptr, clearNomination, startNanos);
    if (forgotten && rejected) {
      queue_->moveAllToActiveOrBackoffQueue(
          assignedPodDelete, assumed, nullptr,
          [&uid](const queue::QueuedPodInfo& other) { return other.pod->uid() != uid; });
    }
  };

  if (waiting != nullptr) {
    const int64_t waitStart = nowNanos();
    Status ws = waiting->wait();
    waitingPods_.remove(uid);
    if (options_.metrics != nullptr) {
      // upstream WaitOnPermit: PermitWaitDuration{result: the status code's name}.
      options_.metrics->permitWaitDuration.with({metrics::statusLabel(ws.code())})
          .observe(static_cast<double>(nowNanos() - waitStart) / 1e9);
    }
    if (!ws.ok()) {
      if (!ws.isRejected()) {
        ws.wrap("waiting on permit for pod: ");
        ws.setCode(SH_ERROR);
      }
      fail(std::move(ws), true);
      return;
    }
  }
  queue_->done(uid);

  Status pb = fw->runPreBind(cycle, pod, host);
  if (!pb.ok()) {
    fail(std::move(pb), false);
    return;
  }
  // An interested binding extender binds in place of the Bind plugins (upstream bind).
  std::optional<Status> byExtender;
  if (!options_.extenders.empty()) {
    byExtender = bindWithExtenders(*assumed, host);
  }
  Status b = byExtender ? std::move(*byExtender) : fw->runBind(cycle, pod, host);
  if (byExtender) {
    // The extender wrote the binding to the API server; the pod's watch confirms it.
  } else if (b.isSkip()) {
    b = Status(SH_ERROR, "no bind plugin bound the pod");
  } else if (b.ok() && connector_.knownUnbound(*assumed)) {
    // A Bind plugin that answers Success without binding: the pod is not scheduled.
    b = Status(SH_ERROR, "a Bind plugin reported pod " + podKey(pod) + " bound to node " +
                             quoted(host) + ", but the cluster has not bound it");
  }
  if (!b.ok()) {
    fail(std::move(b), false);
    return;
  }
  cache_.finishBinding(assumed);
  const double latencyMs = static_cast<double>(nowNanos() - startNanos) / 1e6;
  recordAttempt(metrics::kResultScheduled, fw->profileName(), startNanos);
  if (options_.metrics != nullptr) {
    const auto attempts = static_cast<uint64_t>(std::max(info->attempts, 1));
    options_.metrics->podSchedulingAttempts.only().observe(static_cast<double>(attempts));
    if (info->initialAttemptTimestamp) {
      options_.metrics->observePodScheduled(
          attempts, static_cast<double>(nowNanos() - *info->initialAttemptTimestamp) / 1e9);
    }
  }
  {
    std::lock_guard<std::mutex> lock(statsMu_);
    ++stats_.scheduled;
  }
  connector_.recordEvent({"Normal", "Scheduled", "Binding",
                          "Successfully assigned " + podKey(pod) + " to " + host, podKey(pod)});
  latencies_.record(latencyMs);
  if (log_ != nullptr) {
    cycle::BindingDecision d;
    d.pod = podKey(pod);
    d.node = host;
    d.profile = fw->profileName();
    d.generation = fw->generation();
    d.attempts = info->attempts;
    d.latencyMs = latencyMs;
    log_->binding(d);
  }
  fw->runPostBind(cycle, pod, host);
  // The end of a successful binding cycle (upstream schedule_one.go: bindingCycle,
  // PodsToActivate).
  if (std::vector<std::string> keys = cycle.takePodsToActivate(); !keys.empty()) {
    queue_->activateKeys(keys);
  }
}

}  // namespace sh::cycle
