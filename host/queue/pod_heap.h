// PodHeap: a binary heap of owned QueuedPodInfos keyed by "namespace/name" (upstream
// backend/heap). add, update, remove and pop are O(log n); has and get are O(1).
//
// Not thread-safe: the SchedulingQueue's mutex guards every heap.
#pragma once

#include <cstddef>
#include <functional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "host/queue/queued_pod_info.h"

namespace sh::queue {

class PodHeap {
 public:
  // Strict weak order: true when `a` should pop before `b`.
  using Less = std::function<bool(const QueuedPodInfo& a, const QueuedPodInfo& b)>;

  explicit PodHeap(Less less) : less_(std::move(less)) {}
  PodHeap(const PodHeap&) = delete;
  PodHeap& operator=(const PodHeap&) = delete;

  std::size_t size() const { return heap_.size(); }
  bool empty() const { return heap_.empty(); }
  bool has(std::string_view key) const { return items_.find(key) != items_.end(); }
  // The entry under `key`, or nullptr. Change its ordering fields only through update().
  QueuedPodInfo* get(std::string_view key) const;

  // Inserts `info` under its key, replacing (and destroying) any entry already there.
  void addOrUpdate(QueuedPodInfoPtr info);
  // Restores the order after `fn` changed the entry under `key`. False when absent.
  bool update(std::string_view key, const std::function<void(QueuedPodInfo&)>& fn);
  // Takes the entry under `key` out; nullptr when absent.
  QueuedPodInfoPtr remove(std::string_view key);

  // The head, or nullptr when empty.
  QueuedPodInfo* peek() const { return heap_.empty() ? nullptr : heap_.front()->info.get(); }
  // Takes the head out; nullptr when empty.
  QueuedPodInfoPtr pop();
  // Restores the heap order after the less-function itself changed (a new QueueSort): O(n).
  void reheap();

  // Calls fn(const QueuedPodInfo&) for every entry, in heap (not sorted) order.
  template <typename Fn>
  void forEach(Fn&& fn) const {
    for (const Entry* e : heap_) {
      fn(static_cast<const QueuedPodInfo&>(*e->info));
    }
  }

 private:
  struct Entry {
    QueuedPodInfoPtr info;
    std::size_t index = 0;
    const std::string* key = nullptr;  // the map node's key
  };
  struct Hash {
    using is_transparent = void;
    std::size_t operator()(std::string_view s) const { return std::hash<std::string_view>{}(s); }
  };

  bool lessAt(std::size_t i, std::size_t j) const {
    return less_(*heap_[i]->info, *heap_[j]->info);
  }
  void swapAt(std::size_t i, std::size_t j);
  // Moves the entry at i up or down to its place.
  void fix(std::size_t i);
  bool up(std::size_t i);
  void down(std::size_t i);
  QueuedPodInfoPtr removeAt(std::size_t i);

  Less less_;
  // Nodes of an unordered_map never move, so the heap can point at them.
  std::unordered_map<std::string, Entry, Hash, std::equal_to<>> items_;
  std::vector<Entry*> heap_;
};

}  // namespace sh::queue
