// Scheduler: the running host. One scheduling loop pops pods and runs the scheduling cycle
// (upstream schedule_one.go: ScheduleOne, schedulingCycle); each pod that passes goes on to its
// binding cycle on the binding pool (bindingCycle) while the loop moves on to the next pod.
//
//   connector --changes--> event handlers --> cache + queue
//   queue --pop--> scheduling cycle (snapshot, PreFilter, Filter ∥, PreScore, Score ∥,
//                  selectHost, assume, Reserve, Permit)
//         --> binding pool: WaitOnPermit, PreBind, Bind (connector), PostBind
//   any failure --> Unreserve, forget, requeue with the rejecting plugins, PodScheduled=False
//
// Frameworks are immutable and shared: a binding cycle keeps the framework (and so the
// plugins) its scheduling cycle used.
//
// Profile generations (docs/operations.md). installFrameworks() hands over a new generation
// from any thread; the loop switches to it between two scheduling cycles (swapGeneration):
// the queue takes the new profiles (re-sorting on a QueueSort change), pods whose profile is
// gone leave the queue but stay known (podsWithoutProfile), pods whose profile appeared join
// it. Cycles already running, and pods waiting on Permit, finish on the framework they
// started with; the old generation is released when the last of them lets go.
#pragma once

#include <atomic>
#include <condition_variable>
#include <cstdint>
#include <deque>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <thread>
#include <unordered_map>
#include <unordered_set>
#include <vector>

#include "host/cache/cache.h"
#include "host/cache/snapshot.h"
#include "host/connectors/connector.h"
#include "host/cycle/attempt_store.h"
#include "host/cycle/decision_log.h"
#include "host/cycle/extender.h"
#include "host/cycle/latency_stats.h"
#include "host/cycle/parallelizer.h"
#include "host/cycle/scheduler_services.h"
#include "host/cycle/waiting_pods.h"
#include "host/framework/cycle_host.h"
#include "host/framework/fit_error.h"
#include "host/framework/framework.h"
#include "host/metrics/scheduler_metrics.h"
#include "host/queue/clock.h"
#include "host/queue/scheduling_queue.h"

namespace sh::cycle {

struct SchedulerOptions {
  int parallelism = 16;              // Filter/Score workers; 0 = one per core
  int percentageOfNodesToScore = 0;  // 0 = adaptive
  uint64_t seed = 0;                 // tie-break seed
  // Binding cycles that run at once, each on a thread of its own (upstream starts a goroutine
  // per binding cycle), so a slow PreBind or a pod waiting on Permit holds up no other pod.
  // Beyond the limit a binding cycle waits for a thread to come free.
  int maxConcurrentBindings = 1024;
  // After stop(): how long run() waits for the binding cycles in flight before it rejects the
  // pods still waiting on Permit, and as long again for the rest. Zero waits without bound.
  std::chrono::milliseconds stopGrace{0};
  queue::QueueOptions queue;
  // Where attempts, preemptions and Filter durations are recorded; nullptr: nowhere. Must
  // outlive the scheduler.
  metrics::SchedulerMetrics* metrics = nullptr;
  // The HTTP extenders of the host configuration, shared by every profile, in the order they
  // are called (ignorable ones last).
  Extenders extenders;
  // Asynchronous preemption (upstream's SchedulerAsyncPreemption, on by default): a
  // PostFilter's evictions run on a thread of the binding pool and the preemptor waits at
  // DefaultPreemption's PreEnqueue until they are done. False: they run within the PostFilter
  // call (docs/operations.md).
  bool asyncPreemption = true;
  // The store the frameworks' plugins declared their kinds in (SchedulerServices owns it);
  // nullptr: a store of the scheduler's own, which no plugin reads. Must outlive the scheduler.
  connectors::ObjectStore* objects = nullptr;
};

// When a generation was handed over, switched to, and first used (std::chrono::steady_clock
// nanoseconds since its epoch).
struct GenerationTiming {
  uint64_t generation = 0;
  int64_t installedNanos = 0;
  int64_t appliedNanos = 0;
  int64_t firstCycleNanos = 0;  // 0 until a scheduling cycle ran on it
};

// What `schedhost status` shows of the running loop.
struct SchedulerStatus {
  uint64_t generation = 0;
  std::vector<std::string> profiles;  // schedulerNames served
  queue::PendingCounts queue;
  std::size_t bindingsInFlight = 0;
  std::size_t preemptionsInFlight = 0;  // asynchronous preemptions evicting victims
  // Pending pods whose schedulerName no profile serves: (namespace/name, schedulerName).
  std::vector<std::pair<std::string, std::string>> podsWithoutProfile;
  // Older generations some cycle still holds: (generation, seconds since replaced).
  std::vector<std::pair<uint64_t, double>> retiredInUse;
};

struct SchedulerStats {
  uint64_t scheduled = 0;
  uint64_t unschedulable = 0;  // failed attempts (a pod may fail several times)
  uint64_t errors = 0;
  // Pods a batch run gave up on once the input was over (see Scheduler::run): a third error
  // in a row, or a tenth failed attempt of any kind.
  uint64_t failed = 0;
  uint64_t attempts = 0;
  uint64_t preemptions = 0;  // PostFilter decisions carried out (preempt_victims calls)
  uint64_t preemptionVictims = 0;
};

class Scheduler : private CycleHost, public RunningPreemptions {
 public:
  Scheduler(Frameworks frameworks, connectors::Connector& connector, cycle::DecisionLog* log,
            SchedulerOptions options, queue::Clock* clock = nullptr);
  ~Scheduler();
  Scheduler(const Scheduler&) = delete;
  Scheduler& operator=(const Scheduler&) = delete;

