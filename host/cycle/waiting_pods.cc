#include "host/cycle/waiting_pods.h"

#include <sstream>

namespace sh::cycle {
namespace {

// Go's time.Duration String() for whole milliseconds: "100ms", "1.5s", "15m0s".
std::string goDuration(int64_t ms) {
  if (ms < 1000) {
    return std::to_string(ms) + "ms";
  }
  int64_t h = ms / 3600000;
  int64_t m = (ms / 60000) % 60;
  int64_t s = (ms / 1000) % 60;
  int64_t frac = ms % 1000;
  std::ostringstream out;
  if (h > 0) {
    out << h << "h";
  }
  if (h > 0 || m > 0) {
    out << m << "m";
  }
  out << s;
  if (frac != 0) {
    std::string f = std::to_string(frac + 1000).substr(1);
    while (!f.empty() && f.back() == '0') {
      f.pop_back();
    }
    out << "." << f;
  }
  out << "s";
  return out.str();
}

}  // namespace

WaitingPod::WaitingPod(std::string uid, const std::vector<std::pair<std::string, int64_t>>& waits)
    : uid_(std::move(uid)) {
  const auto now = Clock::now();
  for (const auto& [plugin, ms] : waits) {
    pending_[plugin] = now + std::chrono::milliseconds(ms);
    timeoutsMs_[plugin] = ms;
  }
}

bool WaitingPod::resolveLocked(Status s) {
  if (result_) {
    return false;
  }
  result_ = std::move(s);
  pending_.clear();
  cv_.notify_all();
  return true;
}

bool WaitingPod::allow(const std::string& plugin) {
  std::lock_guard<std::mutex> lock(mu_);
  if (result_) {
    return false;
  }
  pending_.erase(plugin);
  if (pending_.empty()) {
    return resolveLocked(Status());
  }
  return true;
}

bool WaitingPod::reject(const std::string& plugin, const std::string& message) {
  std::lock_guard<std::mutex> lock(mu_);
  Status s(SH_UNSCHEDULABLE, message);
  s.setPlugin(plugin);
  return resolveLocked(std::move(s));
}

bool WaitingPod::preempt(const std::string& plugin, const std::string& message) {
  std::lock_guard<std::mutex> lock(mu_);
  Status s(SH_ERROR, message);
  s.setPlugin(plugin);
  return resolveLocked(std::move(s));
}

Status WaitingPod::wait() {
  std::unique_lock<std::mutex> lock(mu_);
  while (!result_) {
    if (pending_.empty()) {
      resolveLocked(Status());
      break;
    }
    auto first = pending_.begin();
    for (auto it = pending_.begin(); it != pending_.end(); ++it) {
      if (it->second < first->second) {
        first = it;
      }
    }
    // Copies: allow() may erase the entry while the lock is released in wait_until.
    const std::string plugin = first->first;
    const Clock::time_point deadline = first->second;
    if (cv_.wait_until(lock, deadline) == std::cv_status::timeout && !result_ &&
        pending_.count(plugin) != 0 && Clock::now() >= deadline) {
      Status s(SH_UNSCHEDULABLE, "rejected due to timeout after waiting " +
                                     goDuration(timeoutsMs_[plugin]) + " at plugin " + plugin);
      s.setPlugin(plugin);
      resolveLocked(std::move(s));
    }
  }
  return *result_;
}

std::shared_ptr<WaitingPod> WaitingPods::add(
    const std::string& uid, const std::vector<std::pair<std::string, int64_t>>& waits) {
  auto wp = std::make_shared<WaitingPod>(uid, waits);
  std::lock_guard<std::mutex> lock(mu_);
  pods_[uid] = wp;
  return wp;
}

void WaitingPods::remove(const std::string& uid) {
  std::lock_guard<std::mutex> lock(mu_);
  pods_.erase(uid);
}

std::shared_ptr<WaitingPod> WaitingPods::get(const std::string& uid) const {
  std::lock_guard<std::mutex> lock(mu_);
  auto it = pods_.find(uid);
  return it == pods_.end() ? nullptr : it->second;
}

std::size_t WaitingPods::rejectAll(const std::string& message) {
  std::vector<std::shared_ptr<WaitingPod>> pods;
  {
    std::lock_guard<std::mutex> lock(mu_);
    for (const auto& [uid, wp] : pods_) {
      pods.push_back(wp);
    }
  }
  for (const auto& wp : pods) {
    wp->reject("", message);
  }
  return pods.size();
}

std::size_t WaitingPods::size() const {
  std::lock_guard<std::mutex> lock(mu_);
  return pods_.size();
}

}  // namespace sh::cycle
