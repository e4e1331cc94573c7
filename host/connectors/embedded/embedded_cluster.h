// EmbeddedCluster: a cluster held in memory and fed from files, so the scheduler can run
// without an API server (replays, benchmarks, tests). It plays the API server's part: it holds
// the objects, validates changes, performs bindings, and tells the scheduler what changed.
//
//   initial state file ──start()──────────┐
//   change stream (reader thread) ────────┼──> store ──> queue ──next()──> event loop
//   bind() / deletePod() (any thread) ────┘
//
// * The initial state is a v1.List, any {"items": [...]}, or JSON lines (object_file.h).
//   start() loads it: every node, then every pod, in file order, becomes a kAdded change.
//   Namespaces, Services, ReplicaSets, StatefulSets, ReplicationControllers,
//   PodDisruptionBudgets and PriorityClasses are kept as raw JSON (objectsOfKind()) and
//   stored before the pods; clusterObjects() reads them.
// * Pods go through the API server's priority admission (model/priority_admission.h) as
//   they are added: a pod without spec.priority gets its priority from its PriorityClass, or
//   the global default class. The initial state's pods see every class of the file; a
//   streamed pod sees the classes stored when its line is read. A modification without
//   spec.priority keeps the stored pod's. A pod naming an unknown class is rejected.
// * The change stream is JSON lines in the watch format {"type": "ADDED|MODIFIED|DELETED",
//   "object": {...}}, from a file or "-" (stdin), read on a reader thread. BOOKMARK lines are
//   skipped. Without follow, EOF ends the stream; with follow, a file is read like `tail -f`
//   until stop().
// * Bad input never stops the run: a malformed line, an unknown type, an unknown kind, an
//   object that does not parse, a pod naming an unknown PriorityClass, a MODIFIED/DELETED of
//   a missing object, a pod on a missing node, a change of a pod's spec.nodeName once set (and
//   a watch ERROR event) is reported as "FILE:LINE: reason" to the warning sink, counted in
//   rejectedLines() and skipped. An ADDED of an existing object is applied as MODIFIED, with
//   a warning, and is not counted.
// * The store is updated when a change is read, so it runs ahead of what next() has
//   delivered, as an API server runs ahead of an informer. bind() and deletePod() check the
//   store, not what the scheduler has seen.
//
// States: constructed ─start()─> running ─input ends─> draining ─queue empty─> exhausted.
// stop() from any state ends it: next() returns nullopt, exhausted() is true. A bind after
// the input ended refills the queue (exhausted() false again until next() takes it).
//
// * The initial state's objects are parsed on every core (a file of a few hundred objects or
//   more); what start() stores, warns about and queues is in file order all the same.
//
// Thread-safety: next() and nextBatch() from one thread (the event loop); bind(), deletePod(),
// recordFailure(), recordEvent(), stop() and the accessors from any thread. The warning sink
// is called from the thread that runs start() and then from the reader thread, never from two
// at once.
#pragma once

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstddef>
#include <deque>
#include <functional>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>
#include <thread>
#include <vector>

#include <boost/json/object.hpp>
#include <boost/json/value.hpp>

#include "host/connectors/change_queue.h"
#include "host/connectors/cluster_store.h"
#include "host/connectors/connector.h"

namespace sh::connectors {

class LineReader;

class EmbeddedCluster final : public Connector {
 public:
  struct Options {
    // The initial state: a path, "-" for stdin, or empty for none.
    std::string initialState;
    // The change stream: a path, "-" for stdin, or empty for none.
    std::string changes;
    // Keep reading the change file after EOF until stop().
    bool follow = false;
    // How often a followed file is checked for growth.
    std::chrono::milliseconds followInterval{100};
    // How many undelivered changes the reader reads ahead before it waits for next() (our own
    // binds never wait).
    std::size_t maxReadAhead = 10000;
    // How many events events() keeps (the newest); older ones are dropped.
    std::size_t maxEventsKept = 10000;
    // Receives each "FILE:LINE: reason" warning; null logs it with spdlog::warn.
    std::function<void(std::string)> warn;
    // When set, recordEvent() also writes each event there. Must outlive the cluster.
    EventSink* eventLog = nullptr;
    // Emulate the PersistentVolume controller and a dynamic provisioner (pv_controller.h):
    // the claims VolumeBinding annotates are provisioned and bound, the volumes it reserves
    // bound, as on a cluster. Off: the claims stay as VolumeBinding left them.
    bool pvController = true;
  };

