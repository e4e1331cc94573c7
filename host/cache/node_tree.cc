#include "host/cache/node_tree.h"

#include <algorithm>

namespace sh::cache {
namespace {

std::string_view labelValue(const sh_node& node, std::string_view key) {
  for (uint32_t i = 0; i < node.label_count; ++i) {
    const sh_label& l = node.labels[i];
    if (std::string_view(l.key_str.ptr, l.key_str.len) == key) {
      return std::string_view(l.value_str.ptr, l.value_str.len);
    }
  }
  return {};
}

// The beta label wins over the GA one, as upstream's GetZoneKey.
std::string_view firstSet(const sh_node& node, std::string_view beta, std::string_view ga) {
  std::string_view v = labelValue(node, beta);
  return v.empty() ? labelValue(node, ga) : v;
}

}  // namespace

std::string zoneKey(const sh_node& node) {
  std::string_view zone =
      firstSet(node, "failure-domain.beta.kubernetes.io/zone", "topology.kubernetes.io/zone");
  std::string_view region =
      firstSet(node, "failure-domain.beta.kubernetes.io/region", "topology.kubernetes.io/region");
  if (zone.empty() && region.empty()) {
    return {};
  }
  std::string key(region);
  key.append(":\x00:", 3);
  key.append(zone);
  return key;
}

void NodeTree::add(const sh_node& node) {
  std::string name(node.name.ptr, node.name.len);
  if (zoneOf_.count(name) != 0) {
    return;
  }
  std::string key = zoneKey(node);
  auto it = std::find_if(zones_.begin(), zones_.end(), [&](const Zone& z) { return z.key == key; });
  if (it == zones_.end()) {
    zones_.push_back(Zone{key, {}});
    it = zones_.end() - 1;
  }
  it->nodes.push_back(name);
  zoneOf_.emplace(std::move(name), std::move(key));
  ++numNodes_;
}

bool NodeTree::remove(std::string_view nodeName) {
  auto found = zoneOf_.find(std::string(nodeName));
  if (found == zoneOf_.end()) {
    return false;
  }
  auto zit = std::find_if(zones_.begin(), zones_.end(),
                          [&](const Zone& z) { return z.key == found->second; });
  if (zit != zones_.end()) {
    auto& nodes = zit->nodes;
    nodes.erase(std::find(nodes.begin(), nodes.end(), nodeName));
    if (nodes.empty()) {
      zones_.erase(zit);
    }
  }
  zoneOf_.erase(found);
  --numNodes_;
  return true;
}

void NodeTree::update(const sh_node& oldNode, const sh_node& newNode) {
  if (zoneKey(oldNode) == zoneKey(newNode)) {
    return;
  }
  remove(std::string_view(oldNode.name.ptr, oldNode.name.len));
  add(newNode);
}

std::vector<std::string> NodeTree::list() const {
  std::vector<std::string> out;
  out.reserve(numNodes_);
  for (std::size_t round = 0; out.size() < numNodes_; ++round) {
    for (const Zone& z : zones_) {
      if (round < z.nodes.size()) {
        out.push_back(z.nodes[round]);
      }
    }
  }
  return out;
}

}  // namespace sh::cache