  // Runs until the connector is exhausted and nothing is left to do (follow = false), or
  // until stop(). Returns the stats.
  //
  // A batch run (follow = false) over a finite input ends even when some pod keeps failing
  // with an error (no nodes, a plugin returning Error or nonsense, no Bind plugin binding),
  // which upstream retries without end: once the input is over, the kErrorsBeforeGivingUp-th
  // error in a row (after backoff, as upstream; a passing fault such as a failed bind gets
  // its retries) is the pod's last attempt, as is, whatever the failure, its
  // kFailuresAfterInputBeforeGivingUp-th failed attempt since the input was over (pods that
  // keep waking each other, such as Permit timeouts): its FailedScheduling line says
  // `"final":true`, and the pod leaves the queue and counts as failed.
  SchedulerStats run(bool follow = false);
  void stop();

  // One pass of the loop, for tests: applies pending changes, then schedules the popped
  // pod if one is ready. Returns false when nothing was ready.
  bool stepForTest();
  // Waits until every binding cycle and asynchronous preemption started so far has finished.
  void waitForBindingsForTest();
  // The same, within SchedulerOptions::stopGrace (see there). False when some are still
  // running after it.
  bool waitForBindingsAfterStop();
  // Where the next Filter search starts (upstream nextStartNodeIndex); loop thread.
  std::size_t nextStartNodeIndexForTest() const { return nextStartNodeIndex_; }

  // The current frameworks; from the loop's thread (or when the loop is not running).
  const Frameworks& frameworks() const { return frameworks_; }

