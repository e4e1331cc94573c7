#include "host/cycle/attempt_store.h"

#include <algorithm>
#include <tuple>

namespace sh::cycle {

std::string AttemptRecord::NodeGroup::key() const {
  std::string out = plugin.empty() ? code : plugin;
  out += ": ";
  for (std::size_t i = 0; i < reasons.size(); ++i) {
    out += (i > 0 ? "; " : "") + reasons[i];
  }
  return out;
}

std::size_t AttemptRecord::estimatedBytes() const {
  std::size_t n = sizeof(AttemptRecord) + pod.size() + uid.size() + profile.size() + result.size() +
                  message.size() + preFilterMessage.size() + postFilterMessage.size() +
                  nominatedNode.size();
  for (const auto& list : {&unschedulablePlugins, &pendingPlugins, &filterPlugins, &scorePlugins}) {
    for (const std::string& s : *list) {
      n += sizeof(std::string) + s.size();
    }
  }
  for (const NodeGroup& g : groups) {
    n += sizeof(NodeGroup) + g.plugin.size() + g.code.size();
    for (const std::string& r : g.reasons) {
      n += sizeof(std::string) + r.size();
    }
    for (const std::string& node : g.nodes) {
      n += sizeof(std::string) + node.size();
    }
  }
  for (const ScoredNode& node : best) {
    n += sizeof(ScoredNode) + node.name.size();
    for (const auto& [plugin, score] : node.scores) {
      n += sizeof(std::pair<std::string, int64_t>) + plugin.size();
    }
  }
  if (previousGroups) {
    for (const auto& [key, count] : *previousGroups) {
      n += 64 + key.size();  // a map node, roughly
    }
  }
  return n;
}

void AttemptStore::record(AttemptRecord record) {
  std::lock_guard<std::mutex> lock(mu_);
  if (auto it = byPod_.find(record.pod); it != byPod_.end()) {
    std::map<std::string, std::size_t> previous;
    for (const AttemptRecord::NodeGroup& g : it->second->second.groups) {
      previous[g.key()] += g.count;
    }
    record.previousGroups = std::move(previous);
    bytes_ -= it->second->second.estimatedBytes();
    order_.erase(it->second);
    byPod_.erase(it);
  }
  const std::size_t size = record.estimatedBytes();
  std::string pod = record.pod;
  order_.emplace_back(pod, std::move(record));
  byPod_[std::move(pod)] = std::prev(order_.end());
  bytes_ += size;
  while (bytes_ > maxBytes_ && order_.size() > 1) {
    bytes_ -= order_.front().second.estimatedBytes();
    byPod_.erase(order_.front().first);
    order_.pop_front();
  }
  count_.store(order_.size(), std::memory_order_relaxed);
}

std::optional<AttemptRecord> AttemptStore::last(std::string_view pod) const {
  std::lock_guard<std::mutex> lock(mu_);
  auto it = byPod_.find(std::string(pod));
  if (it == byPod_.end()) {
    return std::nullopt;
  }
  return it->second->second;
}

void AttemptStore::forget(std::string_view pod) {
  if (count_.load(std::memory_order_relaxed) == 0) {
    return;
  }
  std::lock_guard<std::mutex> lock(mu_);
  auto it = byPod_.find(std::string(pod));
  if (it == byPod_.end()) {
    return;
  }
  bytes_ -= it->second->second.estimatedBytes();
  order_.erase(it->second);
  byPod_.erase(it);
  count_.store(order_.size(), std::memory_order_relaxed);
}

std::size_t AttemptStore::size() const {
  std::lock_guard<std::mutex> lock(mu_);
  return order_.size();
}

std::size_t AttemptStore::bytes() const {
  std::lock_guard<std::mutex> lock(mu_);
  return bytes_;
}

std::vector<AttemptRecord::NodeGroup> groupNodes(std::vector<NodeVerdict> verdicts,
                                                 std::size_t maxNames, std::size_t maxGroups) {
  // By (plugin, code, reasons), then node name: each group's nodes come out sorted.
  std::sort(verdicts.begin(), verdicts.end(), [](const NodeVerdict& a, const NodeVerdict& b) {
    return std::tie(a.plugin, a.code, a.reasons, a.node) <
           std::tie(b.plugin, b.code, b.reasons, b.node);
  });
  std::vector<AttemptRecord::NodeGroup> groups;
  for (NodeVerdict& v : verdicts) {
    if (groups.empty() || groups.back().plugin != v.plugin || groups.back().code != v.code ||
        groups.back().reasons != v.reasons) {
      groups.push_back({std::move(v.plugin), std::move(v.code), std::move(v.reasons), 0, {}});
    }
    AttemptRecord::NodeGroup& g = groups.back();
    ++g.count;
    if (g.nodes.size() < maxNames) {
      g.nodes.push_back(std::move(v.node));
    }
  }
  std::stable_sort(groups.begin(), groups.end(),
                   [](const AttemptRecord::NodeGroup& a, const AttemptRecord::NodeGroup& b) {
                     return a.count > b.count;
                   });
  if (groups.size() > maxGroups && maxGroups > 0) {
    // The smallest groups fold into one, counted, without names.
    AttemptRecord::NodeGroup rest{"", "Other", {"other reasons"}, 0, {}};
    for (std::size_t i = maxGroups - 1; i < groups.size(); ++i) {
      rest.count += groups[i].count;
    }
    groups.resize(maxGroups - 1);
    groups.push_back(std::move(rest));
  }
  return groups;
}

}  // namespace sh::cycle
