// Connector: the narrow boundary between the scheduler and a cluster.
//
//   in:  list + watch — the initial objects, then a stream of changes, pulled by the
//        scheduler's event loop with next() (one thread), so changes are applied in the
//        order the cluster produced them;
//   out: bind, pod status (the PodScheduled condition, nominatedNodeName), events, and
//        (for preemption) pod deletion.
//
// The embedded cluster (embedded_cluster.h) implements it over files and stdin; a
// Kubernetes API connector implements the same interface.
#pragma once

#include <chrono>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "host/common/status.h"
#include "host/model/cluster_objects.h"
#include "host/model/node.h"
#include "host/model/pod.h"

namespace sh::connectors {

// One change of one object. For kAdded `old*` is null; for kDeleted `cur*` is null.
struct ClusterChange {
  enum class Type { kAdded, kModified, kDeleted };
  enum class Kind { kNode, kPod };
  Type type = Type::kAdded;
  Kind kind = Kind::kPod;
  std::shared_ptr<const model::Node> oldNode, curNode;
  std::shared_ptr<const model::Pod> oldPod, curPod;
  std::string source;  // "FILE:LINE" the change came from, or "binding" for our own binds
};

// Why a pod was not scheduled: the PodScheduled=False condition upstream writes.
struct SchedulingFailure {
  std::shared_ptr<const model::Pod> pod;
  std::string reason;   // "Unschedulable" or "SchedulerError"
  std::string message;  // upstream-format, e.g. "0/3 nodes are available: ..."
  std::optional<std::string> nominatedNodeName;
};

// An event (events.k8s.io/v1) about a pod.
struct EventRecord {
  std::string type;    // "Normal" or "Warning"
  std::string reason;  // "Scheduled", "FailedScheduling", "Preempted"
  std::string action;  // "Binding", "Scheduling", "Preempting"
  std::string message;
  std::string podKey;  // namespace/name
};

class Connector {
 public:
  virtual ~Connector() = default;

  // Blocks up to `timeout` for the next change. Returns nullopt on timeout or when the
  // stream is over (see exhausted()).
  virtual std::optional<ClusterChange> next(std::chrono::milliseconds timeout) = 0;
  // Appends to `out`, in order, every change ready now, waiting up to `timeout` for the first
  // when none is; returns how many. The event loop drains with it: one call (one lock in a
  // connector that has one) per batch instead of one next() per change. Same thread as next().
  virtual std::size_t nextBatch(std::vector<ClusterChange>& out,
                                std::chrono::milliseconds timeout) {
    std::size_t n = 0;
    for (auto c = next(timeout); c.has_value(); c = next(std::chrono::milliseconds(0))) {
      out.push_back(std::move(*c));
      ++n;
    }
    return n;
  }
  // True once the input has ended and every change (ours included) has been delivered.
  virtual bool exhausted() const = 0;
  // Changes not delivered yet (input read ahead plus our own binds).
  virtual std::size_t pending() const = 0;
  // Stops reading; next() returns nullopt from now on. Thread-safe.
  virtual void stop() = 0;

  // Binds the pod to the node. The cluster confirms it as a kModified change of the pod
  // with spec.nodeName set, delivered through next(). Thread-safe (binding cycles).
  virtual Status bind(const model::Pod& pod, std::string_view nodeName) = 0;
  // True when the cluster can tell at once that `pod` is still unbound although a Bind
  // plugin reported it bound (the embedded cluster, whose binds take effect within bind()).
  // False when it is bound, gone, or the cluster cannot tell yet (an API server's watch).
  virtual bool knownUnbound(const model::Pod& /*pod*/) const { return false; }
  // Deletes a pod (preemption). The deletion comes back as a kDeleted change.
  virtual Status deletePod(const model::Pod& pod, std::string_view reason) = 0;
  // Evicts a preemption victim: the condition DisruptionTarget=True (reason
  // PreemptionByScheduler, `message`) on its status, then deletion. The deletion comes back
  // as a kDeleted change. Thread-safe.
  virtual Status preemptPod(const model::Pod& pod, std::string_view message) {
    return deletePod(pod, message);
  }
  // Clears status.nominatedNodeName of a pending pod (a higher-priority pod took its
  // place on that node). The change comes back as a kModified change. Thread-safe.
  virtual Status clearNominatedNodeName(const model::Pod& pod) {
    (void)pod;
    return Status::success();
  }
  // Records a scheduling failure on the pod's status. Thread-safe.
  virtual void recordFailure(const SchedulingFailure& failure) = 0;
  // Records an event. Thread-safe.
  virtual void recordEvent(const EventRecord& event) = 0;
  // Namespaces, Services and workload controllers as they are now (nullptr: none). Called
  // before each scheduling cycle; cheap when nothing changed. Thread-safe.
  virtual std::shared_ptr<const model::ClusterObjects> clusterObjects() const { return nullptr; }
};

}  // namespace sh::connectors