  // Hands over the frameworks of generation `generation` (thread-safe). The loop switches to
  // them before its next scheduling cycle; a later call before that replaces this one.
  void installFrameworks(Frameworks next, uint64_t generation);
  // The generation the loop schedules with (thread-safe).
  uint64_t generation() const;
  // The timing of `generation`, when it was installed (thread-safe).
  std::optional<GenerationTiming> timingOf(uint64_t generation) const;
  // Thread-safe.
  SchedulerStatus status() const;
  // RunningPreemptions (thread-safe): the preemptor's evictions are not all done, and its last
  // victim is neither gone nor terminating (upstream Executor.IsPodRunningPreemption).
  bool preemptionRunning(std::string_view uid) const override;
  // True once run() has applied the initial cluster state (thread-safe).
  bool synced() const { return synced_.load(); }
  // Logs (once each) old generations still held longer than `limit` by some cycle, such as a
  // pod waiting on Permit; returns how many are still held. Called by the loop every second.
  std::size_t checkRetiredGenerations(std::chrono::seconds limit);
  void setDrainWarning(std::chrono::seconds limit) { drainWarning_ = limit; }
  cache::Cache& cache() { return cache_; }
  queue::SchedulingQueue& queue() { return *queue_; }
  WaitingPods& waitingPods() { return waitingPods_; }
  SchedulerStats stats() const;
  // Attempt latencies (pop to bound, or pop to failure), in milliseconds.
  const cycle::LatencyStats& latencies() const { return latencies_; }
  // The last failed attempt of each pending pod (thread-safe; docs/explaining-decisions.md).
  const AttemptStore& attempts() const { return attempts_; }
  // A pending pod and the cluster as the cache and the object store hold it now, for a dry
  // run of the whole cluster (schedhost explain's what-if list); nullopt when the queue does
  // not hold the pod. Copies O(nodes + pods) pointers; any thread.
  struct ClusterCopy {
    std::shared_ptr<const model::Pod> pod;
    std::vector<std::shared_ptr<const model::Node>> nodes;
    std::vector<std::shared_ptr<const model::Pod>> pods;  // placed or assumed
    std::shared_ptr<const model::ClusterObjects> objects;
    std::vector<connectors::ObjectPtr> kindObjects;  // the declared kinds' objects
  };
  std::optional<ClusterCopy> clusterCopyFor(std::string_view podKey) const;
  // Pods known to be pending (not bound), by uid.
  std::size_t pendingPodCount() const;
  // Where the pending pods stand, each in one bucket (the run summary). Call when the loop
  // is not running.
  struct PendingOutcome {
    std::size_t unschedulable = 0;  // tried and rejected, or backing off after an error
    std::size_t failed = 0;         // given up (see run())
    std::size_t pending = 0;        // not tried yet, or held back by a PreEnqueue plugin
  };
  PendingOutcome pendingOutcome() const;

 private:
  // Event handlers (eventhandlers.go).
  void applyChanges(std::chrono::milliseconds wait);
  void handleChange(const connectors::ClusterChange& change);
  void onNodeAdd(const std::shared_ptr<const model::Node>& node);
  void onNodeUpdate(const std::shared_ptr<const model::Node>& old,
                    const std::shared_ptr<const model::Node>& cur);
  void onNodeDelete(const std::shared_ptr<const model::Node>& node);
  void onPodAdd(const std::shared_ptr<const model::Pod>& pod);
  void onPodUpdate(const std::shared_ptr<const model::Pod>& old,
                   const std::shared_ptr<const model::Pod>& cur);
  void onPodDelete(const std::shared_ptr<const model::Pod>& pod);
  // A change of an object of a declared kind: into the ObjectStore, then the events it makes.
  void onObjectChange(const connectors::ClusterChange& change);
  // The objects a scheduling cycle reads: the store's snapshot, rebuilt only after a change.
  std::shared_ptr<const connectors::ObjectSnapshot> objectSnapshot();
  bool responsibleFor(const model::Pod& pod) const;
  // A pod being deleted (or starting to be) while assumed: rejected if waiting on Permit,
  // forgotten otherwise; its room is freed for the others.
  void handleAssumedPodDeletion(const model::Pod& pod);
  // AssignedPodDelete for the pending pods of priority <= `pod`'s: `pod` stopped counting as
  // placed on its nominated node.
  void moveLowerOrEqualPriority(const std::shared_ptr<const model::Pod>& pod);
  // scheduler_event_handling_duration_seconds{event} (upstream eventhandlers.go): `seconds`
  // of a handler under its event's label. Nothing without options_.metrics. Loop thread.
  bool timesEvents() const { return options_.metrics != nullptr; }
  void observeEventHandling(std::string_view event, double seconds);
  // The histogram of each event label met so far (loop thread).
  std::map<std::string, metrics::Histogram*, std::less<>> eventHandlingHistograms_;

