// What the scheduler offers a cycle's plugins for preemption (CycleHost; upstream
// framework/runtime/framework.go and framework/preemption/executor.go): nominated pods, its
// workers, its seeded random source, and evictions.
//
// Evictions run inside the PostFilter call, before the preemptor's failure is handled, so
// the victims' deletions are already on their way when the preemptor goes back to the
// queue and the next cycle sees a consistent cluster. (Upstream's asynchronous variant
// gates the preemptor until the last deletion is issued; issuing them in line gives the
// same order of effects without the gate.)
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
  const std::string preemptorUid = str(preemptor.uid);
  const std::string nodeName(node);
  {
    std::lock_guard<std::mutex> lock(statsMu_);
    ++stats_.preemptions;
    stats_.preemptionVictims += victims.size();
    if (options_.metrics != nullptr) {
      options_.metrics->preemptionVictims.only().observe(static_cast<double>(victims.size()));
    }
  }

  // Pods of lower priority nominated to this node lose the nomination: the preemptor is
  // about to take the room they were promised.
  for (const auto& np : queue_->nominatedPodsForNode(nodeName)) {
    if (np->view().priority >= preemptor.priority || sameUid(np->view(), preemptor)) {
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
  const std::string message =
      str(preemptor.scheduler_name) + ": preempting to accommodate a higher priority pod";
  for (const sh_pod* v : victims) {
    const model::Pod* victim = model::Pod::fromView(v);
    const std::string key = podKey(*v);
    std::string event = "Preempted by pod " + preemptorUid + " on node " + nodeName;
    // A victim still waiting on Permit has not reached the cluster: preempted in memory, an
    // Error for its binding cycle, so it backs off instead of waiting in unschedulablePods for
    // an event (upstream executor.go: WaitingPod.Preempt).
    if (auto waiting = waitingPods_.get(str(v->uid)); waiting != nullptr) {
      waiting->preempt("DefaultPreemption", "preempted");
      connector_.recordEvent(
          {"Normal", "Preempted", "Preempting", event + " (in kube-scheduler memory).", key});
      continue;
    }
    Status s = connector_.preemptPod(*victim, message);
    if (!s.ok()) {
      if (out.ok()) {
        out = Status(SH_ERROR);
      }
      out.addReason("preempting " + key + ": " + s.message());
      continue;
    }
    connector_.recordEvent({"Normal", "Preempted", "Preempting", event, key});
  }
  return out;
}

}  // namespace sh::cycle
