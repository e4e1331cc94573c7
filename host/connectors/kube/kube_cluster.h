// KubeCluster: the scheduler's connector to a Kubernetes API server. It plays the part of
// kube-scheduler's informers (pkg/scheduler/scheduler.go, eventhandlers.go) and of its
// clientset writes:
//
//   reflector per kind (reflector.h) ──replace / apply──> store ──changes──> next() ──> loop
//   bind()           POST pods/<name>/binding             (the watch brings the bound pod)
//   recordFailure()  PATCH pods/<name>/status             (on status writer threads)
//   preemptPod()     PATCH status DisruptionTarget, then DELETE with a UID precondition
//   recordEvent()    events.k8s.io/v1, through the EventRecorder
//   watchKinds()     an ObjectWatch (object_watch.h) per kind plugins declared ──> kObject
//   writeObject()    the writes plugins make to those kinds (object_writer.h)
//
// * The store is the informer cache: Nodes and Pods parsed (model/), the other kinds kept as
//   JSON for clusterObjects(). A change whose resourceVersion equals the stored one changes
//   nothing and is dropped, so a relist does not replay what the scheduler has seen. A pod
//   recreated under the same name (a new UID) is a deletion and an addition. A relist
//   (replace) deletes whatever the new list no longer has.
// * Nothing reaches next() before activate(): a standby (not the leader) keeps its store
//   current without queueing. activate() queues every stored node, then every stored pod, as
//   kAdded (the initial list the scheduler syncs from), then the changes as they come.
// * Binds are synchronous on the binding cycle's thread. A 409 "already assigned to node X"
//   for the node asked is a bind of ours that landed before its answer was lost: success. For
//   another node the pod is bound elsewhere: an error, and no status patch or failure event is
//   written for it afterwards; the watch brings the bound pod and the scheduler's handlers
//   move it from the queue to the cache. Writes that fail with 429, 5xx or a transport error
//   are retried with backoff (retry.h); nothing else is.
// * Status patches are written by `statusWriters` threads, so the scheduling loop never waits
//   on the API server; a newer patch of a pod still waiting replaces the older one (both are
//   diffs against the same stored pod). A patch that changes nothing is not sent.
// * Objects of the kinds plugins declared (kube_objects.cc) are kept per kind as parsed
//   StoredObjects and reach next() as kObject changes with the kind's ObjectStore id: each
//   list as one `relist` change (the store makes the events of the difference), each watch
//   event as one change, an unchanged resourceVersion dropped. activate() queues the nodes,
//   then every kind's objects, then the pods, so that a pod's PreEnqueue finds the objects it
//   waits for. A kind the API server does not serve is warned about once, marked in the
//   store, counts as synced, and is listed again every Reflector::Options::notServedRetry.
//   The kinds the store has when watchKinds() is called count for synced(); kinds added later
//   (a reload) do not. Plugins' writes are synchronous, like binds, and stopped with them.
//
// Thread-safety: next() from the event loop; the reflectors call the sink on their threads;
// everything else from any thread.
#pragma once

#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <deque>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <set>
#include <stop_token>
#include <string>
#include <string_view>
#include <thread>
#include <unordered_map>
#include <unordered_set>
#include <vector>

#include <boost/json/value.hpp>

#include "host/connectors/change_queue.h"
#include "host/connectors/cluster_store.h"
#include "host/connectors/connector.h"
#include "host/connectors/kube/object_watch.h"
#include "host/connectors/kube/reflector.h"
#include "host/connectors/kube/retry.h"
#include "host/connectors/kube/transport.h"

