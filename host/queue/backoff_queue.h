// BackoffQueue: pods waiting out their backoff before they may be retried (upstream
// backend/queue/backoff_queue.go: calculateBackoffDuration, with SchedulerPopFromBackoffQ on as in
// 1.36).
//
// Two heaps behind one interface:
//   podBackoffQ       pods that were rejected by plugins, ordered by backoff expiry and,
//                     within one 1 s window, by the QueueSort Less (so popping from it when
//                     activeQ is empty takes the most important pod of the earliest window);
//   podErrorBackoffQ  pods that failed with an error (no rejector plugin), ordered by expiry.
//
// Backoff: count = consecutiveErrorsCount if > 0, else unschedulableCount;
//   duration(count) = initial × 2^(count−1), capped at max (checked as initial > max >> (count−1),
//   so nothing overflows); count 0 or max 0 means no backoff;
//   expiry = truncate(timestamp + duration, 1 s), cached in the QueuedPodInfo;
//   backing off while expiry >= truncate(now, 1 s).
// With the defaults (1 s, 10 s): 1, 2, 4, 8, 10, 10, ... seconds.
//
// Not thread-safe: SchedulingQueue's mutex guards it.
#pragma once

#include <chrono>
#include <cstdint>
#include <limits>
#include <string_view>
#include <vector>

#include "host/queue/clock.h"
#include "host/queue/pod_heap.h"
#include "host/queue/queued_pod_info.h"

namespace sh::queue {

// The width of a podBackoffQ ordering window, also the period of flushBackoffQCompleted.
inline constexpr int64_t kBackoffWindowNanos = 1'000'000'000;

class BackoffQueue {
 public:
  // Returned by backoffTime() for a pod with no backoff.
  static constexpr int64_t kNoBackoff = std::numeric_limits<int64_t>::min();

  BackoffQueue(const Clock& clock, std::chrono::nanoseconds initial, std::chrono::nanoseconds max,
               PodHeap::Less queueSortLess);

  // -- the formula --------------------------------------------------------------
  // initial × 2^(count−1) capped at max; 0 for count <= 0.
  int64_t backoffDurationNanos(int count) const;
  // The pod's expiry (computed once and cached in info.backoffExpiration), or kNoBackoff.
  int64_t backoffTime(QueuedPodInfo& info) const;
  // Whether the pod must still wait: expiry >= truncate(now, 1 s).
  bool isBackingOff(QueuedPodInfo& info) const;
  // t truncated to its 1 s window.
  static int64_t alignToWindow(int64_t t);

  // -- the heaps ----------------------------------------------------------------
  // Adds the pod to podErrorBackoffQ when it has no rejector plugins, else to podBackoffQ;
  // computes its expiry first.
  void add(QueuedPodInfoPtr info);
  bool has(std::string_view key) const { return backoff_.has(key) || error_.has(key); }
  QueuedPodInfo* get(std::string_view key) const;
  // Points the entry under `key` at `pod` (expiry unchanged). False when absent.
  bool update(std::string_view key, PodPtr pod);
  QueuedPodInfoPtr remove(std::string_view key);
  // Takes out every pod whose backoff is complete: podBackoffQ first, then podErrorBackoffQ,
  // each in expiry order.
  std::vector<QueuedPodInfoPtr> popAllCompleted();
  // The head of podBackoffQ, complete or not (PopFromBackoffQ); nullptr when empty.
  QueuedPodInfoPtr popBackoff() { return backoff_.pop(); }

  // Re-sorts both heaps after the QueueSort less-function changed.
  void reheap() {
    backoff_.reheap();
    error_.reheap();
  }
  std::size_t size() const { return backoff_.size() + error_.size(); }
  std::size_t podBackoffSize() const { return backoff_.size(); }
  std::size_t podErrorBackoffSize() const { return error_.size(); }
  template <typename Fn>
  void forEach(Fn&& fn) const {
    backoff_.forEach(fn);
    error_.forEach(fn);
  }

 private:
  static int64_t expiryOf(const QueuedPodInfo& info) {
    return info.backoffExpiration.value_or(kNoBackoff);
  }
  void popCompleted(PodHeap& heap, std::vector<QueuedPodInfoPtr>& out);

  const Clock& clock_;
  int64_t initial_;
  int64_t max_;
  PodHeap backoff_;
  PodHeap error_;
};

}  // namespace sh::queue
