// Snapshot: the immutable view of the cluster one scheduling cycle works on
// (reference §6.4). Plugins reach it through the host API as sh_snapshot.
//
// nodeInfos    in node-tree order (round-robin across zones)
// byName       node name -> index into nodeInfos
// withAffinity / withRequiredAntiAffinity
//              the nodes holding pods with (anti-)affinity, for InterPodAffinity
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include <schedhost/plugin.h>

#include "host/model/node.h"
#include "host/model/node_info.h"
#include "host/model/pod.h"

struct sh_snapshot {
  std::vector<std::shared_ptr<sh::model::NodeInfo>> nodeInfos;
  std::vector<const sh_node_info*> views;
  std::unordered_map<std::string_view, std::size_t> byName;
  std::vector<const sh_node_info*> withAffinity;
  std::vector<const sh_node_info*> withRequiredAntiAffinity;
  uint64_t generation = 0;

  const sh_node_info* find(std::string_view name) const {
    auto it = byName.find(name);
    return it == byName.end() ? nullptr : views[it->second];
  }
  // Rebuilds views, byName and the affinity lists from nodeInfos.
  void reindex();
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
