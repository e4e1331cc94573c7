// Connector: the narrow boundary between the scheduler and a cluster.
//
//   in:  list + watch — the initial objects, then a stream of changes, pulled by the
//        scheduler's event loop with next() (one thread), so changes are applied in the
//        order the cluster produced them;
//   out: bind, pod status (the PodScheduled condition, nominatedNodeName), events,
//        (for preemption) pod deletion, and the writes plugins make to objects of the kinds
//        they declared (writeObject).
//
// Objects of other kinds than pods and nodes go to the ObjectStore (object_store.h), the one
// place that holds them for both implementations: the scheduler applies the kObject changes
// a connector delivers to it.
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
#include "host/connectors/object_store.h"
#include "host/model/cluster_objects.h"
#include "host/model/node.h"
#include "host/model/pod.h"

namespace sh::connectors {

// One change of one object. For kAdded `old*` is null; for kDeleted `cur*` is null.
struct ClusterChange {
  enum class Type { kAdded, kModified, kDeleted };
  enum class Kind { kNode, kPod, kObject };
  // kObject: the change came from the watch of this ObjectStore kind id, or, for kByApiKind,
  // from a source that knows objects by apiVersion and kind only (ObjectStore::applyByKind).
  static constexpr std::size_t kByApiKind = static_cast<std::size_t>(-1);
  Type type = Type::kAdded;
  Kind kind = Kind::kPod;
  std::shared_ptr<const model::Node> oldNode, curNode;
  std::shared_ptr<const model::Pod> oldPod, curPod;
  // kObject: the object after the change (kDeleted: the last version), and its kind.
  ObjectPtr object;
  std::size_t objectKind = kByApiKind;
  // kObject from a relist: the whole content of objectKind (`object` unused).
  std::shared_ptr<const std::vector<ObjectPtr>> relist;
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

// Where a connector copies the events it records, besides the cluster (the decision log's
// Event lines): the connectors know nothing of who listens.
class EventSink {
 public:
  virtual ~EventSink() = default;
  // Called from the thread that records the event; must be thread-safe.
  virtual void event(const EventRecord& event) = 0;
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

  // The kinds plugins declared: a connector that watches per kind (the Kubernetes API) starts
  // a watch for each kind the store has and for each added later (ObjectStore::onKindAdded),
  // and delivers its changes as kObject ClusterChanges with that kind id. The default does
  // nothing: the embedded cluster delivers every object it reads, by apiVersion and kind.
  // Called once, before the first next().
  virtual void watchKinds(ObjectStore& store) { (void)store; }
  // Writes to an object of `kind` on behalf of a plugin (sh_host_api.object_write). The change
  // comes back through next() as a kObject change. An Error status carries the API's message.
  // Thread-safe (binding cycles).
  virtual Status writeObject(const ObjectKind& kind, const ObjectWrite& write) {
    (void)kind;
    return Status::error("this cluster connector does not write " + write.describe(kind));
  }
};

}  // namespace sh::connectors
