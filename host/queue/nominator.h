// Nominator: pods nominated to run on a node, usually by preemption, before they are bound
// (upstream backend/queue/nominator.go, v1.36).
//
//   byNode:    nodeName -> [pod refs]   (insertion order)
//   nodeByUid: uid -> nodeName
//
// A pod appears at most once. The scheduling cycle of another pod consults podsForNode() to
// count nominated pods of equal or higher priority as already placed (upstream
// framework/runtime/framework.go: RunFilterPluginsWithNominatedPods).
//
// Not thread-safe: SchedulingQueue's mutex guards it (upstream's nLock is folded into it).
#pragma once

#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "host/model/pod.h"
#include "host/queue/cluster_event.h"

namespace sh::queue {

// Upstream fwk.NominatingInfo. A default-constructed value is Noop (like a nil pointer).
struct NominatingInfo {
  enum class Mode { kNoop, kOverride };
  Mode mode = Mode::kNoop;
  std::string nominatedNodeName;

  static NominatingInfo overrideWith(std::string node) {
    return NominatingInfo{Mode::kOverride, std::move(node)};
  }
};

// What the nominator remembers of a pod.
struct PodRef {
  std::string name;
  std::string namespaceName;
  std::string uid;
  bool operator==(const PodRef&) const = default;
};

// The informer's current copy of a pod, or nullptr when it no longer exists.
using PodLister = std::function<PodPtr(std::string_view namespaceName, std::string_view name)>;

class Nominator {
 public:
  // Without a lister, add() trusts its caller (upstream: podLister == nil).
  explicit Nominator(PodLister lister = {}) : lister_(std::move(lister)) {}

  // AddNominatedPod. Removes any previous entry of the pod, then records it on:
  //   Override: info.nominatedNodeName; "" clears the nomination (v1.36 records the pod
  //             under "", a node no lookup names: the same answers);
  //   Noop:     the pod's status.nominatedNodeName, or nothing when that is empty.
  // Skipped when the lister no longer has the pod or has it bound to a node.
  void add(const model::Pod& pod, const NominatingInfo& info);
  // UpdateNominatedPod: replaces old by cur. When neither carries status.nominatedNodeName but
  // the nominator had one for the pod, that nomination is kept (an update racing with
  // preemption must not lose it).
  void update(const model::Pod& old, const model::Pod& cur);
  // DeleteNominatedPodIfExists, by uid.
  void remove(const model::Pod& pod);

  // The pods nominated to `node`, in nomination order.
  std::vector<PodRef> podsForNode(std::string_view node) const;
  // The node the pod `uid` is nominated to, if any.
  std::optional<std::string> nodeOf(std::string_view uid) const;
  std::size_t size() const { return nodeByUid_.size(); }

 private:
  struct Hash {
    using is_transparent = void;
    std::size_t operator()(std::string_view s) const { return std::hash<std::string_view>{}(s); }
  };
  void removeUid(std::string_view uid);

  PodLister lister_;
  std::unordered_map<std::string, std::vector<PodRef>, Hash, std::equal_to<>> byNode_;
  std::unordered_map<std::string, std::string, Hash, std::equal_to<>> nodeByUid_;
};

}  // namespace sh::queue
