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

#include <memory>
#include <string_view>
#include <vector>

#include "host/model/node.h"
#include "host/model/pod.h"
#include "host/model/quantity.h"

namespace sh::model {

// A fresh value of the process-wide generation counter.
uint64_t next_generation();

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
  void set_node(std::shared_ptr<const Node> node);
  void remove_node();

  const std::vector<std::shared_ptr<const Pod>>& pods() const { return pods_; }
  void add_pod(std::shared_ptr<const Pod> pod);
  // Removes the pod with this uid; false when there is none.
  bool remove_pod(std::string_view uid);

  // Image states for ImageLocality, sorted by name id (the snapshot computes them, see
  // compute_image_states()).
  void set_image_states(std::vector<sh_image_state> states);

  uint64_t generation() const { return view_.generation; }

  // A deep copy (pods are shared, immutable), as NodeInfo.Snapshot().
  NodeInfo clone() const { return *this; }

 private:
  // Exact sums; the view shows them saturated to int64, so adding and removing pods with
  // absurd requests stays reversible.
  struct Totals {
    int128_t milli_cpu = 0;
    int128_t memory = 0;
    int128_t ephemeral_storage = 0;
    int128_t non_zero_milli_cpu = 0;
    int128_t non_zero_memory = 0;
  };
  // Used-port multiset: a port stays in use until the last pod using it goes.
  struct PortUse {
    sh_host_port port;
    uint32_t count;
  };

  void account(const Pod& pod, int sign);
  void add_scalars(const sh_resources& r, int sign);
  void add_port(const sh_host_port& p);
  void remove_port(const sh_host_port& p);
  void refresh_view();

  std::shared_ptr<const Node> node_;
  std::vector<std::shared_ptr<const Pod>> pods_;
  std::vector<const sh_pod*> pod_views_;
  std::vector<const sh_pod*> with_affinity_;
  std::vector<const sh_pod*> with_required_anti_affinity_;
  Totals totals_;
  std::vector<int128_t> scalar_totals_;         // parallel to requested_scalars_
  std::vector<sh_quantity> requested_scalars_;  // sorted by name
  std::vector<PortUse> port_uses_;
  std::vector<sh_host_port> used_ports_;
  std::vector<sh_image_state> image_states_;
  sh_node_info view_{};
};

}  // namespace sh::model

#endif  // SCHEDHOST_HOST_MODEL_NODE_INFO_H