  explicit EmbeddedCluster(Options options);
  // Stops and joins the reader thread.
  ~EmbeddedCluster() override;
  EmbeddedCluster(const EmbeddedCluster&) = delete;
  EmbeddedCluster& operator=(const EmbeddedCluster&) = delete;

  // Loads the initial state and starts reading the change stream. Fails when a file cannot be
  // read (readFileText()), when not one object of the initial state could be read, when both
  // inputs are stdin, or when start() ran before; other bad content is warned about and
  // skipped.
  Status start();

  // Connector. When the input is over, next() still waits up to `timeout`, as a bind may come.
  std::optional<ClusterChange> next(std::chrono::milliseconds timeout) override;
  // Takes the whole queue under one lock.
  std::size_t nextBatch(std::vector<ClusterChange>& out,
                        std::chrono::milliseconds timeout) override;
  bool exhausted() const override;
  std::size_t pending() const override;
  void stop() override;

  // Errors: `pod ns/p not found`, `pod ns/p is already assigned to node "n1"`,
  // `node "n1" not found`, `pod ns/p is being deleted, cannot be assigned to a host`,
  // `pod ns/p: precondition failed: UID "a" does not match "b"`.
  Status bind(const model::Pod& pod, std::string_view nodeName) override;
  // The stored pod of that namespace/name and UID has no node.
  bool knownUnbound(const model::Pod& pod) const override;
  // Applies a plugin's write to an object as the API server would (embedded_writes.cc):
  // create, update (status kept), patch (merge, JSON or strategic merge), status update or
  // patch (only status changes), delete; a new resourceVersion each time. The change comes back
  // through next() with the source "write". Errors as the API's:
  // `podgroups.scheduling.x-k8s.io "pg-1" not found`, `... "pg-1" already exists`, `Operation
  // cannot be fulfilled on ...: the object has been modified`. A write to a PersistentVolume
  // or PersistentVolumeClaim is followed by the PV controller's emulation
  // (Options::pvController), whose own writes come back with the source "pv-controller".
  Status writeObject(const ObjectKind& kind, const ObjectWrite& write) override;
  // Errors: `pod ns/p not found`, the UID precondition as for bind(). The change's source is
  // "deletion".
  Status deletePod(const model::Pod& pod, std::string_view reason) override;
  // The DisruptionTarget condition as a status-only patch (no change emitted, as
  // recordFailure), then deletePod: the kDeleted change's oldPod carries the condition.
  Status preemptPod(const model::Pod& pod, std::string_view message) override;
  // Sets PodScheduled=False (reason, message cut to 1 KiB) and status.nominatedNodeName
  // (nullopt: unchanged, "": removed) on the stored pod. Upstream's status patch comes back as
  // an update event. The scheduling queue ignores a status-only change (isPodUpdated()
  // compares old and new with resourceVersion, generation and status stripped), so the change
  // is emitted (source "status") only when nominatedNodeName changed: the event handler then
  // requeues the pods of lower or equal priority that the old nomination held back. Otherwise
  // the next change of the pod carries the patched pod as oldPod. Ignored when the pod no
  // longer exists or is bound by now.
  void recordFailure(const SchedulingFailure& failure) override;
  // Removes status.nominatedNodeName from the stored pod; a change is emitted as for
  // recordFailure. Errors: `pod ns/p not found`, the UID precondition.
  Status clearNominatedNodeName(const model::Pod& pod) override;
  void recordEvent(const EventRecord& event) override;

