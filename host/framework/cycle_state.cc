#include "host/framework/cycle_state.h"

#include <utility>

sh_cycle::~sh_cycle() {
  for (Entry& e : entries_) {
    freeEntry(e);
  }
}

void sh_cycle::freeEntry(Entry& e) {
  if (e.ops != nullptr && e.ops->free != nullptr && e.data != nullptr) {
    e.ops->free(e.data);
  }
  e.data = nullptr;
}

bool sh_cycle::write(sh_id key, void* data, const sh_state_ops* ops) {
  if (parallelPhase.load(std::memory_order_relaxed)) {
    Entry tmp{key, data, ops};
    freeEntry(tmp);
    return false;
  }
  for (Entry& e : entries_) {
    if (e.key == key) {
      freeEntry(e);
      e.data = data;
      e.ops = ops;
      return true;
    }
  }
  entries_.push_back(Entry{key, data, ops});
  return true;
}

void* sh_cycle::read(sh_id key) const {
  for (const Entry& e : entries_) {
    if (e.key == key) {
      return e.data;
    }
  }
  return nullptr;
}

std::unique_ptr<sh_cycle> sh_cycle::clone() const {
  auto c = std::make_unique<sh_cycle>();
  c->snapshot = snapshot;
  c->nodeStatuses = nodeStatuses;
  c->framework = framework;
  c->host = host;
  c->skipFilterPlugins = skipFilterPlugins;
  c->skipScorePlugins = skipScorePlugins;
  c->skipFilterMask = skipFilterMask;
  c->skipScoreMask = skipScoreMask;
  c->recordPluginMetrics = recordPluginMetrics;
  c->podsToActivate_ = podsToActivate_;  // shared, as upstream PodsToActivate.Clone
  c->objects = objects;
  c->pins_ = pins_;
  c->cancel = cancel;
  c->entries_.reserve(entries_.size());
  for (const Entry& e : entries_) {
    // An entry without a clone function is shared; only the original frees it.
    if (e.ops != nullptr && e.ops->clone != nullptr && e.data != nullptr) {
      c->entries_.push_back(Entry{e.key, e.ops->clone(e.data), e.ops});
    } else {
      static const sh_state_ops kShared = {nullptr, nullptr};
      c->entries_.push_back(Entry{e.key, e.data, &kShared});
    }
  }
  return c;
}

void sh_cycle::addPodToActivate(std::string key) {
  std::lock_guard<std::mutex> lock(podsToActivate_->mu);
  if (podsToActivate_->seen.insert(key).second) {
    podsToActivate_->keys.push_back(std::move(key));
  }
}

std::vector<std::string> sh_cycle::takePodsToActivate() {
  std::lock_guard<std::mutex> lock(podsToActivate_->mu);
  std::vector<std::string> out;
  out.swap(podsToActivate_->keys);
  podsToActivate_->seen.clear();
  return out;
}

void sh_cycle::pin(std::shared_ptr<const void> owner) {
  std::lock_guard<std::mutex> lock(pins_->mu);
  pins_->owners.push_back(std::move(owner));
}
