// NodeToStatus: the Filter phase's verdict per node (upstream framework/types.go: NodeToStatus).
// Nodes that passed are absent; nodes never examined answer the "absent" status.
#pragma once

#include <cstddef>
#include <string>
#include <unordered_map>
#include <vector>

#include "host/common/status.h"

namespace sh {

class NodeToStatus {
 public:
  NodeToStatus() : absent_(SH_UNSCHEDULABLE_AND_UNRESOLVABLE) {}

  void set(const std::string& node, Status status) { map_[node] = std::move(status); }
  // The explicit status of `node`, or the absent status.
  const Status& get(const std::string& node) const {
    auto it = map_.find(node);
    return it == map_.end() ? absent_ : it->second;
  }
  bool has(const std::string& node) const { return map_.count(node) != 0; }
  std::size_t size() const { return map_.size(); }

  const Status& absent() const { return absent_; }
  void setAbsent(Status s) { absent_ = std::move(s); }

  const std::unordered_map<std::string, Status>& entries() const { return map_; }

 private:
  std::unordered_map<std::string, Status> map_;
  Status absent_;
};

}  // namespace sh

// PreFilter's restriction of the node set; `restricted` false means all nodes.
struct sh_prefilter_result {
  bool restricted = false;
  std::vector<std::string> nodes;
};
