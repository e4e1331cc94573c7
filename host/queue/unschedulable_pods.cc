#include "host/queue/unschedulable_pods.h"

#include <utility>

namespace sh::queue {

bool UnschedulablePods::add(QueuedPodInfoPtr info) {
  const bool gated = info->gated();
  std::string key = info->key();
  auto it = items_.find(key);
  if (it != items_.end()) {
    if (it->second.countedGated) {
      --gated_;
    }
    it->second = Entry{std::move(info), gated};
    if (gated) {
      ++gated_;
    }
    return false;
  }
  items_.emplace(std::move(key), Entry{std::move(info), gated});
  if (gated) {
    ++gated_;
  }
  return true;
}

QueuedPodInfo* UnschedulablePods::get(std::string_view key) const {
  auto it = items_.find(key);
  return it == items_.end() ? nullptr : it->second.info.get();
}

QueuedPodInfoPtr UnschedulablePods::remove(std::string_view key) {
  auto it = items_.find(key);
  if (it == items_.end()) {
    return nullptr;
  }
  if (it->second.countedGated) {
    --gated_;
  }
  QueuedPodInfoPtr out = std::move(it->second.info);
  items_.erase(it);
  return out;
}

std::vector<QueuedPodInfo*> UnschedulablePods::list() const {
  std::vector<QueuedPodInfo*> out;
  out.reserve(items_.size());
  for (const auto& [key, entry] : items_) {
    out.push_back(entry.info.get());
  }
  return out;
}

}  // namespace sh::queue
