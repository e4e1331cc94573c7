// ChangeQueue: the cluster changes a connector has yet to hand to the scheduler through
// Connector::next(), in order. It has no mutex of its own: its owner guards it, together with
// the rest of the owner's state, with the owner's mutex, and every method must be called with
// that mutex held.
#pragma once

#include <chrono>
#include <condition_variable>
#include <cstddef>
#include <deque>
#include <mutex>
#include <optional>
#include <vector>

#include "host/connectors/connector.h"

namespace sh::connectors {

class ChangeQueue {
 public:
  // Appends `change`; call notify() once the pushes are done.
  void push(ClusterChange change);
  // Wakes next(): the queue grew, the input ended, or the owner stopped.
  void notify();
  // The oldest change, waiting up to `timeout` for one while `stopped` is false. nullopt when
  // none came or `stopped` is true. `lock` holds the owner's mutex.
  std::optional<ClusterChange> next(std::unique_lock<std::mutex>& lock,
                                    std::chrono::milliseconds timeout, const bool& stopped);
  // Moves every queued change to the end of `out` (after waiting as next() does); returns how
  // many.
  std::size_t takeAll(std::unique_lock<std::mutex>& lock, std::chrono::milliseconds timeout,
                      const bool& stopped, std::vector<ClusterChange>& out);
  // Batches a busy stream (0, the default: off). When takeAll() had to wait for a change and
  // the batch before left less than `window` ago, changes are arriving one by one faster than
  // the loop takes them: it then lets `window` pass before taking, so the loop is woken once
  // for the changes of that time, not once for each. A quiet queue is never delayed.
  void coalesce(std::chrono::microseconds window) { window_ = window; }
  bool empty() const { return changes_.empty(); }
  std::size_t size() const { return changes_.size(); }

 private:
  std::condition_variable grown_;
  std::deque<ClusterChange> changes_;
  std::chrono::microseconds window_{0};
  std::chrono::steady_clock::time_point lastTaken_{};
};

}  // namespace sh::connectors
