#include "host/connectors/change_queue.h"

#include <utility>

namespace sh::connectors {

void ChangeQueue::push(ClusterChange change) { changes_.push_back(std::move(change)); }

void ChangeQueue::notify() { grown_.notify_all(); }

std::optional<ClusterChange> ChangeQueue::next(std::unique_lock<std::mutex>& lock,
                                               std::chrono::milliseconds timeout,
                                               const bool& stopped) {
  // Only an empty queue waits, and only for a positive timeout: the scheduler polls with 0
  // between cycles, and a wait that has already expired still drops and retakes the lock.
  if (changes_.empty() && timeout.count() > 0) {
    grown_.wait_for(lock, timeout, [&] { return stopped || !changes_.empty(); });
  }
  if (stopped || changes_.empty()) {
    return std::nullopt;
  }
  ClusterChange change = std::move(changes_.front());
  changes_.pop_front();
  return change;
}

std::size_t ChangeQueue::takeAll(std::unique_lock<std::mutex>& lock,
                                 std::chrono::milliseconds timeout, const bool& stopped,
                                 std::vector<ClusterChange>& out) {
  if (changes_.empty() && timeout.count() > 0) {
    grown_.wait_for(lock, timeout, [&] { return stopped || !changes_.empty(); });
    if (window_.count() > 0 && !changes_.empty() &&
        std::chrono::steady_clock::now() - lastTaken_ < window_) {
      // Producers notify only an empty queue: this waits out the window unless stopped.
      grown_.wait_for(lock, window_, [&] { return stopped; });
    }
  }
  if (stopped) {
    return 0;
  }
  const std::size_t n = changes_.size();
  if (n > 0 && window_.count() > 0) {
    lastTaken_ = std::chrono::steady_clock::now();
  }
  out.reserve(out.size() + n);
  for (ClusterChange& c : changes_) {
    out.push_back(std::move(c));
  }
  changes_.clear();
  return n;
}

}  // namespace sh::connectors
