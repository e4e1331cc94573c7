// What the scheduler offers a cycle's plugins for preemption (CycleHost; upstream
// framework/runtime/framework.go and framework/preemption/executor.go): nominated pods, its
// workers, its seeded random source, and evictions.
//
// Evictions run as upstream's SchedulerAsyncPreemption has them (on by default; off, they run
// within the PostFilter call, as prepareCandidate): preempt() records the preemptor as
// preempting and hands the evictions to the binding pool; the preemptor goes back to the queue,
// where DefaultPreemption's PreEnqueue holds it (preemption_running) until its last victim is
// gone or terminating. All victims but the last are evicted first; the last is recorded, then
// evicted, so that its deletion event — which may reach the queue before the evicting thread
// has finished — finds the preemptor no longer held. A failed eviction skips the last victim
// and activates the preemptor, which would otherwise wait for an event that never comes.
#include <algorithm>

#include <spdlog/spdlog.h>

#include "host/cycle/pod_text.h"
#include "host/cycle/scheduler.h"
#include "host/cycle/select_host.h"

namespace sh::cycle {
namespace {

bool sameUid(const sh_pod& a, const sh_pod& b) {
  return a.uid.len == b.uid.len && std::equal(a.uid.ptr, a.uid.ptr + a.uid.len, b.uid.ptr);
}

}  // namespace

std::vector<std::shared_ptr<const model::Pod>> Scheduler::nominatedPodsFor(std::string_view node,
                                                                           const sh_pod& pod) {
  std::vector<std::shared_ptr<const model::Pod>> out;
  for (auto& np : queue_->nominatedPodsForNode(node)) {
    const sh_pod& v = np->view();
    if (v.priority >= pod.priority && !sameUid(v, pod)) {
      out.push_back(std::move(np));
    }
  }
  return out;
}

void Scheduler::parallelFor(std::size_t n, const std::function<void(std::size_t)>& fn) {
  parallelizer_.until(n, fn);
}

uint64_t Scheduler::random() { return splitmix64(rngState_); }

Status Scheduler::preempt(const sh_pod& preemptor, std::string_view node,
                          const std::vector<const sh_pod*>& victims) {
  std::string preemptorUid = str(preemptor.uid);
  std::string schedulerName = str(preemptor.scheduler_name);
  std::string nodeName(node);
  {
    std::lock_guard<std::mutex> lock(statsMu_);
    ++stats_.preemptions;
    stats_.preemptionVictims += victims.size();
    if (options_.metrics != nullptr) {
      options_.metrics->preemptionVictims.only().observe(static_cast<double>(victims.size()));
    }
  }
  // Victims already terminating need no second deletion (upstream skips them too). Each is
  // kept alive for the evicting thread.
  std::vector<std::shared_ptr<const model::Pod>> toEvict;
  toEvict.reserve(victims.size());
  for (const sh_pod* v : victims) {
    if (v->deleting == 0) {
      toEvict.push_back(model::Pod::fromView(v)->shared_from_this());
    }
  }
  if (!options_.asyncPreemption) {
    return evictVictims(preemptorUid, schedulerName, preemptor.priority, nodeName, toEvict,
                        /*lastVictimTracked=*/false);
  }
  if (toEvict.empty()) {
    return Status();
  }
  {
    std::lock_guard<std::mutex> lock(preemptMu_);
    if (preempting_.insert(preemptorUid).second) {
      preemptingCount_.fetch_add(1, std::memory_order_release);
    }
  }
  auto job = [this, preemptorUid = std::move(preemptorUid),
              schedulerName = std::move(schedulerName), priority = preemptor.priority,
              nodeName = std::move(nodeName), toEvict = std::move(toEvict)]() {
    const auto start = std::chrono::steady_clock::now();
    Status s = evictVictims(preemptorUid, schedulerName, priority, nodeName, toEvict,
                            /*lastVictimTracked=*/true);
    {
      std::lock_guard<std::mutex> lock(preemptMu_);
      if (preempting_.erase(preemptorUid) > 0) {
        preemptingCount_.fetch_sub(1, std::memory_order_release);
      }
      lastVictims_.erase(preemptorUid);
    }
    std::shared_ptr<const model::Pod> latest;
    {
      std::lock_guard<std::mutex> lock(podsMu_);
      if (auto it = pods_.find(preemptorUid); it != pods_.end()) {
        latest = it->second;
      }
    }
    if (!s.ok()) {
      spdlog::error("preemption for pod {}: {}", preemptorUid, s.message());
      if (latest != nullptr) {
        queue_->activate({latest});  // upstream: fh.Activate of the preemptor
      }
    } else if (latest != nullptr) {
      // A last victim preempted while waiting on Permit leaves no deletion event behind that
      // would let the preemptor through; ask its gate again.
      queue_->retryGatedBy(model::podKey(*latest), "DefaultPreemption");
    }
    if (options_.metrics != nullptr) {
      const std::string_view result =
          s.ok() ? metrics::kGoroutineSuccess : metrics::kGoroutineError;
      options_.metrics->preemptionGoroutinesDuration.with({std::string(result)})
          .observe(std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count());
      options_.metrics->preemptionGoroutinesExecutions.with({std::string(result)}).inc();
    }
    std::lock_guard<std::mutex> lock(bindMu_);
    --preemptionsInFlight_;
  };
  std::lock_guard<std::mutex> lock(bindMu_);
  ++bindingsInFlight_;
  ++preemptionsInFlight_;
  enqueuePoolJobLocked(std::move(job));
  return Status();
}

Status Scheduler::evictVictims(const std::string& preemptorUid, const std::string& schedulerName,
                               int32_t priority, const std::string& node,
                               const std::vector<std::shared_ptr<const model::Pod>>& victims,
                               bool lastVictimTracked) {
  // Pods of lower priority nominated to this node lose the nomination: the preemptor is
  // about to take the room they were promised.
  for (const auto& np : queue_->nominatedPodsForNode(node)) {
    if (np->view().priority >= priority || np->uid() == preemptorUid) {
      continue;
    }
    queue_->deleteNominatedPodIfExists(np);
    Status s = connector_.clearNominatedNodeName(*np);
    if (!s.ok()) {
      spdlog::warn("preemption: clearing the nomination of {}: {}", podKey(np->view()),
                   s.message());
    }
  }
  Status out;
  auto fail = [&out](const model::Pod& victim, const Status& s) {
    if (out.ok()) {
      out = Status(SH_ERROR);
    }
    out.addReason("preempting " + podKey(victim.view()) + ": " + s.message());
  };
  const std::size_t last =
      lastVictimTracked && !victims.empty() ? victims.size() - 1 : victims.size();
  for (std::size_t i = 0; i < last; ++i) {
    if (Status s = evictVictim(*victims[i], preemptorUid, schedulerName, node); !s.ok()) {
      fail(*victims[i], s);
    }
  }
  if (last < victims.size() && out.ok()) {
    {
      std::lock_guard<std::mutex> lock(preemptMu_);
      lastVictims_[preemptorUid] = std::string(victims[last]->uid());
    }
    if (Status s = evictVictim(*victims[last], preemptorUid, schedulerName, node); !s.ok()) {
      fail(*victims[last], s);
    }
  }
  return out;
}

Status Scheduler::evictVictim(const model::Pod& victim, const std::string& preemptorUid,
                              const std::string& schedulerName, const std::string& node) {
  const std::string key = podKey(victim.view());
  const std::string event = "Preempted by pod " + preemptorUid + " on node " + node;
  // A victim still waiting on Permit has not reached the cluster: preempted in memory, an
  // Error for its binding cycle, so it backs off instead of waiting in unschedulablePods for
  // an event (upstream executor.go: WaitingPod.Preempt).
  if (auto waiting = waitingPods_.get(std::string(victim.uid())); waiting != nullptr) {
    if (waiting->preempt("DefaultPreemption", "preempted")) {
      connector_.recordEvent(
          {"Normal", "Preempted", "Preempting", event + " (in kube-scheduler memory).", key});
      return Status();
    }
  }
  Status s = connector_.preemptPod(victim, schedulerName +
                                               ": preempting to accommodate a higher "
                                               "priority pod");
  if (!s.ok()) {
    return s;
  }
  connector_.recordEvent({"Normal", "Preempted", "Preempting", event, key});
  return Status();
}

bool Scheduler::preemptionRunning(std::string_view uid) const {
  if (preemptingCount_.load(std::memory_order_acquire) == 0) {
    return false;
  }
  std::string victim;
  {
    std::lock_guard<std::mutex> lock(preemptMu_);
    const std::string preemptor(uid);
    if (!preempting_.contains(preemptor)) {
      return false;
    }
    auto it = lastVictims_.find(preemptor);
    if (it == lastVictims_.end()) {
      return true;  // still evicting the others
    }
    victim = it->second;
  }
  // Down to its last victim: done once that one is gone or terminating.
  std::lock_guard<std::mutex> lock(podsMu_);
  auto it = pods_.find(victim);
  return it != pods_.end() && it->second->view().deleting == 0;
}

}  // namespace sh::cycle