  // The scheduling cycle (schedule_one.cc).
  void scheduleOne(queue::QueuedPodInfoPtr info);
  struct ScheduleResult {
    std::string host;
    std::size_t evaluated = 0;
    std::size_t feasible = 0;
    // What Score gave (when it ran), kept until the cycle ends for a failure after it (Reserve,
    // Permit) to keep in attempts_.
    std::vector<NodeScore> scores;
    ScoreTable table;
    std::vector<uint8_t> skipScore;  // the cycle's skipScoreMask: plugins PreScore skipped
  };
  Status schedulePod(const Framework& fw, CycleState& cycle, const sh_pod& pod,
                     ScheduleResult& result, FitError& fitError);
  // The Filter plugins' feasible nodes; `nominatedNodeFits` set when the nominated node passed
  // them and the extenders, and is the only one returned.
  std::vector<const sh_node_info*> findNodesThatFitPod(const Framework& fw, CycleState& cycle,
                                                       const sh_pod& pod, Diagnosis& diagnosis,
                                                       Status& status, bool& nominatedNodeFits);
  Status runFilterWithNominatedPods(const Framework& fw, CycleState& cycle, const sh_pod& pod,
                                    const sh_node_info& node);
  // The extenders (extenders.cc; upstream schedule_one.go): the filtering ones in order on the
  // nodes the Filter plugins passed, their rejections recorded in `diagnosis`; an Error status
  // in `status` ends the attempt.
  std::vector<const sh_node_info*> findNodesThatPassExtenders(
      const sh_pod& pod, std::vector<const sh_node_info*> feasible, Diagnosis& diagnosis,
      Status& status);
  // Adds each interested prioritizer's score × weight × (100 / 10) to `scores`; an extender
  // that fails gives no scores (upstream prioritizeNodes).
  void addExtenderScores(const sh_pod& pod, std::vector<NodeScore>& scores);
  // The first interested binder binds the pod (an ignorable one that fails passes it on);
  // nullopt when none did, and the Bind plugins do (upstream extendersBinding).
  std::optional<Status> bindWithExtenders(const model::Pod& pod, const std::string& node);
  bool hasExtenderFilters() const;
  bool hasExtenderPrioritizers() const;

  // CycleHost: what the cycle's plugins reach through the preemption services
  // (preemption.cc).
  std::vector<std::shared_ptr<const model::Pod>> nominatedPodsFor(std::string_view node,
                                                                  const sh_pod& pod) override;
  void parallelFor(std::size_t n, const std::function<void(std::size_t)>& fn) override;
  uint64_t random() override;
  Status preempt(const sh_pod& preemptor, std::string_view node,
                 const std::vector<const sh_pod*>& victims) override;
  Status filterPreemptionCandidates(const sh_pod& preemptor,
                                    std::vector<PreemptionCandidate>& candidates) override;
  // The evictions of one preemption (upstream executor.go: prepareCandidate and the goroutine
  // of prepareCandidateAsync): lower-priority pods nominated to `node` lose the nomination,
  // every victim is evicted. With `lastVictimTracked`, the last victim is recorded for
  // preemptionRunning() before it is evicted, and a failure skips it.
  Status evictVictims(const std::string& preemptorUid, const std::string& schedulerName,
                      int32_t priority, const std::string& node,
                      const std::vector<std::shared_ptr<const model::Pod>>& victims,
                      bool lastVictimTracked);
  // One eviction: a pod waiting on Permit is preempted in memory, any other deleted with the
  // DisruptionTarget condition; a Preempted event either way.
  Status evictVictim(const model::Pod& victim, const std::string& preemptorUid,
                     const std::string& schedulerName, const std::string& node);
  // `scored`: the cycle's result when the failure came after Score.
  void handleSchedulingFailure(const Framework& fw, queue::QueuedPodInfoPtr info,
                               const Status& status, const FitError* fitError,
                               const queue::NominatingInfo& nominating, int64_t startNanos,
                               const ScheduleResult* scored = nullptr);