namespace sh::kube {

class EventRecorder;

class KubeCluster final : public connectors::Connector,
                          private ReflectorSink,
                          private ObjectWatchSink {
 public:
  struct Options {
    Reflector::Options reflector;
    RetryPolicy writeRetry;
    // Where events go (may be null: logged to eventLog only). Must outlive the cluster.
    EventRecorder* events = nullptr;
    // When set, recordEvent() also writes each event there. Must outlive the cluster.
    connectors::EventSink* eventLog = nullptr;
    int statusWriters = 2;
    // While changes stream in one by one, nextBatch() gathers those of this long into one
    // batch (connectors::ChangeQueue::coalesce); a change after a quiet spell is not delayed.
    std::chrono::microseconds coalesce{500};
    // Receives each warning (objects that do not parse, failed writes); null: spdlog.
    std::function<void(const std::string&)> warn;
  };

  struct Stats {
    uint64_t changesQueued = 0;   // changes handed towards next()
    uint64_t objectsApplied = 0;  // watch events and list items applied to the store
    uint64_t unchanged = 0;       // dropped: same resourceVersion as stored
    uint64_t rejected = 0;        // objects that did not parse
    uint64_t binds = 0;           // successful binds
    uint64_t bindConflicts = 0;   // 409: bound elsewhere
    uint64_t statusPatches = 0;   // status patches sent (successful or not)
    uint64_t statusSkipped = 0;   // status patches not needed
    uint64_t deletes = 0;
    uint64_t writeFailures = 0;
    uint64_t objectWrites = 0;         // plugins' writes that succeeded
    uint64_t objectWriteFailures = 0;  // plugins' writes that failed (also in writeFailures)
    uint64_t kindsNotServed = 0;       // declared kinds found not served (each warned once)
  };

  KubeCluster(Transport& transport, Options options);
  ~KubeCluster() override;
  KubeCluster(const KubeCluster&) = delete;
  KubeCluster& operator=(const KubeCluster&) = delete;

  // Starts a reflector per watched kind (resources.h), the watches of the kinds watchKinds()
  // registered so far, and the status writers. Before any other thread calls synced() or
  // syncProblems().
  void start();
  // Waits until every reflector has listed once, the watches of the kinds declared when
  // watchKinds() was called included (a kind not served counts). False on timeout or stop.
  bool waitForSync(std::chrono::milliseconds timeout, std::stop_token stop = {});
  bool synced() const;
  // The kinds not synced yet, each with its last error: `pods (list pods: 403 Forbidden: ...)`.
  std::string syncProblems() const;
  // Starts feeding next(): the stored state as kAdded (nodes, then pods), then changes.
  void activate();
  // Waits up to `timeout` for the status writers to send what is queued.
  void flushWrites(std::chrono::milliseconds timeout);
  // Cancels the binds, deletes and plugins' writes in flight (Request::stop) and fails every
  // later one at once, without retries: for a stop that must not wait on an API server that
  // does not answer.
  // Status patches and events are not affected (flushWrites). Thread-safe; cannot be undone.
  void cancelBinds();

  // Connector.
  std::optional<connectors::ClusterChange> next(std::chrono::milliseconds timeout) override;
  std::size_t nextBatch(std::vector<connectors::ClusterChange>& out,
                        std::chrono::milliseconds timeout) override;
  bool exhausted() const override;
  std::size_t pending() const override;
  void stop() override;
  Status bind(const model::Pod& pod, std::string_view nodeName) override;
  Status deletePod(const model::Pod& pod, std::string_view reason) override;
  Status preemptPod(const model::Pod& pod, std::string_view message) override;
  Status clearNominatedNodeName(const model::Pod& pod) override;
  void recordFailure(const connectors::SchedulingFailure& failure) override;
  void recordEvent(const connectors::EventRecord& event) override;
  std::shared_ptr<const model::ClusterObjects> clusterObjects() const override;
  // Starts a watch for every kind of `store` and every kind added to it later. `store` must
  // outlive the cluster.
  void watchKinds(connectors::ObjectStore& store) override;
  Status writeObject(const connectors::ObjectKind& kind,
                     const connectors::ObjectWrite& write) override;

  // The objects of declared kind `kind` as the watch holds them now, in key order.
  std::vector<connectors::ObjectPtr> objects(std::size_t kind) const;
  // The informer's copy; null when absent.
  std::shared_ptr<const model::Pod> pod(std::string_view ns, std::string_view name) const;
  std::shared_ptr<const model::Node> node(std::string_view name) const;
  std::size_t podCount() const;
  std::size_t nodeCount() const;
  Stats stats() const;
  // The reflectors' counters, summed.
  Reflector::Stats reflectorStats() const;

 private:
  struct PodEntry {
    std::shared_ptr<const model::Pod> pod;
    std::string resourceVersion;
  };
  struct NodeEntry {
    std::shared_ptr<const model::Node> node;
    std::string resourceVersion;
  };
  struct Write {
    std::string key;  // pod key: a newer write of the same key replaces this one
    Request request;
  };
  // One declared kind, by ObjectStore id.
  struct ObjectKindState {
    std::unique_ptr<ObjectWatch> watch;
    std::map<std::string, connectors::ObjectPtr, std::less<>> objects;  // by key
    bool atStart = false;    // known when watchKinds() was called: counts for synced()
    bool started = false;    // its watch runs
    bool listed = false;     // listed at least once: activate() queues its objects
    bool notServed = false;  // the last list found it not served (and that was warned)
  };
  // Lets the store's kind listener reach the cluster while it lives.
  struct KindListener {
    std::mutex mu;
    KubeCluster* cluster = nullptr;
  };

  // ReflectorSink, on the reflector threads.
  void replace(const Resource& resource, std::vector<boost::json::value>&& items) override;
  void apply(const Resource& resource, WatchEventType type, boost::json::value&& object,
             std::string_view text) override;
  void flush(const Resource& resource) override;

  // ObjectWatchSink, on the object watches' threads (kube_objects.cc).
  void objectsListed(std::size_t kind, std::vector<connectors::ObjectPtr>&& objects) override;
  void objectsChanged(std::size_t kind, std::vector<ObjectWatchSink::Change>&& changes) override;
  void objectRejected(std::size_t kind, const std::string& message) override;
  void kindNotServed(std::size_t kind, const std::string& why) override;
  // Registers kind `id` and starts its watch once start() has run.
  void addObjectKind(std::size_t id, const connectors::ObjectKind& kind);
  // Queues the whole content of kind `id` as one relist change.
  void pushRelistLocked(std::size_t id, const ObjectKindState& state);
  // The watches of the declared kinds, asked to stop and joined.
  void stopObjectWatches();

  // Parses `object` into a change; nullopt (warned) when it cannot be used.
  std::optional<connectors::PreparedChange> prepare(connectors::ClusterChange::Type type,
                                                    boost::json::value&& object,
                                                    std::string& version,
                                                    std::string_view text = {});
  void applyLocked(connectors::PreparedChange&& change, std::string version);
  void applyPodLocked(connectors::PreparedChange&& change, std::string version);
  void applyNodeLocked(connectors::PreparedChange&& change, std::string version);
  void applyRawLocked(connectors::PreparedChange&& change);
  void pushLocked(connectors::ClusterChange change);
  std::shared_ptr<const model::ClusterObjects> clusterObjectsLocked() const;
  void warn(const std::string& message);

  // Status writers.
  void enqueueWrite(Write write);
  void writerLoop(std::stop_token stop);
  Response sendWrite(const Request& request);

  Transport& transport_;
  Options options_;
  std::vector<std::unique_ptr<Reflector>> reflectors_;
  // Kind -> the watch changes parsed since the reflector's last flush(). The entries are made
  // in start(); each is then used by its own reflector's thread alone.
  using Prepared = std::vector<std::pair<connectors::PreparedChange, std::string>>;
  std::unordered_map<std::string, Prepared> prepared_;

  mutable std::mutex mu_;
  std::unordered_map<std::string, PodEntry> pods_;
  std::unordered_map<std::string, NodeEntry> nodes_;
  // kind -> key -> object
  std::map<std::string, std::map<std::string, std::shared_ptr<const boost::json::value>>,
           std::less<>>
      raw_;
  uint64_t rawGeneration_ = 0;
  mutable std::shared_ptr<const model::ClusterObjects> objects_;
  mutable uint64_t objectsGeneration_ = ~uint64_t{0};
  // Pods a bind found bound elsewhere (by UID): nothing more is written for them.
  std::unordered_set<std::string> boundElsewhere_;
  connectors::ChangeQueue queue_;
  bool active_ = false;
  bool stopped_ = false;
  Stats stats_;

  std::mutex writeMu_;
  std::condition_variable_any writeWake_;
  std::condition_variable_any writeIdle_;
  std::deque<std::string> writeOrder_;
  std::unordered_map<std::string, Request> writes_;
  int writesInFlight_ = 0;
  std::vector<std::jthread> writers_;
  std::stop_source stopWrites_;
  std::stop_source stopBinds_;  // binds, deletes and plugins' writes carry its token

  // Declared kinds (under mu_; a watch lives until the destructor).
  connectors::ObjectStore* objectStore_ = nullptr;
  std::shared_ptr<KindListener> kindListener_;
  std::map<std::size_t, ObjectKindState> objectKinds_;
  bool started_ = false;        // start() ran: a new kind's watch starts at once
  bool watchingKinds_ = false;  // inside watchKinds(): the kinds added count as atStart
};

}  // namespace sh::kube
