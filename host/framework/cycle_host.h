// CycleHost: what a scheduling cycle offers its plugins beyond the snapshot — the pods
// nominated to a node, the host's workers, a seeded random source, and the actuation of a
// preemption. The running scheduler implements it over its queue, parallelizer and cluster
// connector; `schedhost evaluate` over nothing at all, recording instead of acting.
//
// A CycleState points at the CycleHost and the Framework of its cycle (sh_cycle::host,
// ::framework); the preemption services of the ABI (sim_*, parallel_for, cycle_random,
// preempt_victims) reach the host through them.
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include <schedhost/plugin.h>

#include "host/common/status.h"
#include "host/model/pod.h"

namespace sh {

class CycleHost {
 public:
  virtual ~CycleHost() = default;

  // Pods nominated to `node` with priority >= pod's, other than `pod` itself: the pods a
  // Filter run on that node must treat as present (upstream
  // framework/runtime/framework.go: RunFilterPluginsWithNominatedPods).
  virtual std::vector<std::shared_ptr<const model::Pod>> nominatedPodsFor(std::string_view node,
                                                                          const sh_pod& pod) = 0;
  // Runs fn(i) for i in [0, n); may use several threads.
  virtual void parallelFor(std::size_t n, const std::function<void(std::size_t)>& fn) = 0;
  // The next number of the cycle's seeded generator.
  virtual uint64_t random() = 0;
  // Evicts `victims` so that `preemptor` fits `node` (upstream
  // framework/preemption/executor.go: prepareCandidate). Returns an
  // Error status naming every eviction that failed.
  virtual Status preempt(const sh_pod& preemptor, std::string_view node,
                         const std::vector<const sh_pod*>& victims) = 0;

  // A node where evicting `victims` (pods of the cycle's snapshot) lets the preemptor fit.
  struct PreemptionCandidate {
    std::string node;
    std::vector<const sh_pod*> victims;
    uint32_t pdbViolations = 0;
  };
  // Leaves in `candidates` what the extenders that take part in preemption keep (upstream
  // preemption.go: Evaluator.callExtenders); an Error status when one that is not ignorable
  // failed. The default has no extenders: the candidates stay as they are.
  virtual Status filterPreemptionCandidates(const sh_pod& preemptor,
                                            std::vector<PreemptionCandidate>& candidates) {
    (void)preemptor;
    (void)candidates;
    return Status();
  }
};

}  // namespace sh
