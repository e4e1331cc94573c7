// WaitingPods: pods held by Permit (upstream framework/runtime/waiting_pods_map.go).
//
//   add(pod, {plugin -> timeout})  ->  WAITING  --allow(last plugin)-->  ALLOWED (Success)
//                                        |--reject(plugin, msg)----->  REJECTED (Unschedulable)
//                                        |--preempt(plugin, msg)---->  PREEMPTED (Error)
//                                        '--a plugin's timeout------>  REJECTED ("rejected due to
//                                                                       timeout after waiting ...")
//
// The binding cycle blocks in wait(); plugins (through the host API) and the scheduler
// (pod deleted, preemption) resolve it from other threads. Each pod is resolved once;
// later calls return false.
#pragma once

#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <unordered_map>
#include <vector>

#include "host/common/status.h"

namespace sh::cycle {

class WaitingPod {
 public:
  using Clock = std::chrono::steady_clock;
  WaitingPod(std::string uid, const std::vector<std::pair<std::string, int64_t>>& waits);

  bool allow(const std::string& plugin);
  bool reject(const std::string& plugin, const std::string& message);
  bool preempt(const std::string& plugin, const std::string& message);
  // Blocks until resolved; applies the plugins' timeouts itself.
  Status wait();
  const std::string& uid() const { return uid_; }

 private:
  bool resolveLocked(Status s);
  std::string uid_;
  std::mutex mu_;
  std::condition_variable cv_;
  std::map<std::string, Clock::time_point> pending_;  // plugin -> deadline
  std::map<std::string, int64_t> timeoutsMs_;
  std::optional<Status> result_;
};

class WaitingPods {
 public:
  std::shared_ptr<WaitingPod> add(const std::string& uid,
                                  const std::vector<std::pair<std::string, int64_t>>& waits);
  void remove(const std::string& uid);
  std::shared_ptr<WaitingPod> get(const std::string& uid) const;
  std::size_t size() const;
  // Rejects every waiting pod (the scheduler is stopping). Returns how many were waiting.
  std::size_t rejectAll(const std::string& message);

 private:
  mutable std::mutex mu_;
  std::unordered_map<std::string, std::shared_ptr<WaitingPod>> pods_;
};

}  // namespace sh::cycle
