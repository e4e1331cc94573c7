// CycleState: what plugins carry from one extension point to the next within one
// scheduling cycle (upstream framework/cycle_state.go). Write-once in the serial phases (PreFilter,
// PreScore, Reserve, Permit), read-many in the parallel ones (Filter, Score).
//
//   entries    key (interned id) -> plugin-owned data freed through its sh_state_ops
//   clone()    deep: every entry through ops->clone (shared when clone is NULL);
//              the skip sets, the snapshot and the node statuses are shared
//   podsToActivate  "namespace/name" keys plugins asked to activate (cycle_activate_pod);
//              shared by every clone, with its own lock (upstream framework/interface.go:
//              PodsToActivate, whose Clone returns itself)
#pragma once

#include <schedhost/plugin.h>

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <functional>
#include <memory>
#include <mutex>
#include <optional>
#include <set>
#include <string>
#include <unordered_map>
#include <unordered_set>
#include <vector>

struct sh_snapshot;

namespace sh {
class CycleHost;
class Framework;
class NodeToStatus;
namespace connectors {
struct ObjectSnapshot;
}

// The cancellation of one binding cycle (cycle_wait): set when the scheduler stops or the
// pod is deleted, with why (an sh_wait_end; the first reason stays); waiters wake at once.
class CycleCancel {
 public:
  void cancel(sh_wait_end why) {
    {
      std::lock_guard<std::mutex> lock(mu_);
      if (why_ == SH_WAIT_ELAPSED) {
        why_ = why;
      }
    }
    cv_.notify_all();
  }
  // Waits up to `d`: SH_WAIT_ELAPSED, or why it was cancelled (before or during the wait).
  sh_wait_end waitFor(std::chrono::milliseconds d) {
    std::unique_lock<std::mutex> lock(mu_);
    cv_.wait_for(lock, d, [this] { return why_ != SH_WAIT_ELAPSED; });
    return why_;
  }

 private:
  std::mutex mu_;
  std::condition_variable cv_;
  sh_wait_end why_ = SH_WAIT_ELAPSED;
};
}  // namespace sh

struct sh_cycle {
 public:
  sh_cycle() = default;
  ~sh_cycle();
  sh_cycle(const sh_cycle&) = delete;
  sh_cycle& operator=(const sh_cycle&) = delete;

  // Stores data under key, freeing a previous entry. Refused (data freed, false
  // returned) while the cycle is in a parallel phase.
  bool write(sh_id key, void* data, const sh_state_ops* ops);
  void* read(sh_id key) const;

  std::unique_ptr<sh_cycle> clone() const;

  // Pods to activate (upstream PodsToActivate): adds the key "namespace/name" once; takes
  // every key added so far, in the order added, and empties the list. Thread-safe; the list
  // is shared with every clone of this cycle.
  void addPodToActivate(std::string key);
  std::vector<std::string> takePodsToActivate();

  const sh_snapshot* snapshot = nullptr;
  // The objects of the declared kinds as the cycle began (ABI 1.2 object services); null when
  // no plugin declares a kind. Shared by clones and kept by the pod's binding cycle.
  std::shared_ptr<const sh::connectors::ObjectSnapshot> objects;
  // Keeps `owner` alive as long as this cycle and its clones: what the object services hand a
  // plugin from outside `objects` (an assumed version, a kind declared after the cycle began).
  void pin(std::shared_ptr<const void> owner);
  // Filter statuses of this cycle, for PostFilter (NULL outside PostFilter).
  const sh::NodeToStatus* nodeStatuses = nullptr;
  // Set by PostFilter plugins through postfilter_nominate ("" clears the nomination).
  std::optional<std::string> nominatedNode;
  // The framework running this cycle and the host serving it (both may be null in tests
  // that drive single plugins; the preemption services then answer as a host without
  // nominated pods, workers or a cluster).
  const sh::Framework* framework = nullptr;
  sh::CycleHost* host = nullptr;

  std::set<std::string> skipFilterPlugins;
  std::set<std::string> skipScorePlugins;
  // The same sets as masks over the framework's Filter and Score plugin lists, so the
  // per-node loops test a byte instead of a name.
  std::vector<uint8_t> skipFilterMask;
  std::vector<uint8_t> skipScoreMask;

  // True while Filter or Score run concurrently; writes are refused then.
  std::atomic<bool> parallelPhase{false};

  // Time every plugin call of this cycle into scheduler_plugin_execution_duration_seconds
  // (when the framework has metrics). The scheduling loop sets it for a sample of its cycles,
  // as upstream (framework/cycle_state.go: CycleState.recordPluginMetrics).
  bool recordPluginMetrics = false;

  // Set by the scheduler when the cycle's binding cycle starts (shared by clones); null
  // elsewhere: cycle_wait then waits its whole time.
  std::shared_ptr<sh::CycleCancel> cancel;

 private:
  struct Entry {
    sh_id key;
    void* data;
    const sh_state_ops* ops;
  };
  // Upstream PodsToActivate: its own mutex, shared (not copied) by clone().
  struct PodsToActivate {
    std::mutex mu;
    std::vector<std::string> keys;  // in the order asked, without duplicates
    std::unordered_set<std::string> seen;
  };
  struct Pins {
    std::mutex mu;
    std::vector<std::shared_ptr<const void>> owners;
  };
  void freeEntry(Entry& e);
  std::shared_ptr<Pins> pins_ = std::make_shared<Pins>();
  std::vector<Entry> entries_;
  std::shared_ptr<PodsToActivate> podsToActivate_ = std::make_shared<PodsToActivate>();
};

namespace sh {
using CycleState = ::sh_cycle;
}
