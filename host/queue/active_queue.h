// ActiveQueue: the pods ready to be scheduled, and the pods being scheduled (upstream
// backend/queue/active_queue.go, with its in-flight pods and events).
//
// activeQ is a heap ordered by the profiles' QueueSort Less and keyed by namespace/name. The
// head is what pop() hands to the scheduling cycle next.
//
// In-flight bookkeeping. A popped pod is "in flight" until done(uid): its scheduling cycle,
// Permit wait or binding cycle is running. One ordered list holds both the in-flight pods and
// the cluster events seen while any pod was in flight:
//
//     inFlightEvents:  [pod A] -> NodeAdd -> [pod B] -> AssignedPodDelete -> ...
//     inFlightPods:    uid(A) -> its element, uid(B) -> its element
//
// When A comes back unschedulable, only the events after A's element are replayed for it
// (eventsSince). done(A) unlinks A's element and then drops events from the front until the
// front is a pod, because no remaining in-flight pod started before them.
//
// Invariants:
//   - a uid is in inFlightPods at most once; popping a pod already in flight is refused
//     (startAttempt returns false) and the caller discards that copy, as upstream;
//   - the list never starts with an event: events are appended only while some pod is in
//     flight, and done() prunes the events that lead the list.
//
// Not thread-safe: SchedulingQueue's mutex guards it.
#pragma once

#include <cstdint>
#include <list>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <variant>
#include <vector>

#include "host/queue/cluster_event.h"
#include "host/queue/pod_heap.h"
#include "host/queue/queued_pod_info.h"

namespace sh::queue {

// A cluster event remembered for in-flight pods, with its objects.
struct InFlightEvent {
  ClusterEvent event;
  EventObject oldObj;
  EventObject newObj;
};

// The inflight_events gauge label of popped pods (upstream metrics.PodPoppedInFlightEvent).
inline constexpr std::string_view kPodPoppedInFlightEvent = "PodPopped";

class ActiveQueue {
 public:
  explicit ActiveQueue(PodHeap::Less queueSortLess) : heap_(std::move(queueSortLess)) {}

  // -- activeQ ------------------------------------------------------------------
  std::size_t size() const { return heap_.size(); }
  bool empty() const { return heap_.empty(); }
  bool has(std::string_view key) const { return heap_.has(key); }
  QueuedPodInfo* get(std::string_view key) const { return heap_.get(key); }
  // Adds the pod, replacing an entry with the same key.
  void add(QueuedPodInfoPtr info) { heap_.addOrUpdate(std::move(info)); }
  // Points the entry under `key` at `pod` and re-sorts it. False when absent.
  bool update(std::string_view key, PodPtr pod);
  QueuedPodInfoPtr remove(std::string_view key) { return heap_.remove(key); }
  // The head of activeQ, without any in-flight bookkeeping; nullptr when empty.
  QueuedPodInfoPtr pop() { return heap_.pop(); }
  // Re-sorts activeQ after the QueueSort less-function changed.
  void reheap() { heap_.reheap(); }
  template <typename Fn>
  void forEach(Fn&& fn) const {
    heap_.forEach(std::forward<Fn>(fn));
  }

  // -- in flight ------------------------------------------------------------------
  // Marks a just-popped pod in flight: attempts++, schedulingCycle++. Returns false (and does
  // neither) when its uid is already in flight.
  bool startAttempt(QueuedPodInfo& info);
  int64_t schedulingCycle() const { return schedulingCycle_; }
  bool isInFlight(std::string_view uid) const { return inFlightPods_.count(uid) != 0; }
  std::size_t inFlightPodCount() const { return inFlightPods_.size(); }
  std::vector<PodPtr> inFlightPods() const;

  // Records `event` when any pod is in flight. Returns whether it was recorded.
  bool addEventIfAnyInFlight(const ClusterEvent& event, const EventObject& oldObj,
                             const EventObject& newObj);
  // Records `events` when the pod `uid` is in flight. Returns whether it is.
  bool addEventsIfPodInFlight(std::string_view uid, const EventObject& oldObj,
                              const EventObject& newObj, const std::vector<ClusterEvent>& events);
  // The events recorded since the pod `uid` was popped, oldest first; nullopt when the pod is
  // not in flight. Pointers are valid until the next call that changes the list.
  std::optional<std::vector<const InFlightEvent*>> eventsSince(std::string_view uid) const;
  // Ends the pod's in-flight period and prunes events no in-flight pod can see. No-op when
  // the pod is not in flight.
  void done(std::string_view uid);
  // done() for every in-flight pod (close()).
  void doneAll();

  // scheduler_inflight_events{event}: recorded events per label, and popped pods.
  const std::map<std::string, int64_t, std::less<>>& inFlightEventsGauge() const { return gauge_; }
  std::size_t inFlightListSizeForTest() const { return list_.size(); }

 private:
  struct PodMarker {
    PodPtr pod;
  };
  using Item = std::variant<PodMarker, InFlightEvent>;
  struct Hash {
    using is_transparent = void;
    std::size_t operator()(std::string_view s) const { return std::hash<std::string_view>{}(s); }
  };

  void pushEvent(const ClusterEvent& event, const EventObject& oldObj, const EventObject& newObj);
  void bumpGauge(std::string_view label, int64_t delta);

  PodHeap heap_;
  int64_t schedulingCycle_ = 0;
  std::list<Item> list_;
  std::unordered_map<std::string, std::list<Item>::iterator, Hash, std::equal_to<>> inFlightPods_;
  std::map<std::string, int64_t, std::less<>> gauge_;
};

}  // namespace sh::queue
