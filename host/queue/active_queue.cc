#include "host/queue/active_queue.h"

#include <utility>

namespace sh::queue {

bool ActiveQueue::update(std::string_view key, PodPtr pod) {
  return heap_.update(key, [&](QueuedPodInfo& info) { info.pod = std::move(pod); });
}

bool ActiveQueue::startAttempt(QueuedPodInfo& info) {
  std::string_view uid = info.uid();
  if (inFlightPods_.count(uid) != 0) {
    return false;
  }
  ++info.attempts;
  ++schedulingCycle_;
  auto it = list_.insert(list_.end(), Item(PodMarker{info.pod}));
  inFlightPods_.emplace(std::string(uid), it);
  bumpGauge(kPodPoppedInFlightEvent, 1);
  return true;
}

std::vector<PodPtr> ActiveQueue::inFlightPods() const {
  std::vector<PodPtr> out;
  out.reserve(inFlightPods_.size());
  for (const auto& [uid, it] : inFlightPods_) {
    out.push_back(std::get<PodMarker>(*it).pod);
  }
  return out;
}

void ActiveQueue::pushEvent(const ClusterEvent& event, const EventObject& oldObj,
                            const EventObject& newObj) {
  list_.push_back(Item(InFlightEvent{event, oldObj, newObj}));
  bumpGauge(event.label(), 1);
}

bool ActiveQueue::addEventIfAnyInFlight(const ClusterEvent& event, const EventObject& oldObj,
                                        const EventObject& newObj) {
  if (inFlightPods_.empty()) {
    return false;
  }
  pushEvent(event, oldObj, newObj);
  return true;
}

bool ActiveQueue::addEventsIfPodInFlight(std::string_view uid, const EventObject& oldObj,
                                         const EventObject& newObj,
                                         const std::vector<ClusterEvent>& events) {
  if (inFlightPods_.count(uid) == 0) {
    return false;
  }
  for (const ClusterEvent& e : events) {
    pushEvent(e, oldObj, newObj);
  }
  return true;
}

std::optional<std::vector<const InFlightEvent*>> ActiveQueue::eventsSince(
    std::string_view uid) const {
  auto found = inFlightPods_.find(uid);
  if (found == inFlightPods_.end()) {
    return std::nullopt;
  }
  std::vector<const InFlightEvent*> out;
  for (auto it = std::next(found->second); it != list_.end(); ++it) {
    if (const auto* e = std::get_if<InFlightEvent>(&*it)) {
      out.push_back(e);
    }
  }
  return out;
}

void ActiveQueue::done(std::string_view uid) {
  auto found = inFlightPods_.find(uid);
  if (found == inFlightPods_.end()) {
    return;
  }
  list_.erase(found->second);
  inFlightPods_.erase(found);
  // Events before the first remaining pod can be seen by nobody.
  while (!list_.empty()) {
    const auto* e = std::get_if<InFlightEvent>(&list_.front());
    if (e == nullptr) {
      break;
    }
    bumpGauge(e->event.label(), -1);
    list_.pop_front();
  }
  bumpGauge(kPodPoppedInFlightEvent, -1);
}

void ActiveQueue::doneAll() {
  while (!inFlightPods_.empty()) {
    std::string uid = inFlightPods_.begin()->first;
    done(uid);
  }
}

void ActiveQueue::bumpGauge(std::string_view label, int64_t delta) {
  auto it = gauge_.find(label);
  if (it == gauge_.end()) {
    it = gauge_.emplace(std::string(label), 0).first;
  }
  it->second += delta;
}

}  // namespace sh::queue
