// UnschedulablePods: pods that were tried and found unschedulable, waiting for a cluster event
// (or the 5 minute flush) to move them; and pods gated by a PreEnqueue plugin (upstream
// backend/queue/unschedulable_pods.go). A map keyed by namespace/name.
//
// The pending_pods gauge splits the map in two: "gated" for pods with a gating plugin,
// "unschedulable" for the rest. Each entry remembers which side it was counted on, so the two
// counts stay exact.
//
// Not thread-safe: SchedulingQueue's mutex guards it.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "host/queue/queued_pod_info.h"

namespace sh::queue {

class UnschedulablePods {
 public:
  // Inserts the pod, replacing an entry with the same key. Returns true when the key was new.
  bool add(QueuedPodInfoPtr info);
  bool has(std::string_view key) const { return items_.find(key) != items_.end(); }
  QueuedPodInfo* get(std::string_view key) const;
  // Takes the pod out; nullptr when absent.
  QueuedPodInfoPtr remove(std::string_view key);

  std::size_t size() const { return items_.size(); }
  std::size_t gatedCount() const { return gated_; }
  std::size_t unschedulableCount() const { return items_.size() - gated_; }
  // Every entry, in no particular order. The pointers stay valid while the entries are owned
  // anywhere (taking one out does not invalidate the others).
  std::vector<QueuedPodInfo*> list() const;

 private:
  struct Entry {
    QueuedPodInfoPtr info;
    bool countedGated = false;
  };
  struct Hash {
    using is_transparent = void;
    std::size_t operator()(std::string_view s) const { return std::hash<std::string_view>{}(s); }
  };

  std::unordered_map<std::string, Entry, Hash, std::equal_to<>> items_;
  std::size_t gated_ = 0;
};

}  // namespace sh::queue
