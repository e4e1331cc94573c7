// SchedulingQueue: the pods waiting to be scheduled, and the rules that move them between
// sub-queues (upstream backend/queue/scheduling_queue.go: PriorityQueue, with
// v1.36 defaults: QueueingHints locked on, SchedulerPopFromBackoffQ on).
//
// A pod's states and the transitions between them:
//
//                 add, or update of a pod in no sub-queue
//                                |
//                           [PreEnqueue] --- gated ------------------------.
//                                | passes                                  |
//                                v                                         v
//   .- backoff complete --> +-----------+  pop   +-----------+    +-------------------+
//   |  (1 s flush),         |  activeQ  |------->| in flight |    | unschedulablePods |
//   |  Activate             +-----------+        +-----------+    |  gated, or        |
//   |                             ^                |       |      |  waiting for an   |
//   |          queueImmediately,  |                |     done()   |  event            |
//   |          or backoff over    |                |       v      +-------------------+
//   |                             |                |      gone       |            ^
//   |                             |    failed: addUnschedulable-     | event,     |
//   +----------+  queueAfter-  [requeue]<---IfNotPresent, replaying  | Activate,  |
//   | backoffQ |<-------------- by     |    the events seen in      | 5 min      |
//   +----------+  Backoff,     strategy|    flight                   | flush      |
//        |        backing off   ^      |                             |            |
//        |                      '------+-----------------------------'            |
//        |                             '--------------- queueSkip ----------------'
//        '-- pop when activeQ is empty (PopFromBackoffQ) --> in flight
//
// Requeue strategy (isPodWorthRequeuing, per event, for the pod's rejector plugins =
// unschedulablePlugins ∪ pendingPlugins):
//   no rejector plugin (an error)              -> queueAfterBackoff
//   wildcard event (ForceActivate, timeout)    -> queueAfterBackoff (skip when it names
//                                                 another pod)
//   a Pending plugin's hint says Queue         -> queueImmediately: activeQ, no backoff
//   an Unschedulable plugin's hint says Queue  -> queueAfterBackoff: backoffQ while backing
//                                                 off, else activeQ
//   no matching registration, or all QueueSkip -> queueSkip: stays in unschedulablePods
// Entering activeQ runs PreEnqueue (gating plugin first); entering backoffQ runs it too
// (PopFromBackoffQ), so a pod leaving backoffQ for activeQ skips it. A gated pod only reacts to
// the events its gating plugin registered.
//
// Invariants:
//   - a pod (namespace/name) is in at most one of activeQ, backoffQ, unschedulablePods, and
//     never in one of them while in flight (pop refuses a uid already in flight);
//   - the queue owns every queued QueuedPodInfo; pop() hands ownership to the scheduling
//     cycle, addUnschedulableIfNotPresent() takes it back;
//   - uninteresting events (no profile registered a match) are not recorded for in-flight pods.
//
// Threading: every public method is thread-safe. One mutex guards all sub-queues, the
// nominator and the in-flight list; pop() waits on a condition variable tied to it; run()'s
// flusher thread takes it for each flush. Lock order: SchedulingQueue::mu_ > a plugin's
// serializer mutex (PreEnqueue, QueueSort and QueueingHint run with mu_ held, like upstream),
// so plugins must not call back into the queue from those functions.
#pragma once

#include <array>
#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>
#include <thread>
#include <unordered_map>
#include <utility>
#include <vector>

#include "host/common/status.h"
#include "host/queue/active_queue.h"
#include "host/queue/backoff_queue.h"
#include "host/queue/clock.h"
#include "host/queue/cluster_event.h"
#include "host/queue/nominator.h"
#include "host/queue/queue_profile.h"
#include "host/queue/queued_pod_info.h"
#include "host/queue/unschedulable_pods.h"

namespace sh::metrics {
class Histogram;
class SchedulerMetrics;
}  // namespace sh::metrics

