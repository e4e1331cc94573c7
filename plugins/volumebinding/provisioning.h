// Whether a node can have a claim dynamically provisioned: the StorageClass has a provisioner
// (not kubernetes.io/no-provisioner), its allowedTopologies admit the node, and, for a CSI
// driver that asks for capacity tracking (CSIDriver spec.storageCapacity), a CSIStorageCapacity
// of the class reachable from the node has room for the claim's request. What does not depend on
// the node is prepared once per claim in PreFilter.
// Upstream: volumebinding/binder.go (checkVolumeProvisions, hasEnoughCapacity,
// capacitySufficient, volumeLimit, nodeHasAccess).
#ifndef SCHEDHOST_PLUGINS_VOLUMEBINDING_PROVISIONING_H
#define SCHEDHOST_PLUGINS_VOLUMEBINDING_PROVISIONING_H

#include "claims.h"
#include "quantity.h"
#include "selectors.h"

#include <schedhost/plugin.hpp>

#include <memory>
#include <string>
#include <vector>

namespace schedhost::plugins::volumebinding {

// volumeLimit: maximumVolumeSize when set, else capacity; `present` false when neither is.
struct VolumeLimit {
  bool present = false;
  Quantity limit;
};
VolumeLimit volumeLimit(const Object& capacity);

// One claim's provisioning, as far as it does not depend on the node.
struct ProvisionPlan {
  // checkVolumeProvisions' error for this claim ("no class for claim ...", "failed to find
  // storage class ..."), or "".
  std::string error;
  // The class has a provisioner that provisions.
  bool supported = false;
  std::shared_ptr<const ClassInfo> storageClass;
  // The CSI driver tracks capacity and the claim requests storage: one of `pools` must be
  // reachable from the node.
  bool checkCapacity = false;
  std::vector<LabelSelector> pools;  // nodeTopology of the class's capacities with room
};

// What provisioning the claim on a node comes to.
enum class ProvisionOutcome {
  kProvisions,   // provisioning is possible
  kNotPossible,  // no provisioner, or the node is outside the allowed topologies
  kNoCapacity,   // no reachable capacity has room
};

ProvisionOutcome checkProvision(const ProvisionPlan& plan, LabelView nodeLabels) noexcept;

}  // namespace schedhost::plugins::volumebinding

#endif  // SCHEDHOST_PLUGINS_VOLUMEBINDING_PROVISIONING_H
