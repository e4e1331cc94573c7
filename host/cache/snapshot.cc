#include "host/cache/snapshot.h"

#include <algorithm>

#include "host/cache/node_tree.h"
#include "host/model/image_states.h"

namespace {

std::string_view nodeName(const sh_node_info& v) { return {v.node->name.ptr, v.node->name.len}; }

// Keeps `list` (with its parallel, ascending `index`) equal to the subsequence of nodeInfos
// whose views have the property, after position i changed from `hadIt` to `hasIt`.
void patchList(std::vector<const sh_node_info*>& list, std::vector<uint32_t>& index, uint32_t i,
               bool hadIt, bool hasIt, const sh_node_info* view) {
  if (!hadIt && !hasIt) {
    return;
  }
  auto it = std::lower_bound(index.begin(), index.end(), i);
  auto at = it - index.begin();
  bool present = it != index.end() && *it == i;
  if (hasIt && present) {
    list[at] = view;
  } else if (hasIt) {
    index.insert(it, i);
    list.insert(list.begin() + at, view);
  } else if (present) {
    index.erase(it);
    list.erase(list.begin() + at);
  }
}

// Adds (sign 1) or takes away (sign -1) a node's PVC reference counts from the snapshot's.
void countPvcs(std::unordered_map<std::string, uint32_t>& used,
               const sh::model::NodeInfo::PvcRefCounts& node, int sign) {
  for (const auto& [key, count] : node) {
    if (sign > 0) {
      used[key] += count;
      continue;
    }
    auto it = used.find(key);
    if (it != used.end() && (it->second -= std::min(it->second, count)) == 0) {
      used.erase(it);
    }
  }
}

}  // namespace

void sh_snapshot::reindex() {
  views.clear();
  byName.clear();
  withAffinity.clear();
  withRequiredAntiAffinity.clear();
  withAffinityIndex.clear();
  withRequiredAntiAffinityIndex.clear();
  usedPvcs.clear();
  views.reserve(nodeInfos.size());
  byName.reserve(nodeInfos.size());
  for (std::size_t i = 0; i < nodeInfos.size(); ++i) {
    countPvcs(usedPvcs, nodeInfos[i]->pvcRefCounts(), 1);
    const sh_node_info& v = nodeInfos[i]->view();
    views.push_back(&v);
    byName.emplace(nodeName(v), i);
    if (v.pods_with_affinity_count > 0) {
      withAffinity.push_back(&v);
      withAffinityIndex.push_back(static_cast<uint32_t>(i));
    }
    if (v.pods_with_required_anti_affinity_count > 0) {
      withRequiredAntiAffinity.push_back(&v);
      withRequiredAntiAffinityIndex.push_back(static_cast<uint32_t>(i));
    }
  }
}

void sh_snapshot::replaceAt(std::size_t i, std::shared_ptr<sh::model::NodeInfo> info) {
  // The old NodeInfo stays alive until the end: byName's key points into its node.
  std::shared_ptr<sh::model::NodeInfo> old = std::move(nodeInfos[i]);
  const sh_node_info& was = old->view();
  const sh_node_info& now = info->view();
  if (was.node != now.node) {
    auto nh = byName.extract(nodeName(was));
    if (nh.empty()) {
      byName.emplace(nodeName(now), i);
    } else {
      nh.key() = nodeName(now);
      byName.insert(std::move(nh));
    }
  }
  if (!old->pvcRefCounts().empty() || !info->pvcRefCounts().empty()) {
    countPvcs(usedPvcs, old->pvcRefCounts(), -1);
    countPvcs(usedPvcs, info->pvcRefCounts(), 1);
  }
  const auto at = static_cast<uint32_t>(i);
  patchList(withAffinity, withAffinityIndex, at, was.pods_with_affinity_count > 0,
            now.pods_with_affinity_count > 0, &now);
  patchList(withRequiredAntiAffinity, withRequiredAntiAffinityIndex, at,
            was.pods_with_required_anti_affinity_count > 0,
            now.pods_with_required_anti_affinity_count > 0, &now);
  views[i] = &now;
  nodeInfos[i] = std::move(info);
}

namespace sh::cache {

std::unique_ptr<Snapshot> buildSnapshot(
    const std::vector<std::shared_ptr<const model::Node>>& nodes,
    const std::vector<std::shared_ptr<const model::Pod>>& pods,
    std::vector<std::shared_ptr<const model::Pod>>* orphans) {
  auto snap = std::make_unique<Snapshot>();
  NodeTree tree;
  std::unordered_map<std::string, std::shared_ptr<model::NodeInfo>> infos;
  for (const auto& node : nodes) {
    const sh_node& v = node->view();
    std::string name(v.name.ptr, v.name.len);
    if (infos.count(name) != 0) {
      continue;  // a duplicate name: the first object wins
    }
    auto info = std::make_shared<model::NodeInfo>(node);
    infos.emplace(name, std::move(info));
    tree.add(v);
  }
  for (const auto& pod : pods) {
    const sh_pod& p = pod->view();
    auto it = infos.find(std::string(p.node_name.ptr, p.node_name.len));
    if (it == infos.end()) {
      if (orphans != nullptr) {
        orphans->push_back(pod);
      }
      continue;
    }
    it->second->addPod(pod);
  }
  for (const std::string& name : tree.list()) {
    snap->nodeInfos.push_back(infos.at(name));
  }
  std::vector<model::NodeInfo*> raw;
  raw.reserve(snap->nodeInfos.size());
  for (const auto& info : snap->nodeInfos) {
    raw.push_back(info.get());
  }
  model::computeImageStates(raw);
  snap->reindex();
  return snap;
}

}  // namespace sh::cache