namespace sh::queue {

struct QueueOptions {
  // podInitialBackoffSeconds / podMaxBackoffSeconds; a max of 0 disables backoff.
  std::chrono::nanoseconds initialBackoff = std::chrono::seconds(1);
  std::chrono::nanoseconds maxBackoff = std::chrono::seconds(10);
  // How long a pod may wait in unschedulablePods before the leftover flush moves it.
  std::chrono::nanoseconds maxInUnschedulable = std::chrono::minutes(5);
  // The nominator's check that a pod still exists unbound; empty: no check.
  PodLister podLister;
};

// scheduler_pending_pods{queue}.
struct PendingCounts {
  std::size_t active = 0;
  std::size_t backoff = 0;
  std::size_t unschedulable = 0;  // in unschedulablePods and not gated
  std::size_t gated = 0;
  bool operator==(const PendingCounts&) const = default;
};

// The queue's metrics (upstream metrics/metrics.go: pending_pods and the like), for
// host/metrics to export.
struct QueueMetrics {
  // scheduler_queue_incoming_pods_total{queue, event}; queue is active|backoff|unschedulable.
  std::map<std::pair<std::string, std::string>, uint64_t> incomingPods;
  // scheduler_unschedulable_pods{plugin, profile}.
  std::map<std::pair<std::string, std::string>, int64_t> unschedulablePods;
  // scheduler_inflight_events{event}, including "PodPopped".
  std::map<std::string, int64_t> inflightEvents;
  // scheduler_pending_pods{queue}.
  PendingCounts pendingPods;
};

// Where a pod is, for tests and debugging.
enum class PodLocation { kActive, kBackoff, kUnschedulable, kInFlight };

class SchedulingQueue {
 public:
  // `clock` must outlive the queue; nullptr: a SteadyClock of the queue's own. QueueSort is
  // taken from the first profile that has one (profiles must agree on it).
  SchedulingQueue(QueueProfiles profiles, QueueOptions options = {}, const Clock* clock = nullptr);
  // Closes the queue and joins the flusher thread.
  ~SchedulingQueue();
  SchedulingQueue(const SchedulingQueue&) = delete;
  SchedulingQueue& operator=(const SchedulingQueue&) = delete;

  // -- informer-driven ----------------------------------------------------------
  // A new unscheduled pod: activeQ, or unschedulablePods when PreEnqueue gates it.
  void add(PodPtr pod);
  // A queued pod changed. In flight: the derived events are recorded for it. In activeQ or
  // backoffQ: updated in place. In unschedulablePods: each derived event may requeue it.
  // Anywhere else: added to activeQ (through PreEnqueue).
  void update(PodPtr oldPod, PodPtr newPod);
  // The pod was deleted: out of the nominator and of whichever sub-queue holds it.
  void remove(const PodPtr& pod);
  // A cluster event (upstream MoveAllToActiveOrBackoffQueue): every pod of unschedulablePods
  // whose hints say so moves to activeQ or backoffQ; the event is recorded when pods are in
  // flight. old/new are the event's objects (no old for Add, no new for Delete).
  // `preCheck`, when given, leaves out the unschedulable pods it answers false for
  // (upstream's PreEnqueueCheck).
  using PreCheck = std::function<bool(const QueuedPodInfo&)>;
  void moveAllToActiveOrBackoffQueue(const ClusterEvent& event, EventObject oldObj = {},
                                     EventObject newObj = {}, const PreCheck& preCheck = {});

  // -- scheduling-cycle-driven --------------------------------------------------------
  // Blocks until a pod can be popped: the head of activeQ, or, when activeQ is empty, the head
  // of podBackoffQ. Marks it in flight (attempts++, schedulingCycle++). Returns nullptr once
  // close() was called.
  QueuedPodInfoPtr pop();
  // pop() that returns nullptr instead of blocking.
  QueuedPodInfoPtr tryPopForTest();
  // A popped pod failed. Counts the failure (unschedulableCount, or consecutiveErrorsCount
  // when no plugin rejected it), stamps it, replays the events seen while it was in flight
  // and requeues it; then done(). An Error status (and no requeue) when the pod is already
  // queued.
  Status addUnschedulableIfNotPresent(QueuedPodInfoPtr info, int64_t podSchedulingCycle);
  // The pod's attempt is over (bound, skipped, or requeued). Idempotent.
  void done(std::string_view uid);
  // Moves pods to activeQ (PodsToActivate, preemption): from unschedulablePods or backoffQ at
  // once; an in-flight pod gets a ForceActivate event so it requeues when it comes back;
  // unknown pods are ignored.
  void activate(const std::vector<PodPtr>& pods);
  // activate() by "namespace/name" key, for the pods plugins asked for through
  // cycle_activate_pod (upstream schedule_one.go: the SchedulingQueue.Activate calls of
  // prepareForBindingCycle and bindingCycle). An in-flight pod is found among the in-flight
  // pods by its key; keys of no queued or in-flight pod are ignored.
  void activateKeys(const std::vector<std::string>& keys);
  // Runs the PreEnqueue plugins again for the pod of `key` if `plugin` gates it, and moves it on
  // when they pass: what ends an asynchronous preemption whose last victim left no event behind
  // (a pod preempted while it waited on Permit). Any other pod is left where it is.
  void retryGatedBy(std::string_view key, std::string_view plugin);
  // The current scheduling cycle (number of pops).
  int64_t schedulingCycle() const;

