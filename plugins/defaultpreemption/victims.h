// Choosing the victims on one node (upstream default_preemption.go: SelectVictimsOnNode):
// every pod of lower priority is taken off a copy of the node; if the preemptor then fits,
// pods are put back one by one, PDB-violating ones first, each in order of importance,
// and a pod stays (is reprieved) whenever the preemptor still fits with it.
#ifndef SCHEDHOST_PLUGINS_DEFAULTPREEMPTION_VICTIMS_H
#define SCHEDHOST_PLUGINS_DEFAULTPREEMPTION_VICTIMS_H

#include <schedhost/plugin.hpp>

#include <cstdint>
#include <vector>

namespace schedhost::plugins::defaultpreemption {

// A pod's start time for ordering: status.startTime, or `now` when it has none.
inline int64_t startTime(const sh_pod& pod, int64_t now) noexcept {
  return pod.start_unix_nanos != 0 ? pod.start_unix_nanos : now;
}

// MoreImportantPod: higher priority first, then the pod that started earlier.
inline bool moreImportant(const sh_pod& a, const sh_pod& b, int64_t now) noexcept {
  if (a.priority != b.priority) {
    return a.priority > b.priority;
  }
  return startTime(a, now) < startTime(b, now);
}

// Whether the pod is terminating because the scheduler preempted it: deletionTimestamp set
// and the condition DisruptionTarget (its first one) True with reason PreemptionByScheduler.
bool terminatingByPreemption(const sh_pod& pod) noexcept;

// Splits `pods` (kept in order) into those whose eviction would exceed a PodDisruptionBudget
// and the others, spending each matching budget's disruptionsAllowed as it goes.
void splitByPdbViolation(const std::vector<const sh_pod*>& pods, const sh_pdb* const* pdbs,
                         std::size_t pdbCount, std::vector<const sh_pod*>& violating,
                         std::vector<const sh_pod*>& nonViolating);

struct Victims {
  std::vector<const sh_pod*> pods;  // most important first
  int64_t numPdbViolations = 0;
};

// SelectVictimsOnNode on `node` for `pod`. Success with victims, or the status that makes
// the node useless: UnschedulableAndUnresolvable "No preemption victims found for incoming
// pod", the Filter failure that remains with every candidate gone, or an Error.
Status selectVictimsOnNode(const Preemption& preemption, const sh_pod& pod,
                           const sh_node_info& node, const sh_pdb* const* pdbs,
                           std::size_t pdbCount, int64_t now, Victims& out);

}  // namespace schedhost::plugins::defaultpreemption

#endif  // SCHEDHOST_PLUGINS_DEFAULTPREEMPTION_VICTIMS_H
