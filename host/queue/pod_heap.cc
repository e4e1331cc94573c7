#include "host/queue/pod_heap.h"

#include <utility>

namespace sh::queue {

QueuedPodInfo* PodHeap::get(std::string_view key) const {
  auto it = items_.find(key);
  return it == items_.end() ? nullptr : it->second.info.get();
}

void PodHeap::addOrUpdate(QueuedPodInfoPtr info) {
  std::string key = info->key();
  auto it = items_.find(key);
  if (it != items_.end()) {
    it->second.info = std::move(info);
    fix(it->second.index);
    return;
  }
  auto inserted = items_.emplace(std::move(key), Entry{std::move(info), heap_.size()}).first;
  Entry& e = inserted->second;
  e.key = &inserted->first;
  heap_.push_back(&e);
  up(e.index);
}

bool PodHeap::update(std::string_view key, const std::function<void(QueuedPodInfo&)>& fn) {
  auto it = items_.find(key);
  if (it == items_.end()) {
    return false;
  }
  fn(*it->second.info);
  fix(it->second.index);
  return true;
}

QueuedPodInfoPtr PodHeap::remove(std::string_view key) {
  auto it = items_.find(key);
  if (it == items_.end()) {
    return nullptr;
  }
  return removeAt(it->second.index);
}

QueuedPodInfoPtr PodHeap::pop() {
  if (heap_.empty()) {
    return nullptr;
  }
  return removeAt(0);
}

void PodHeap::reheap() {
  // Floyd's construction: sift down every inner node, last first.
  for (std::size_t i = heap_.size() / 2; i-- > 0;) {
    down(i);
  }
}

void PodHeap::swapAt(std::size_t i, std::size_t j) {
  std::swap(heap_[i], heap_[j]);
  heap_[i]->index = i;
  heap_[j]->index = j;
}

void PodHeap::fix(std::size_t i) {
  if (!up(i)) {
    down(i);
  }
}

bool PodHeap::up(std::size_t i) {
  bool moved = false;
  while (i > 0) {
    std::size_t parent = (i - 1) / 2;
    if (!lessAt(i, parent)) {
      break;
    }
    swapAt(i, parent);
    i = parent;
    moved = true;
  }
  return moved;
}

void PodHeap::down(std::size_t i) {
  const std::size_t n = heap_.size();
  while (true) {
    std::size_t left = 2 * i + 1;
    if (left >= n) {
      break;
    }
    std::size_t best = left;
    if (left + 1 < n && lessAt(left + 1, left)) {
      best = left + 1;
    }
    if (!lessAt(best, i)) {
      break;
    }
    swapAt(i, best);
    i = best;
  }
}

QueuedPodInfoPtr PodHeap::removeAt(std::size_t i) {
  const std::size_t last = heap_.size() - 1;
  if (i != last) {
    swapAt(i, last);
  }
  Entry* e = heap_.back();
  heap_.pop_back();
  if (i != last) {
    fix(i);
  }
  QueuedPodInfoPtr out = std::move(e->info);
  items_.erase(items_.find(std::string_view(*e->key)));
  return out;
}

}  // namespace sh::queue
