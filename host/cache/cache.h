// Cache: the scheduler's view of the cluster between snapshots, as kube-scheduler's backend/cache
// (cache.go). Event handlers feed it nodes and bound pods, the scheduling cycle assumes pods into
// it, and updateSnapshot() copies what changed into the cycle's Snapshot.
//
// State machine of a pod in the cache (keyed by UID):
//
//   +----------------------------------------------+  +-----+
//   |                             Add              |  |     |
//   |                                              |  |     | Update
//   +        Assume                   Add          v  v     |
//   Initial +--------> Assumed +-----------------> Added <--+
//   ^                     +                          +
//   |                     |                          |
//   |                     |                          | Remove
//   |                     |                          |
//   |                     |                          v
//   +---------------------+                       Deleted
//           Forget
//
// "Initial" and "Deleted" pods are not in the cache. Assumptions, as upstream:
//   - a pod is never assumed twice;
//   - a pod may be added without going through the scheduler (Add without Assume);
//   - a pod that was not added is never updated or removed.
// There is no assumed-pod expiry in 1.36: an assumed pod stays until Add confirms it or
// Forget drops it (finishBinding() is a no-op kept for the binding cycle's call).
//
// Nodes: a removed node whose pods are still cached stays as a NodeInfo without a node (a
// "ghost") until its last pod goes; a pod naming an unknown node creates one. Ghosts are in
// no snapshot.
//
// Error policy: every failure is returned as a Status. Where upstream exits the process
// because the cache is corrupted (a pod updated or removed on another node than the one it
// was cached on), this cache logs an error, counts it (corruptionCount()), brings that pod
// in line with the event, and returns an Error status saying so.
//
// updateSnapshot() cost: a copy of each node changed since the snapshot's generation plus an
// O(log n) patch of the snapshot's indexes, so O(changed nodes) in the common case; O(n) when
// the node tree changed (a node added or removed, or moved to another zone). When an image's
// node count changes, every node holding it is copied again so that num_nodes is exact in
// all NodeInfos (upstream leaves the other holders' counts stale until they change).
//
// Threading: every method takes one mutex; there are no lock-free reads. updateSnapshot()
// writes only into the snapshot it is given, which its caller must not share while it runs;
// NodeInfos already published are never written, so they may be read from any thread.
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <list>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "host/cache/cached_node.h"
#include "host/cache/image_index.h"
#include "host/cache/node_tree.h"
#include "host/cache/snapshot.h"
#include "host/common/status.h"
#include "host/model/node.h"
#include "host/model/node_info.h"
#include "host/model/pod.h"

namespace sh::cache {

// For the scheduler_cache_size{type} gauge. `nodes` counts ghost entries too, as upstream.
struct CacheSize {
  std::size_t nodes = 0;
  std::size_t pods = 0;
  std::size_t assumedPods = 0;
};

// Everything the cache holds, copied (see Cache::dumpForTest()).
struct CacheDump {
  // Nodes zone by zone in node-tree order: buildSnapshot(nodes, pods) lists them in the same
  // order as the cache's snapshots.
  std::vector<std::shared_ptr<const model::Node>> nodes;
  std::vector<std::shared_ptr<const model::Pod>> pods;  // sorted by UID
  std::vector<std::string> assumedPods;                 // UIDs, sorted
  std::map<std::string, model::NodeInfo> nodeInfos;     // every entry, ghosts included
};

class Cache {
 public:
  Cache();
  Cache(const Cache&) = delete;
  Cache& operator=(const Cache&) = delete;

  // Nodes. addNode of a known node acts as updateNode; updateNode of an unknown node adds
  // it. `oldNode` is informational: the cache compares against the node it holds.
  Status addNode(std::shared_ptr<const model::Node> node);
  Status updateNode(const std::shared_ptr<const model::Node>& oldNode,
                    std::shared_ptr<const model::Node> newNode);
  Status removeNode(const model::Node& node);

