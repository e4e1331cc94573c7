// The binding cycle (upstream schedule_one.go: bindingCycle): on the binding pool, so the next
// pod's scheduling cycle starts at once.
#include <spdlog/spdlog.h>

#include "host/cycle/pod_text.h"
#include "host/cycle/scheduler.h"

namespace sh::cycle {

void Scheduler::startBindingCycle(std::shared_ptr<const Framework> fw,
                                  std::unique_ptr<CycleState> cycle, queue::QueuedPodInfoPtr info,
                                  std::shared_ptr<const model::Pod> assumed, std::string host,
                                  int64_t startNanos, std::shared_ptr<WaitingPod> waiting) {
  // The cycle state outlives the scheduling cycle; the snapshot it points at does not.
  cycle->snapshot = nullptr;
  const bool waits = waiting != nullptr;
  auto job = [this, fw = std::move(fw), cycle = std::shared_ptr<CycleState>(std::move(cycle)),
              info = std::shared_ptr<queue::QueuedPodInfo>(std::move(info)),
              assumed = std::move(assumed), host = std::move(host), startNanos,
              waiting = std::move(waiting)]() {
    bindingCycle(fw, *cycle, info, assumed, host, startNanos, waiting);
  };
  std::lock_guard<std::mutex> lock(bindMu_);
  ++bindingsInFlight_;
  if (!waits) {
    bindJobs_.push_back(std::move(job));
    bindCv_.notify_one();
    return;
  }
  // Waiting on Permit in the pool would hold up every binding queued behind this one (with
  // one binding thread, all of them) until the pod is allowed or times out.
  std::erase_if(permitWaiters_, [](PermitWaiter& w) {
    if (!w.finished->load()) {
      return false;
    }
    w.thread.join();  // past bindingFinished(): returns at once
    return true;
  });
  auto finished = std::make_shared<std::atomic<bool>>(false);
  permitWaiters_.push_back({std::thread([this, job = std::move(job), finished] {
                              job();
                              bindingFinished();
                              finished->store(true);
                            }),
                            finished});
}

void Scheduler::bindingFinished() {
  std::lock_guard<std::mutex> lock(bindMu_);
  --bindingsInFlight_;
  if (bindingsInFlight_ == 0) {
    bindIdleCv_.notify_all();
  }
}

void Scheduler::bindingWorker() {
  for (;;) {
    std::function<void()> job;
    {
      std::unique_lock<std::mutex> lock(bindMu_);
      bindCv_.wait(lock, [&] { return bindStopping_ || !bindJobs_.empty(); });
      if (bindJobs_.empty()) {
        return;  // stopping and drained
      }
      job = std::move(bindJobs_.front());
      bindJobs_.pop_front();
    }
    job();
    bindingFinished();
  }
}

void Scheduler::waitForBindingsForTest() {
  std::unique_lock<std::mutex> lock(bindMu_);
  bindIdleCv_.wait(lock, [&] { return bindingsInFlight_ == 0; });
}

void Scheduler::bindingCycle(const std::shared_ptr<const Framework>& fw, CycleState& cycle,
                             const std::shared_ptr<queue::QueuedPodInfo>& info,
                             const std::shared_ptr<const model::Pod>& assumed,
                             const std::string& host, int64_t startNanos,
                             const std::shared_ptr<WaitingPod>& waiting) {
  const sh_pod& pod = assumed->view();
  const std::string uid(pod.uid.ptr, pod.uid.len);
  const queue::ClusterEvent assignedPodDelete{SH_RESOURCE_ASSIGNED_POD, SH_ACTION_DELETE, {}};
  auto fail = [&](Status s, bool permitRejection) {
    fw->runUnreserve(cycle, pod, host);
    const bool forgotten = cache_.forgetPod(assumed).ok();
    if (permitRejection && s.isRejected()) {
      FitError fe;
      fe.numAllNodes = 1;
      fe.diagnosis.addPluginStatus(s);
      fe.diagnosis.nodeToStatus.set(host, s);
      handleSchedulingFailure(*fw, std::make_unique<queue::QueuedPodInfo>(*info), s, &fe,
                              std::nullopt, startNanos);
      // After the failure handler, and not for the pod itself: the forgotten copy is the
      // rejected pod's own, and must not requeue it (upstream handleBindingCycleError).
      if (forgotten) {
        queue_->moveAllToActiveOrBackoffQueue(
            assignedPodDelete, assumed, nullptr,
            [&uid](const queue::QueuedPodInfo& other) { return other.pod->uid() != uid; });
      }
    } else {
      if (forgotten) {
        queue_->moveAllToActiveOrBackoffQueue(assignedPodDelete, assumed, nullptr);
      }
      if (s.isRejected() && !permitRejection) {
        // Failures after WaitOnPermit are never "unschedulable by plugin".
        s.setCode(SH_ERROR);
      }
      handleSchedulingFailure(*fw, std::make_unique<queue::QueuedPodInfo>(*info), s, nullptr,
                              std::nullopt, startNanos);
    }
  };

  if (waiting != nullptr) {
    Status ws = waiting->wait();
    waitingPods_.remove(uid);
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
  Status b = fw->runBind(cycle, pod, host);
  if (b.isSkip()) {
    b = Status(SH_ERROR, "no bind plugin bound the pod");
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
    connectors::BindingDecision d;
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
