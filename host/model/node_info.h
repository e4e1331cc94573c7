// A node with the pods placed on it, as kube-scheduler's framework.NodeInfo, kept in the
// layout of the ABI's sh_node_info.
//
//   add_pod(p)      pods += p; requested += p.requests; non-zero sums += p's; used ports +=
//                   p.host_ports; p joins pods_with_affinity / ..._required_anti_affinity
//   remove_pod(uid) the reverse; the removed pod's slot is filled by the last pod (swap with
//                   last, as upstream), so pod order is not stable
//   set_node(n)     replaces the node; remove_node() clears it (pods stay)
//   every mutation takes a new generation from a process-wide counter (nextGeneration)
//
// Invariants: view() is always current and points only into this NodeInfo, its node and its
// pods (shared, immutable); reading it costs nothing. Copies (and clone()) are deep for
// everything the NodeInfo owns, so mutating a copy never affects the original.
//
// Threading: const methods may run concurrently; mutations need exclusive access.
#ifndef SCHEDHOST_HOST_MODEL_NODE_INFO_H
#define SCHEDHOST_HOST_MODEL_NODE_INFO_H

#include <schedhost/plugin.h>

#include <map>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "host/model/node.h"
#include "host/model/pod.h"
#include "host/model/quantity.h"

namespace sh::model {

// A fresh value of the process-wide generation counter.
uint64_t nextGeneration();

class NodeInfo {
 public:
  NodeInfo();
  explicit NodeInfo(std::shared_ptr<const Node> node);
  NodeInfo(const NodeInfo& other);
  NodeInfo& operator=(const NodeInfo& other);
  NodeInfo(NodeInfo&& other) noexcept;
  NodeInfo& operator=(NodeInfo&& other) noexcept;
  ~NodeInfo() = default;

  // The ABI view, refreshed by every mutation.
  const sh_node_info& view() const { return view_; }

  const std::shared_ptr<const Node>& node() const { return node_; }
  void setNode(std::shared_ptr<const Node> node);
  void removeNode();

  const std::vector<std::shared_ptr<const Pod>>& pods() const { return pods_; }
  void addPod(std::shared_ptr<const Pod> pod);
  // Removes the pod with this uid; false when there is none.
  bool removePod(std::string_view uid);

  // Image states for ImageLocality, sorted by name id (the snapshot computes them, see
  // compute_image_states()).
  void setImageStates(std::vector<sh_image_state> states);

  uint64_t generation() const { return view_.generation; }

  // "namespace/claim" -> how many of the node's pods use that PersistentVolumeClaim through
  // a persistentVolumeClaim or ephemeral volume (upstream NodeInfo.PVCRefCounts).
  using PvcRefCounts = std::map<std::string, uint32_t, std::less<>>;
  const PvcRefCounts& pvcRefCounts() const { return pvcRefCounts_; }

  // A deep copy (pods are shared, immutable), as NodeInfo.Snapshot().
  NodeInfo clone() const { return *this; }

 private:
  // Exact sums; the view shows them saturated to int64, so adding and removing pods with
  // absurd requests stays reversible.
  struct Totals {
    int128_t milliCpu = 0;
    int128_t memory = 0;
    int128_t ephemeralStorage = 0;
    int128_t nonZeroMilliCpu = 0;
    int128_t nonZeroMemory = 0;
  };
  // Used-port multiset: a port stays in use until the last pod using it goes.
  struct PortUse {
    sh_host_port port;
    uint32_t count;
  };

  void account(const Pod& pod, int sign);
  void addScalars(const sh_resources& r, int sign);
  void addPort(const sh_host_port& p);
  void removePort(const sh_host_port& p);
  void refreshView();

  std::shared_ptr<const Node> node_;
  std::vector<std::shared_ptr<const Pod>> pods_;
  std::vector<const sh_pod*> podViews_;
  std::vector<const sh_pod*> withAffinity_;
  std::vector<const sh_pod*> withRequiredAntiAffinity_;
  Totals totals_;
  std::vector<int128_t> scalarTotals_;         // parallel to requested_scalars_
  std::vector<sh_quantity> requestedScalars_;  // sorted by name
  std::vector<PortUse> portUses_;
  std::vector<sh_host_port> usedPorts_;
  std::vector<sh_image_state> imageStates_;
  PvcRefCounts pvcRefCounts_;
  sh_node_info view_{};
};

}  // namespace sh::model

#endif  // SCHEDHOST_HOST_MODEL_NODE_INFO_H
