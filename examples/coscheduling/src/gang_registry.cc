#include "gang_registry.h"

#include <iterator>

namespace coscheduling {

void GangRegistry::notePending(const std::string& group, std::string_view uid,
                               std::string_view name, int64_t now) {
  std::lock_guard<std::mutex> lock(mu_);
  groups_[group].pending[std::string(uid)] = {std::string(name), now};
  expireLocked(group, now);
  sweepLocked(now);
}

void GangRegistry::noteAssigned(const std::string& group, std::string_view uid) {
  std::lock_guard<std::mutex> lock(mu_);
  groups_[group].assigned.emplace(uid);
}

void GangRegistry::noteWaiting(const std::string& group, std::string_view uid) {
  std::lock_guard<std::mutex> lock(mu_);
  groups_[group].waiting.emplace(uid);
}

void GangRegistry::forget(const std::string& group, std::string_view uid) {
  std::lock_guard<std::mutex> lock(mu_);
  auto it = groups_.find(group);
  if (it != groups_.end()) {
    it->second.assigned.erase(std::string(uid));
    it->second.waiting.erase(std::string(uid));
  }
}

void GangRegistry::noteBound(const std::string& group, std::string_view uid, int64_t now) {
  std::lock_guard<std::mutex> lock(mu_);
  Group& g = groups_[group];
  const std::string key(uid);
  g.pending.erase(key);
  g.assigned.erase(key);
  g.waiting.erase(key);
  g.bound[key] = now;
  expireLocked(group, now);
  sweepLocked(now);
}

std::vector<std::string> GangRegistry::takeWaiting(const std::string& group) {
  std::lock_guard<std::mutex> lock(mu_);
  std::vector<std::string> out;
  auto it = groups_.find(group);
  if (it != groups_.end()) {
    out.assign(it->second.waiting.begin(), it->second.waiting.end());
    it->second.waiting.clear();
  }
  return out;
}

std::vector<std::string> GangRegistry::waitingExcept(const std::string& group,
                                                     std::string_view uid) const {
  std::lock_guard<std::mutex> lock(mu_);
  std::vector<std::string> out;
  auto it = groups_.find(group);
  if (it != groups_.end()) {
    for (const std::string& w : it->second.waiting) {
      if (w != uid) {
        out.push_back(w);
      }
    }
  }
  return out;
}

std::vector<GangRegistry::Member> GangRegistry::idleSiblings(const std::string& group,
                                                             std::string_view uid,
                                                             int64_t now) const {
  std::lock_guard<std::mutex> lock(mu_);
  std::vector<Member> out;
  auto it = groups_.find(group);
  if (it == groups_.end()) {
    return out;
  }
  const Group& g = it->second;
  for (const auto& [member, seen] : g.pending) {
    if (member != uid && now - seen.second < kMemberTtlNanos && g.assigned.count(member) == 0 &&
        g.waiting.count(member) == 0) {
      out.push_back(Member{member, seen.first});
    }
  }
  return out;
}

void GangRegistry::addFreshLocked(const Group& g, std::set<std::string, std::less<>>& uids,
                                  bool pending, bool assigned, int64_t now) const {
  if (pending) {
    for (const auto& [uid, seen] : g.pending) {
      if (now - seen.second < kMemberTtlNanos) {
        uids.insert(uid);
      }
    }
  }
  if (assigned) {
    uids.insert(g.assigned.begin(), g.assigned.end());
  }
  for (const auto& [uid, when] : g.bound) {
    if (now - when < kMemberTtlNanos) {
      uids.insert(uid);
    }
  }
}

int64_t GangRegistry::assignedCount(const std::string& group,
                                    const std::vector<std::string>& snapshot, std::string_view self,
                                    int64_t now) const {
  std::set<std::string, std::less<>> uids(snapshot.begin(), snapshot.end());
  if (!self.empty()) {
    uids.emplace(self);
  }
  std::lock_guard<std::mutex> lock(mu_);
  if (auto it = groups_.find(group); it != groups_.end()) {
    addFreshLocked(it->second, uids, false, true, now);
  }
  return static_cast<int64_t>(uids.size());
}

int64_t GangRegistry::memberCount(const std::string& group,
                                  const std::vector<std::string>& snapshot, std::string_view self,
                                  int64_t now) const {
  std::set<std::string, std::less<>> uids(snapshot.begin(), snapshot.end());
  if (!self.empty()) {
    uids.emplace(self);
  }
  std::lock_guard<std::mutex> lock(mu_);
  if (auto it = groups_.find(group); it != groups_.end()) {
    addFreshLocked(it->second, uids, true, true, now);
  }
  return static_cast<int64_t>(uids.size());
}

int64_t GangRegistry::boundCount(const std::string& group, const std::vector<std::string>& snapshot,
                                 int64_t now) const {
  std::set<std::string, std::less<>> uids(snapshot.begin(), snapshot.end());
  std::lock_guard<std::mutex> lock(mu_);
  if (auto it = groups_.find(group); it != groups_.end()) {
    addFreshLocked(it->second, uids, false, false, now);
  }
  return static_cast<int64_t>(uids.size());
}

void GangRegistry::backOff(const std::string& group, int64_t until) {
  std::lock_guard<std::mutex> lock(mu_);
  groups_[group].backoffUntil = until;
}

bool GangRegistry::backedOff(const std::string& group, int64_t now) const {
  std::lock_guard<std::mutex> lock(mu_);
  auto it = groups_.find(group);
  return it != groups_.end() && now < it->second.backoffUntil;
}

std::shared_ptr<std::mutex> GangRegistry::statusLock(const std::string& group) {
  std::lock_guard<std::mutex> lock(mu_);
  std::shared_ptr<std::mutex>& l = groups_[group].statusLock;
  if (l == nullptr) {
    l = std::make_shared<std::mutex>();
  }
  return l;
}

std::size_t GangRegistry::groupCountForTest() const {
  std::lock_guard<std::mutex> lock(mu_);
  return groups_.size();
}

void GangRegistry::expireLocked(const std::string& key, int64_t now) {
  auto it = groups_.find(key);
  if (it == groups_.end()) {
    return;
  }
  Group& g = it->second;
  for (auto p = g.pending.begin(); p != g.pending.end();) {
    p = now - p->second.second >= kMemberTtlNanos ? g.pending.erase(p) : std::next(p);
  }
  for (auto b = g.bound.begin(); b != g.bound.end();) {
    b = now - b->second >= kMemberTtlNanos ? g.bound.erase(b) : std::next(b);
  }
  if (g.pending.empty() && g.assigned.empty() && g.waiting.empty() && g.bound.empty() &&
      g.backoffUntil <= now && (g.statusLock == nullptr || g.statusLock.use_count() == 1)) {
    groups_.erase(it);
  }
}

void GangRegistry::sweepLocked(int64_t now) {
  constexpr int64_t kSweepNanos = int64_t{60} * 1'000'000'000;
  if (now - lastSweep_ < kSweepNanos) {
    return;
  }
  lastSweep_ = now;
  std::vector<std::string> keys;
  keys.reserve(groups_.size());
  for (const auto& entry : groups_) {
    keys.push_back(entry.first);
  }
  for (const std::string& key : keys) {
    expireLocked(key, now);
  }
}

}  // namespace coscheduling
