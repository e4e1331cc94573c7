// Dynamic provisioning on a node (upstream checkVolumeProvisions and hasEnoughCapacity).
#include "provisioning.h"

namespace schedhost::plugins::volumebinding {

VolumeLimit volumeLimit(const Object& capacity) {
  VolumeLimit out;
  Json maximum = capacity.root()["maximumVolumeSize"];
  Json total = capacity.root()["capacity"];
  Json chosen = maximum.present() && !maximum.isNull() ? maximum : total;
  if (!chosen.present() || chosen.isNull()) {
    return out;
  }
  std::string error;
  Quantity q = Quantity::fromJson(chosen, &error);
  if (!error.empty()) {
    return out;  // unreadable: counts as no room
  }
  out.present = true;
  out.limit = q;
  return out;
}

ProvisionOutcome checkProvision(const ProvisionPlan& plan, LabelView nodeLabels) noexcept {
  if (!plan.supported) {
    return ProvisionOutcome::kNotPossible;
  }
  if (!plan.storageClass->allowedTopologies.matches(nodeLabels)) {
    return ProvisionOutcome::kNotPossible;
  }
  if (!plan.checkCapacity) {
    return ProvisionOutcome::kProvisions;
  }
  for (const LabelSelector& pool : plan.pools) {
    if (pool.matches(nodeLabels)) {
      return ProvisionOutcome::kProvisions;
    }
  }
  return ProvisionOutcome::kNoCapacity;
}

}  // namespace schedhost::plugins::volumebinding
