// QueuedPodInfo: a pod plus what the queue knows about its scheduling attempts (upstream
// framework/types.go: QueuedPodInfo).
//
// Ownership: exactly one place holds a QueuedPodInfo at a time — one of the sub-queues
// (activeQ, backoffQ, unschedulablePods) or, between pop() and its return through
// addUnschedulableIfNotPresent(), the scheduling cycle. Hence QueuedPodInfoPtr is a unique_ptr.
#pragma once

#include <schedhost/plugin.h>

#include <cstdint>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <vector>

#include "host/model/pod.h"
#include "host/model/pod_key.h"
#include "host/queue/cluster_event.h"

namespace sh::queue {

// Plugin names, sorted.
using PluginSet = std::set<std::string, std::less<>>;

struct QueuedPodInfo {
  PodPtr pod;
  // When the pod was created in the queue or re-added after a failed attempt.
  int64_t timestamp = 0;
  // The first time the pod entered activeQ; unset until then.
  std::optional<int64_t> initialAttemptTimestamp;
  // Incremented by every pop.
  int attempts = 0;
  // Re-adds with rejector plugins; the backoff count when consecutiveErrorsCount is 0.
  int unschedulableCount = 0;
  // Re-adds with no rejector plugin (errors) since the last rejection.
  int consecutiveErrorsCount = 0;
  // The backoff expiry, cached by the backoff queue; reset when the pod is re-added.
  std::optional<int64_t> backoffExpiration;
  // Plugins that rejected the pod in its last attempt (Unschedulable, Unresolvable, Pending,
  // or a gating PreEnqueue), and the subset that answered Pending.
  PluginSet unschedulablePlugins;
  PluginSet pendingPlugins;
  // The PreEnqueue plugin that currently gates the pod ("" when not gated) and the events it
  // registered.
  std::string gatingPlugin;
  std::vector<ClusterEvent> gatingPluginEvents;
  // Set when flushUnschedulablePodsLeftover moved the pod (pod_scheduled_after_flush_total).
  bool wasFlushedFromUnschedulable = false;

  bool gated() const { return !gatingPlugin.empty(); }
  bool hasRejectors() const { return !unschedulablePlugins.empty() || !pendingPlugins.empty(); }
  // unschedulablePlugins ∪ pendingPlugins.
  PluginSet rejectorPlugins() const {
    PluginSet out = unschedulablePlugins;
    out.insert(pendingPlugins.begin(), pendingPlugins.end());
    return out;
  }
  bool isRejector(std::string_view plugin) const {
    return unschedulablePlugins.count(plugin) != 0 || pendingPlugins.count(plugin) != 0;
  }
  std::string_view uid() const { return pod->uid(); }
  // "namespace/name", the key of every sub-queue.
  std::string key() const { return model::podKey(*pod); }

  // What QueueSort receives. Valid while this QueuedPodInfo and its pod live.
  sh_queued_pod view() const {
    sh_queued_pod v{};
    v.struct_size = sizeof(sh_queued_pod);
    v.attempts = attempts < 0 ? 0u : static_cast<uint32_t>(attempts);
    v.pod = &pod->view();
    v.timestamp_unix_nanos = timestamp;
    return v;
  }
};

using QueuedPodInfoPtr = std::unique_ptr<QueuedPodInfo>;

}  // namespace sh::queue
