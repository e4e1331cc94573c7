#include "host/cache/snapshot.h"

#include "host/cache/node_tree.h"
#include "host/model/image_states.h"

void sh_snapshot::reindex() {
  views.clear();
  byName.clear();
  withAffinity.clear();
  withRequiredAntiAffinity.clear();
  views.reserve(nodeInfos.size());
  byName.reserve(nodeInfos.size());
  for (std::size_t i = 0; i < nodeInfos.size(); ++i) {
    const sh_node_info& v = nodeInfos[i]->view();
    views.push_back(&v);
    byName.emplace(std::string_view(v.node->name.ptr, v.node->name.len), i);
    if (v.pods_with_affinity_count > 0) {
      withAffinity.push_back(&v);
    }
    if (v.pods_with_required_anti_affinity_count > 0) {
      withRequiredAntiAffinity.push_back(&v);
    }
  }
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
    it->second->add_pod(pod);
  }
  for (const std::string& name : tree.list()) {
    snap->nodeInfos.push_back(infos.at(name));
  }
  std::vector<model::NodeInfo*> raw;
  raw.reserve(snap->nodeInfos.size());
  for (const auto& info : snap->nodeInfos) {
    raw.push_back(info.get());
  }
  model::compute_image_states(raw);
  snap->reindex();
  return snap;
}

}  // namespace sh::cache