  // Pods. Each needs a UID and a node name.
  // Adds the pod to its node and marks it assumed; an error if the UID is cached.
  Status assumePod(std::shared_ptr<const model::Pod> pod);
  // Drops an assumed pod. A pod that is not cached is a no-op; one that is not assumed, or
  // was assumed on another node, is an error.
  Status forgetPod(const std::shared_ptr<const model::Pod>& pod);
  // A no-op: 1.36 has no assumed-pod expiry, so there is nothing to arm once binding ends.
  Status finishBinding(const std::shared_ptr<const model::Pod>& pod);
  // An informer-confirmed bound pod. Replaces the assumed copy (on the pod's node, which may
  // differ from the assumed one), or adds an unknown pod; an error if already added.
  Status addPod(std::shared_ptr<const model::Pod> pod);
  // Replaces an added pod. An error for unknown or assumed pods.
  Status updatePod(const std::shared_ptr<const model::Pod>& oldPod,
                   std::shared_ptr<const model::Pod> newPod);
  // Removes the cached copy (assumed or added); an error when the pod is not cached.
  Status removePod(const model::Pod& pod);

  bool isAssumedPod(std::string_view uid) const;
  // The cached pod (assumed or added), or nullptr.
  std::shared_ptr<const model::Pod> getPod(std::string_view uid) const;

  // Brings `snapshot` up to date (upstream backend/cache/cache.go: UpdateSnapshot). Only the nodes
  // changed since the snapshot's generation are copied; the node order is rebuilt only when the
  // node tree changed. A snapshot this cache has not updated before is rebuilt in full. When the
  // result is inconsistent it is rebuilt in full and an Error is returned, as upstream.
  Status updateSnapshot(Snapshot& snapshot);

  CacheSize size() const;
  // Cache states repaired instead of exiting (see the error policy above).
  uint64_t corruptionCount() const;

  // Every node (in node-tree order, as dumpForTest's) and every pod, assumed ones included:
  // what a dry run of the whole cluster starts from (schedhost explain's what-if list). O(n)
  // under the lock: not for the scheduling loop.
  std::pair<std::vector<std::shared_ptr<const model::Node>>,
            std::vector<std::shared_ptr<const model::Pod>>>
  objects() const;

  // The ...ForTest methods copy or expose internals: DO NOT use outside of tests.
  CacheDump dumpForTest() const;
  // Entry names, most recently changed first.
  std::vector<std::string> recencyOrderForTest() const;
  std::size_t imageCountForTest() const;
  std::optional<ImageIndex::Summary> imageForTest(sh_id name) const;

 private:
  using NodeList = std::list<CachedNode>;
  struct PodState {
    std::shared_ptr<const model::Pod> pod;
    bool assumed = false;
  };
  struct StringHash {
    using is_transparent = void;
    std::size_t operator()(std::string_view s) const { return std::hash<std::string_view>{}(s); }
  };

  NodeList::iterator findNode(std::string_view name);
  NodeList::iterator findOrCreateNode(std::string_view name);
  void moveToFront(NodeList::iterator it);
  void eraseNode(NodeList::iterator it);
  void setNode(std::shared_ptr<const model::Node> node);

  void addPodLocked(std::shared_ptr<const model::Pod> pod, bool assumed);
  void removePodLocked(const model::Pod& cached);
  // objects(), under mu_.
  std::pair<std::vector<std::shared_ptr<const model::Node>>,
            std::vector<std::shared_ptr<const model::Pod>>>
  objectsLocked() const;
  void noteCorruption(const std::string& message);
  Status corrupted(std::string message);

  std::shared_ptr<model::NodeInfo> publish(CachedNode& node);
  void markImagesStale(CachedNode& node);
  void refreshImages(CachedNode& node);
  uint64_t latestGeneration() const;
  void rebuildSnapshot(Snapshot& snapshot);
  void relistSnapshot(
      Snapshot& snapshot,
      std::unordered_map<std::string_view, std::shared_ptr<model::NodeInfo>>& fresh);

  const uint64_t id_;
  mutable std::mutex mu_;
  // Guarded by mu_:
  NodeList nodes_;                                                   // most recently changed first
  std::unordered_map<std::string_view, NodeList::iterator> byName_;  // keys: CachedNode::name
  NodeTree tree_;
  uint64_t treeVersion_ = 1;  // bumped whenever a node joins or leaves tree_
  ImageIndex images_;
  std::unordered_map<std::string, PodState, StringHash, std::equal_to<>> pods_;
  std::size_t assumedCount_ = 0;
  uint64_t publishRound_ = 0;
  uint64_t corruptions_ = 0;
};

}  // namespace sh::cache