  // -- profile generations -------------------------------------------------------------
  // Replaces the profiles (a new generation; docs/operations.md). Every queued pod stays
  // queued, except those whose schedulerName no longer has a profile: they leave the queue
  // and the nominator and are returned (the scheduler keeps them as pods without a profile).
  // A different QueueSort (lessKey) re-sorts activeQ and backoffQ; hints and PreEnqueue
  // plugins come from the new profiles from now on, and every gated pod goes through the new
  // PreEnqueue plugins again. The old profiles are released after the queue's lock.
  std::vector<PodPtr> setProfiles(QueueProfiles profiles);

  // -- periodic work -------------------------------------------------------------------
  // Moves every pod whose backoff is complete to activeQ (event BackoffComplete).
  void flushBackoffQCompleted();
  // Moves pods that waited longer than maxInUnschedulable with the UnschedulableTimeout event
  // and marks them wasFlushedFromUnschedulable.
  void flushUnschedulablePodsLeftover();
  // Starts the flusher thread: flushBackoffQCompleted on every whole second of the clock,
  // flushUnschedulablePodsLeftover at once and then every 30 s. With a FakeClock, tests call
  // the flushes directly instead.
  void run();
  // Wakes every pop() (they return nullptr), ends every in-flight period and stops the
  // flusher. Idempotent.
  void close();

  // -- nominator -------------------------------------------------------------------------
  void addNominatedPod(const PodPtr& pod, const NominatingInfo& info);
  void deleteNominatedPodIfExists(const PodPtr& pod);
  void updateNominatedPod(const PodPtr& oldPod, const PodPtr& newPod);
  // The pods nominated to `node`: their queued version, or, for a pod in no sub-queue, one
  // rebuilt from its reference with only its name, namespace and uid (as upstream).
  std::vector<PodPtr> nominatedPodsForNode(std::string_view node) const;
  // Whether any pod is nominated anywhere (a cheap check before per-node lookups).
  bool hasNominatedPods() const;

  // -- state -----------------------------------------------------------------------------
  PendingCounts pendingCounts() const;
  // Nothing in activeQ, nothing in backoffQ and nothing in flight: the queue will not hand
  // out a pod until an event, an add or the leftover flush.
  bool quiet() const;
  QueueMetrics metrics() const;
  // Where the plugins' queueing hints are timed (scheduler_queueing_hint_execution_duration_
  // seconds{plugin, event, hint}); nullptr, the default: they are not timed. `metrics` must
  // outlive the queue.
  void setMetrics(metrics::SchedulerMetrics* metrics);

  // The pod under "namespace/name" wherever it waits (activeQ, backoffQ, unschedulablePods,
  // or in a cycle); null when the queue does not hold it.
  PodPtr pendingPod(std::string_view key) const;

  // -- test-only ------------------------------------------------------------------------
  struct PodLookup {
    PodLocation where;
    QueuedPodInfo info;  // a copy; for an in-flight pod only `pod` is set
  };
  // The pod under "namespace/name", wherever it is.
  std::optional<PodLookup> lookupForTest(std::string_view key) const;
  std::vector<PodPtr> inFlightPodsForTest() const;
  // Elements of the in-flight list (pods and events).
  std::size_t inFlightListSizeForTest() const;
  // The events (plugin, event) the queue uses for a profile, after defaults and the
  // Node/Add compatibility rule, in registration order.
  std::vector<std::pair<std::string, ClusterEvent>> registeredEventsForTest(
      std::string_view profile) const;

 private:
  enum class Strategy { kSkip, kAfterBackoff, kImmediately };
  enum class Where { kActive, kBackoff, kUnschedulable, kDropped };
  enum QueueIndex { kActiveIdx = 0, kBackoffIdx = 1, kUnschedulableIdx = 2 };

