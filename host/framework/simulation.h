// sh_sim: a dry run on one node, for preemption (upstream
// framework/preemption/preemption.go: SelectVictimsOnNode). It owns a copy of
// the node's NodeInfo and of the cycle state; removing or adding a pod changes the copy
// and runs the PreFilter plugins' RemovePod/AddPod extensions on the copied state, and
// filter() runs the cycle's Filter plugins on the copy with the node's nominated pods, as
// a normal cycle would. Nothing reaches the snapshot, the cache or the cluster.
//
// One sim belongs to one thread at a time; sims of different nodes run concurrently.
#pragma once

#include <memory>
#include <string_view>

#include <schedhost/plugin.h>

#include "host/common/status.h"
#include "host/framework/cycle_state.h"
#include "host/model/node_info.h"

struct sh_sim {
  // Copies `node` (a NodeInfo of the cycle's snapshot) and `cycle` for scheduling `pod`.
  sh_sim(const sh_cycle& cycle, const sh_pod& pod, const sh::model::NodeInfo& node);

  const sh_node_info& nodeInfo() const { return node.view(); }
  // Takes the pod with other's uid off the copy, then runs RemovePod.
  sh::Status removePod(const sh_pod& other);
  // Puts `other` on the copy, then runs AddPod.
  sh::Status addPod(const sh_pod& other);
  // Filter with nominated pods on the copy.
  sh::Status filter();

  std::unique_ptr<sh_cycle> state;
  const sh_pod* pod;
  sh::model::NodeInfo node;
};

namespace sh {

// The snapshot NodeInfo behind `view`, found by node name in the cycle's snapshot; null
// when the cycle has no snapshot or the node is not in it.
const model::NodeInfo* snapshotNodeInfo(const sh_cycle& cycle, const sh_node_info& view);

}  // namespace sh