  // The binding cycle (binding_cycle.cc), on the binding pool.
  void startBindingCycle(std::shared_ptr<const Framework> fw, std::unique_ptr<CycleState> cycle,
                         queue::QueuedPodInfoPtr info, std::shared_ptr<const model::Pod> assumed,
                         std::string host, int64_t startNanos, std::shared_ptr<WaitingPod> waiting);
  void bindingCycle(const std::shared_ptr<const Framework>& fw, CycleState& cycle,
                    const std::shared_ptr<queue::QueuedPodInfo>& info,
                    const std::shared_ptr<const model::Pod>& assumed, const std::string& host,
                    int64_t startNanos, const std::shared_ptr<WaitingPod>& waiting);
  // A binding thread: runs queued binding cycles; ends when the scheduler stops, or after
  // idling a while when more than a few threads are alive.
  void bindingWorker(const std::shared_ptr<std::atomic<bool>>& finished);
  // Cancels the plugins' waits in the binding cycle of pod `uid` (SH_WAIT_POD_DELETED), or of
  // every pod (nullptr: SH_WAIT_STOPPING).
  void cancelBindings(const std::string* uid);
  // Counts a binding cycle as over (bindingsInFlight_).
  void bindingFinished();
  // Hands `job` to the binding pool (bindMu_ held; the caller counted it in bindingsInFlight_):
  // an idle thread takes it, or a new one starts, up to maxConcurrentBindings.
  void enqueuePoolJobLocked(std::function<void()> job);

  bool finished(bool follow) const;
  // A failed attempt that ends the pod's run (see run()): reported, counted, not requeued.
  static constexpr int kErrorsBeforeGivingUp = 3;
  // Whatever the failure, the kFailuresAfterInputBeforeGivingUp-th failed attempt of a pod
  // after the input is over is its last: the scheduler's own actions can wake a rejected pod
  // without end (a Permit that always times out forgets an assumed pod, an AssignedPodDelete
  // that moves the other such pods back), where a rejected pod in a finite input otherwise
  // waits in unschedulablePods for an event that never comes.
  static constexpr int kFailuresAfterInputBeforeGivingUp = 10;
  bool givesUp(const Status& status, const queue::QueuedPodInfo& info, const std::string& uid);
  // Switches to the frameworks installFrameworks() handed over, if any (loop thread).
  void swapGeneration();
  bool servedBy(const Frameworks& frameworks, const model::Pod& pod) const;
  int64_t nowNanos() const;

  Frameworks frameworks_;  // written by the loop under genMu_; the loop reads it without
  uint64_t generation_ = 0;
  mutable std::mutex genMu_;
  std::optional<std::pair<Frameworks, uint64_t>> pendingFrameworks_;  // under genMu_
  std::atomic<bool> swapPending_{false};
  struct Retired {
    uint64_t generation = 0;
    std::chrono::steady_clock::time_point since;
    std::vector<std::weak_ptr<const Framework>> frameworks;
    bool warned = false;
  };
  std::vector<Retired> retired_;                  // under genMu_
  std::map<uint64_t, GenerationTiming> timings_;  // under genMu_; the latest 256
  std::chrono::seconds drainWarning_{60};
  std::chrono::steady_clock::time_point lastRetiredCheck_;
  bool firstCycleOnGeneration_ = false;  // loop thread: the current generation ran a cycle
  uint64_t sampleCounter_ = 0;           // loop thread: every 10th cycle times its plugins
  // Keeps a pending pod's failed attempt in attempts_ (schedule_one.cc).
  void keepAttempt(const Framework& fw, const std::string& key, const std::string& uid,
                   int attempts, bool rejected, const std::string& message,
                   const FitError* fitError, std::string nominatedNode,
                   const ScheduleResult* scored);
  // The last failed attempt of each pending pod (schedhost explain).
  AttemptStore attempts_;
  // scheduler_schedule_attempts_total and _duration_seconds for one result of one profile.
  void recordAttempt(std::string_view result, const std::string& profile, int64_t startNanos);
  connectors::Connector& connector_;
  cycle::DecisionLog* log_;
  SchedulerOptions options_;
  std::unique_ptr<queue::Clock> ownedClock_;
  queue::Clock* clock_;

