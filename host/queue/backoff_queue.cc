#include "host/queue/backoff_queue.h"

#include <algorithm>
#include <utility>

namespace sh::queue {

BackoffQueue::BackoffQueue(const Clock& clock, std::chrono::nanoseconds initial,
                           std::chrono::nanoseconds max, PodHeap::Less queueSortLess)
    : clock_(clock),
      initial_(std::max<int64_t>(0, static_cast<int64_t>(initial.count()))),
      max_(std::max<int64_t>(0, static_cast<int64_t>(max.count()))),
      backoff_([less = std::move(queueSortLess)](const QueuedPodInfo& a, const QueuedPodInfo& b) {
        int64_t ea = expiryOf(a);
        int64_t eb = expiryOf(b);
        if (ea != eb) {
          return ea < eb;
        }
        return less(a, b);
      }),
      error_([](const QueuedPodInfo& a, const QueuedPodInfo& b) {
        return expiryOf(a) < expiryOf(b);
      }) {}

int64_t BackoffQueue::backoffDurationNanos(int count) const {
  if (count <= 0) {
    return 0;
  }
  const int shift = count - 1;
  // max >> shift is 0 once shift reaches the width, so a large count just caps.
  const int64_t limit = shift >= 63 ? 0 : (max_ >> shift);
  if (initial_ > limit) {
    return max_;
  }
  return initial_ << shift;
}

int64_t BackoffQueue::backoffTime(QueuedPodInfo& info) const {
  if (max_ == 0) {
    return kNoBackoff;
  }
  const int count =
      info.consecutiveErrorsCount > 0 ? info.consecutiveErrorsCount : info.unschedulableCount;
  if (count == 0) {
    return kNoBackoff;
  }
  if (!info.backoffExpiration) {
    info.backoffExpiration = alignToWindow(info.timestamp + backoffDurationNanos(count));
  }
  return *info.backoffExpiration;
}

bool BackoffQueue::isBackingOff(QueuedPodInfo& info) const {
  // Not "after now": a pod whose expiry lies in the current window is still backing off.
  return backoffTime(info) >= alignToWindow(clock_.nowNanos());
}

int64_t BackoffQueue::alignToWindow(int64_t t) {
  int64_t q = t / kBackoffWindowNanos;
  if (t % kBackoffWindowNanos < 0) {
    --q;  // floor, like time.Truncate, for times before the epoch
  }
  return q * kBackoffWindowNanos;
}

void BackoffQueue::add(QueuedPodInfoPtr info) {
  backoffTime(*info);
  std::string key = info->key();
  if (!info->hasRejectors()) {
    backoff_.remove(key);
    error_.addOrUpdate(std::move(info));
    return;
  }
  error_.remove(key);
  backoff_.addOrUpdate(std::move(info));
}

QueuedPodInfo* BackoffQueue::get(std::string_view key) const {
  if (QueuedPodInfo* p = backoff_.get(key)) {
    return p;
  }
  return error_.get(key);
}

bool BackoffQueue::update(std::string_view key, PodPtr pod) {
  auto setPod = [&](QueuedPodInfo& info) { info.pod = std::move(pod); };
  return backoff_.update(key, setPod) || error_.update(key, setPod);
}

QueuedPodInfoPtr BackoffQueue::remove(std::string_view key) {
  if (QueuedPodInfoPtr p = backoff_.remove(key)) {
    return p;
  }
  return error_.remove(key);
}

std::vector<QueuedPodInfoPtr> BackoffQueue::popAllCompleted() {
  std::vector<QueuedPodInfoPtr> out;
  popCompleted(backoff_, out);
  popCompleted(error_, out);
  return out;
}

void BackoffQueue::popCompleted(PodHeap& heap, std::vector<QueuedPodInfoPtr>& out) {
  while (QueuedPodInfo* head = heap.peek()) {
    if (isBackingOff(*head)) {
      break;
    }
    out.push_back(heap.pop());
  }
}

}  // namespace sh::queue