  // For tests and the run summary. Null when absent.
  std::shared_ptr<const model::Pod> pod(std::string_view ns, std::string_view name) const;
  std::shared_ptr<const model::Node> node(std::string_view name) const;
  // Stored pods with spec.nodeName == name, ordered by namespace/name (scans every pod).
  std::vector<std::shared_ptr<const model::Pod>> podsOnNode(std::string_view name) const;
  // Every stored node and pod, read under one lock: a consistent cut of the cluster, as a
  // checker needs to compare what is bound with what nodes hold. Nodes by name, pods by
  // namespace/name.
  struct Contents {
    std::vector<std::shared_ptr<const model::Node>> nodes;
    std::vector<std::shared_ptr<const model::Pod>> pods;
  };
  Contents contents() const;
  // The stored object of a declarable kind ("v1|PersistentVolumeClaim", "ns/name"); null when
  // absent.
  ObjectPtr object(std::string_view apiKind, std::string_view key) const;
  // Stored objects of a raw kind ("Service", ...), ordered by namespace/name.
  std::vector<std::shared_ptr<const boost::json::value>> objectsOfKind(std::string_view kind) const;
  std::shared_ptr<const model::ClusterObjects> clusterObjects() const override;
  // The newest events (at most Options::maxEventsKept), oldest first.
  std::vector<EventRecord> events() const;
  std::size_t podCount() const;
  std::size_t nodeCount() const;
  // Successful bind() calls.
  std::size_t boundCount() const;
  // Lines and objects rejected (each was warned about).
  std::size_t rejectedLines() const;

  // Runs `hook` inside bind() and recordFailure(), after the new pod is built and before it
  // is committed, with no lock held, so a test can change the pod in between. Call before
  // any bind. DO NOT use outside of tests.
  void setBeforeCommitForTest(std::function<void()> hook) {
    beforeCommitForTest_ = std::move(hook);
  }

 private:
  using Warnings = std::vector<std::string>;
  using PodCheck = std::function<Status(const model::Pod& stored)>;
  using PodEdit = std::function<void(boost::json::object& manifest)>;
  using PodCommit = std::function<void(std::shared_ptr<const model::Pod> old,
                                       std::shared_ptr<const model::Pod> cur)>;

  Status loadInitialState();
  void readChanges();
  void handleLine(std::string_view text, std::size_t lineNumber);
  // Applies a prepared change to the store and queues what it produced. Locks mu_.
  void accept(PreparedChange&& change, std::string source, Warnings& warnings);
  void rejectLocked(std::string message, Warnings& warnings);
  void emit(Warnings& warnings);
  // Replaces the stored pod `key` with `edit` applied to its manifest. `check` runs under the
  // lock on the stored pod, before and again at the commit, and its failure aborts; the edit
  // and the parse run outside the lock, and start over when the pod changed meanwhile.
  // `commit` runs under the lock once the new pod is stored.
  // The commit of a status patch: emits the change when nominatedNodeName changed.
  PodCommit statusCommit();
  Status updatePod(const std::string& key, const PodCheck& check, const PodEdit& edit,
                   const PodCommit& commit);
  void pushLocked(ClusterChange change);
  // writeObject under mu_; `written` is the stored result (null for a delete or an error).
  Status writeObjectLocked(const ObjectKind& kind, const ObjectWrite& write, ObjectPtr& written);
  // The PV controller's emulation after `written` (pv_controller.h), and one write of it:
  // `object` stored as apiKind ("v1|PersistentVolume"), created or replacing the stored one.
  void runPvControllerLocked(const StoredObject& written, bool isVolume);
  ObjectPtr storeAsControllerLocked(std::string_view apiKind, boost::json::value object,
                                    bool create);

  const Options options_;
  const bool pvController_ = options_.pvController;

  mutable std::mutex mu_;
  std::condition_variable readerWake_;  // the queue shrank, or stop()
  ClusterStore store_;
  // The store's raw generation, also readable without mu_: clusterObjects() runs before every
  // scheduling cycle and takes mu_ only when the raw objects changed.
  std::atomic<uint64_t> rawGeneration_{0};
  // The last ClusterObjects built, and the raw generation it was built at. Guarded by
  // objectsMu_ (taken after mu_ when both are held).
  mutable std::mutex objectsMu_;
  mutable std::shared_ptr<const model::ClusterObjects> objects_;
  mutable uint64_t objectsGeneration_ = ~uint64_t{0};
  ChangeQueue queue_;  // notify()ed when it grows, the input ends, or stop()
  bool started_ = false;
  bool inputDone_ = false;
  bool stopped_ = false;
  std::size_t bound_ = 0;
  std::size_t rejected_ = 0;

  mutable std::mutex eventsMu_;
  std::deque<EventRecord> events_;

  std::unique_ptr<LineReader> lines_;
  std::thread reader_;
  std::function<void()> beforeCommitForTest_;
};

}  // namespace sh::connectors