  cache::Cache cache_;
  cache::Snapshot snapshot_;
  std::unique_ptr<queue::SchedulingQueue> queue_;
  std::unique_ptr<connectors::ObjectStore> ownedObjects_;
  connectors::ObjectStore* objects_ = nullptr;
  // The kinds as last read from objects_ (for event labels), and the snapshot of the last
  // cycle with the store generation it was taken at. Loop thread only.
  std::vector<connectors::ObjectStore::KindInfo> kindInfo_;
  std::shared_ptr<const connectors::ObjectSnapshot> objectSnapshot_;
  uint64_t objectSnapshotGeneration_ = 0;
  WaitingPods waitingPods_;
  Parallelizer parallelizer_;
  // scheduler_goroutines{operation="Filter"}, {"Score"} and {"prioritizing_extender"}: the
  // threads at work on each; null without metrics.
  metrics::Gauge* filterGoroutines_ = nullptr;
  metrics::Gauge* scoreGoroutines_ = nullptr;
  metrics::Gauge* extenderGoroutines_ = nullptr;

  // Asynchronous preemptions in flight (upstream Executor.preempting and
  // lastVictimsPendingPreemption): the preemptors' uids, and for those down to their last
  // victim, that victim's uid. Lock order: the queue's lock > preemptMu_ > podsMu_.
  mutable std::mutex preemptMu_;
  std::unordered_set<std::string> preempting_;
  // preempting_.size(), read without the lock: PreEnqueue runs for every pod entering activeQ,
  // and almost always finds no preemption running.
  std::atomic<std::size_t> preemptingCount_{0};
  std::unordered_map<std::string, std::string> lastVictims_;

  // The latest object of every pod we know, by uid (upstream's pod lister).
  mutable std::mutex podsMu_;
  std::unordered_map<std::string, std::shared_ptr<const model::Pod>> pods_;

  std::size_t nextStartNodeIndex_ = 0;
  // Whether any pod was nominated when this cycle started (skips per-node lookups).
  bool haveNominatedPods_ = false;
  uint64_t rngState_ = 0;

  // The binding threads: as many as binding cycles run at once, up to maxConcurrentBindings.
  // A binding cycle takes an idle thread or starts a new one; idle threads beyond a few end
  // after a while. Under bindMu_; ended threads are joined when the next one starts, the
  // rest at destruction.
  mutable std::mutex bindMu_;
  std::condition_variable bindCv_;
  std::condition_variable bindIdleCv_;
  std::deque<std::function<void()>> bindJobs_;
  // The cancellation of each binding cycle in flight, by pod uid (cycle_wait).
  std::unordered_map<std::string, std::shared_ptr<CycleCancel>> bindingCancels_;
  std::size_t bindingsInFlight_ = 0;  // binding cycles and preemptions on the pool
  std::size_t preemptionsInFlight_ = 0;
  bool bindStopping_ = false;
  struct BindThread {
    std::thread thread;
    std::shared_ptr<std::atomic<bool>> finished;
  };
  std::vector<BindThread> bindThreads_;
  std::size_t bindThreadsAlive_ = 0;
  std::size_t bindThreadsIdle_ = 0;

  std::atomic<bool> stopping_{false};
  std::atomic<bool> synced_{false};
  // A batch run whose input is over: failed attempts count towards giving up (givesUp).
  std::atomic<bool> inputOver_{false};
  // The pods given up on, by uid (under podsMu_); an update of the pod retries it.
  std::unordered_set<std::string> failedPods_;
  // Failed attempts of each pod since the input was over (under podsMu_; see givesUp).
  std::unordered_map<std::string, int> failuresAfterInput_;
  cycle::LatencyStats latencies_;
  mutable std::mutex statsMu_;
  SchedulerStats stats_;
};

}  // namespace sh::cycle
