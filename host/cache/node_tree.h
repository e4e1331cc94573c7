// NodeTree: the order in which the snapshot lists nodes (upstream backend/cache/node_tree.go).
//
// Nodes are grouped by zone (region + ":\x00:" + zone, beta labels winning), zones
// and the nodes inside a zone in insertion order; list() walks the zones round-robin
// so consecutive nodes come from different zones.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include <schedhost/plugin.h>

namespace sh::cache {

// The zone key of a node: region + ":\x00:" + zone, or "" when neither is set.
std::string zoneKey(const sh_node& node);

class NodeTree {
 public:
  void add(const sh_node& node);
  // Removes the node (its zone when it was the last one). Returns false if unknown.
  bool remove(std::string_view nodeName);
  // A node whose zone changed moves to the end of its new zone.
  void update(const sh_node& oldNode, const sh_node& newNode);

  // Node names in round-robin zone order.
  std::vector<std::string> list() const;
  std::size_t size() const { return numNodes_; }

 private:
  struct Zone {
    std::string key;
    std::vector<std::string> nodes;
  };
  std::vector<Zone> zones_;
  std::unordered_map<std::string, std::string> zoneOf_;  // node -> zone key
  std::size_t numNodes_ = 0;
};

}  // namespace sh::cache