  // A registration the queue consults: which plugin, which event, and how to get its hint.
  // The hint histograms of one registration for one incoming event label, by hint label
  // (Queue, QueueSkip, Error), resolved on first use.
  struct HintHistograms {
    std::string event;
    std::array<metrics::Histogram*, 3> byHint{};
  };
  struct HintEntry {
    ClusterEvent event;
    std::string plugin;
    const EventPlugin* instance = nullptr;  // nullptr: always Queue
    int64_t index = -1;  // registration index passed to queueing_hint; -1: always Queue
    // Under mu_; a registration meets few event labels.
    mutable std::vector<HintHistograms> histograms;
  };
  struct Profile {
    std::string name;
    QueueProfile plugins;
    std::vector<HintEntry> hints;
  };
  struct StringHash {
    using is_transparent = void;
    std::size_t operator()(std::string_view s) const { return std::hash<std::string_view>{}(s); }
  };

  void buildHints();
  const Profile* profileFor(const model::Pod& pod) const;
  QueuedPodInfoPtr newQueuedPodInfo(PodPtr pod) const;

  // Everything below requires mu_.
  void runPreEnqueuePlugins(QueuedPodInfo& info);
  Where moveToActiveQ(QueuedPodInfoPtr info, std::string_view event, bool fromBackoffQ,
                      bool wasInUnschedulable);
  Where moveToBackoffQ(QueuedPodInfoPtr info, std::string_view event, bool wasInUnschedulable);
  Where requeue(QueuedPodInfoPtr info, Strategy strategy, std::string_view event,
                bool wasInUnschedulable);
  void addToUnschedulable(QueuedPodInfoPtr info, std::string_view event, bool countIncoming);
  Strategy isPodWorthRequeuing(const QueuedPodInfo& info, const ClusterEvent& event,
                               const EventObject& oldObj, const EventObject& newObj) const;
  // Runs entry's hint for the pod, timed when metrics_ is set.
  sh_queueing_hint runHint(const HintEntry& entry, const QueuedPodInfo& info,
                           const ClusterEvent& event, const sh_event_objects& objects,
                           std::optional<std::string>& eventLabel) const;
  Strategy strategyForInFlightPod(const QueuedPodInfo& info) const;
  bool isEventOfInterest(const ClusterEvent& event) const;
  void movePods(const std::vector<QueuedPodInfo*>& pods, const ClusterEvent& event,
                const PreCheck& preCheck, const EventObject& oldObj, const EventObject& newObj);
  bool activateOne(std::string_view key);
  QueuedPodInfoPtr popLocked();
  void flushBackoffQCompletedLocked();
  void flushUnschedulablePodsLeftoverLocked();
  void flushLoop();
  void countIncoming(QueueIndex queue, std::string_view event);
  void bumpUnschedulableGauge(const QueuedPodInfo& info, int64_t delta);
  void bumpUnschedulableGauge(std::string_view plugin, const model::Pod& pod, int64_t delta);

  QueueOptions options_;
  std::unique_ptr<Clock> ownClock_;
  const Clock* clock_;
  std::vector<Profile> profiles_;
  std::unordered_map<std::string, const Profile*, StringHash, std::equal_to<>> profileByName_;
  // Upstream pluginToEventsMap: every event a plugin registered, across profiles.
  std::unordered_map<std::string, std::vector<ClusterEvent>, StringHash, std::equal_to<>>
      pluginEvents_;
  LessFunc less_;
  std::string lessKey_;

  mutable std::mutex mu_;
  std::condition_variable popCond_;
  std::condition_variable flushCond_;
  ActiveQueue active_;
  BackoffQueue backoff_;
  UnschedulablePods unschedulable_;
  Nominator nominator_;
  bool closed_ = false;
  bool flusherStarted_ = false;

  // Metrics, under mu_.
  metrics::SchedulerMetrics* metrics_ = nullptr;
  std::map<std::string, uint64_t, std::less<>> incoming_[3];
  std::map<std::string, std::map<std::string, int64_t, std::less<>>, std::less<>>
      unschedulableGauge_;

  std::mutex joinMu_;  // serialises joining the flusher (close() from several threads)
  std::thread flusher_;
};

}  // namespace sh::queue
