#include "host/framework/simulation.h"

#include "host/cache/snapshot.h"
#include "host/framework/cycle_host.h"
#include "host/framework/framework.h"

sh_sim::sh_sim(const sh_cycle& cycle, const sh_pod& p, const sh::model::NodeInfo& n)
    : state(cycle.clone()), pod(&p), node(n.clone()) {
  state->parallelPhase = false;
}

sh::Status sh_sim::removePod(const sh_pod& other) {
  const std::string_view uid(other.uid.ptr, other.uid.len);
  // Keep the pod alive while the extensions look at it: the copy may hold its last
  // reference.
  std::shared_ptr<const sh::model::Pod> keep;
  for (const auto& p : node.pods()) {
    if (p->uid() == uid) {
      keep = p;
      break;
    }
  }
  if (keep == nullptr || !node.removePod(uid)) {
    return sh::Status(SH_UNSCHEDULABLE,
                      "pod " + std::string(uid) + " is not on node " +
                          std::string(node.view().node->name.ptr, node.view().node->name.len));
  }
  if (state->framework == nullptr) {
    return sh::Status();
  }
  return state->framework->runPreFilterRemovePod(*state, *pod, keep->view(), node.view());
}

sh::Status sh_sim::addPod(const sh_pod& other) {
  const sh::model::Pod* owner = sh::model::Pod::fromView(&other);
  std::shared_ptr<const sh::model::Pod> shared =
      owner != nullptr ? owner->weak_from_this().lock() : nullptr;
  if (shared == nullptr) {
    return sh::Status(SH_ERROR, "sim_add_pod: the pod is not one the host handed out");
  }
  node.addPod(shared);
  if (state->framework == nullptr) {
    return sh::Status();
  }
  return state->framework->runPreFilterAddPod(*state, *pod, other, node.view());
}

sh::Status sh_sim::filter() {
  if (state->framework == nullptr) {
    return sh::Status(SH_ERROR, "sim_filter: the cycle has no framework");
  }
  std::vector<std::shared_ptr<const sh::model::Pod>> nominated;
  if (state->host != nullptr) {
    const sh_str name = node.view().node->name;
    nominated = state->host->nominatedPodsFor(std::string_view(name.ptr, name.len), *pod);
  }
  // Filter plugins read the cycle state concurrently elsewhere; here the copy is ours, but
  // plugins may refuse writes during Filter all the same.
  state->parallelPhase = true;
  sh::Status s = state->framework->runFilterWithNominatedPods(*state, *pod, node, nominated);
  state->parallelPhase = false;
  return s;
}

namespace sh {

const model::NodeInfo* snapshotNodeInfo(const sh_cycle& cycle, const sh_node_info& view) {
  if (cycle.snapshot == nullptr || view.node == nullptr) {
    return nullptr;
  }
  auto it = cycle.snapshot->byName.find(std::string_view(view.node->name.ptr, view.node->name.len));
  if (it == cycle.snapshot->byName.end()) {
    return nullptr;
  }
  return cycle.snapshot->nodeInfos[it->second].get();
}

}  // namespace sh
