// Snapshot: the immutable view of the cluster one scheduling cycle works on (upstream
// backend/cache/snapshot.go, filled by backend/cache/cache.go: UpdateSnapshot). Plugins reach it
// through the host API as sh_snapshot.
//
// nodeInfos    in node-tree order (round-robin across zones)
// byName       node name -> index into nodeInfos
// withAffinity / withRequiredAntiAffinity
//              the nodes holding pods with (anti-)affinity, for InterPodAffinity, in
//              nodeInfos order; the ...Index vectors hold their positions in nodeInfos
//
// A NodeInfo reached through a snapshot is never modified: Cache::updateSnapshot replaces
// the shared_ptr of a node that changed (replaceAt) instead of writing into it, so whoever
// still holds the old one keeps a stable object.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include <schedhost/plugin.h>

#include "host/model/cluster_objects.h"
#include "host/model/node.h"
#include "host/model/node_info.h"
#include "host/model/pod.h"

struct sh_snapshot {
  std::vector<std::shared_ptr<sh::model::NodeInfo>> nodeInfos;
  std::vector<const sh_node_info*> views;
  std::unordered_map<std::string_view, std::size_t> byName;
  std::vector<const sh_node_info*> withAffinity;
  std::vector<const sh_node_info*> withRequiredAntiAffinity;
  std::vector<uint32_t> withAffinityIndex;              // parallel to withAffinity
  std::vector<uint32_t> withRequiredAntiAffinityIndex;  // parallel to withRequiredAntiAffinity
  // "namespace/claim" -> how many pods of the snapshot use that PersistentVolumeClaim: the
  // sum of the nodes' PVC reference counts (upstream Snapshot.usedPVCSet, with counts so that
  // replaceAt can patch it).
  std::unordered_map<std::string, uint32_t> usedPvcs;
  // The newest change (NodeInfo or image generation) this snapshot reflects.
  uint64_t generation = 0;
  // Namespaces, Services and workload controllers; nullptr when the cluster has none.
  std::shared_ptr<const sh::model::ClusterObjects> objects;
  // Set by sh::cache::Cache::updateSnapshot: the cache that last updated this snapshot (0:
  // none) and the version of that cache's node tree the node order was built from.
  uint64_t cacheId = 0;
  uint64_t nodeTreeVersion = 0;

  bool pvcInUse(const std::string& key) const { return usedPvcs.count(key) != 0; }
  const sh_node_info* find(std::string_view name) const {
    auto it = byName.find(name);
    return it == byName.end() ? nullptr : views[it->second];
  }
  // Rebuilds views, byName and the affinity lists from nodeInfos.
  void reindex();
  // Puts `info` (a NodeInfo of the same node name, with a node) at position i, patching
  // views[i], the byName key when the node object changed, and the affinity lists. Costs
  // O(log n), plus a move of the affinity list's tail when the node joins or leaves it.
  void replaceAt(std::size_t i, std::shared_ptr<sh::model::NodeInfo> info);
};

namespace sh::cache {

using Snapshot = ::sh_snapshot;

// Builds a snapshot from whole objects: nodes in node-tree order, each pod placed on
// the node its spec.nodeName names. Pods naming an unknown node are returned in
// `orphans` (they would be waiting for the node in a live cluster).
std::unique_ptr<Snapshot> buildSnapshot(
    const std::vector<std::shared_ptr<const model::Node>>& nodes,
    const std::vector<std::shared_ptr<const model::Pod>>& pods,
    std::vector<std::shared_ptr<const model::Pod>>* orphans = nullptr);

}  // namespace sh::cache
