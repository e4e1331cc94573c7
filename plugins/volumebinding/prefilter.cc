// VolumeBinding PreFilter: the pod's claims, read once and sorted into bound ones, unbound ones
// the scheduler binds (WaitForFirstConsumer) and unbound ones it cannot (Immediate, or pre-bound
// to a volume), with everything about them that does not depend on the node prepared for
// Filter. Upstream: volume_binding.go (podHasPVCs, PreFilter), binder.go (GetPodVolumeClaims),
// component-helpers/storage/volume (IsDelayBindingMode).
#include "volume_binding.h"

#include <algorithm>
#include <map>
#include <memory>
#include <string>
#include <utility>
#include <vector>

namespace schedhost::plugins::volumebinding {

namespace {

// What the host frees a CycleData with; never cloned (upstream's stateData.Clone returns
// itself), so every copy of the cycle state shares it.
const sh_state_ops* cycleDataOps() {
  static const sh_state_ops kOps = {nullptr, [](void* p) { delete static_cast<CycleData*>(p); }};
  return &kOps;
}

std::string claimText(std::string_view s) { return "\"" + std::string(s) + "\""; }

}  // namespace

Status VolumeBinding::preFilter(Cycle& cycle, const sh_pod& pod, PreFilterResult& /*result*/) {
  if (!hasClaimVolume(pod)) {
    return Status::skip();  // no claim: nothing to check, bind or wait for
  }
  auto data = std::make_unique<CycleData>();
  Status read = readClaims(cycle, pod, *data);
  if (!read.ok()) {
    return read;
  }
  Status sorted = sortClaims(cycle, *data);
  if (!sorted.ok()) {
    return sorted;
  }
  cycle.api()->cycle_write(cycle.handle(), stateKey_, data.release(), cycleDataOps());
  return {};
}

// podHasPVCs: every claim exists, is not lost or being deleted, and an ephemeral volume's claim
// belongs to the pod.
Status VolumeBinding::readClaims(Cycle& cycle, const sh_pod& pod, CycleData& data) {
  const std::string_view ns = view(pod.namespace_);
  for (Volume vol : volumes(pod)) {
    if (!vol.usesClaim()) {
      continue;
    }
    const bool ephemeral = vol.source() == SH_VOLUME_EPHEMERAL;
    const std::string_view name = vol.claim();
    Object pvc = host_.objectGet(cycle, kClaims, ns, name);
    if (!pvc) {
      // The lister's NotFound, or for a generic ephemeral volume the normal state right after
      // the pod was created.
      return Status::unresolvable(ephemeral
                                      ? "waiting for ephemeral volume controller to create the "
                                        "persistentvolumeclaim " +
                                            claimText(name)
                                      : "persistentvolumeclaim " + claimText(name) + " not found");
    }
    ClaimInfo claim = readClaim(host_, pvc);
    if (claim.phase == "Lost") {
      return Status::unresolvable("persistentvolumeclaim " + claimText(claim.name) +
                                  " bound to non-existent persistentvolume " +
                                  claimText(claim.volumeName));
    }
    if (claim.deleting) {
      return Status::unresolvable("persistentvolumeclaim " + claimText(claim.name) +
                                  " is being deleted");
    }
    if (ephemeral) {
      std::string notOwned = claimNotForPod(pod, pvc);
      if (!notOwned.empty()) {
        return Status::unresolvable(notOwned);
      }
    }
    if (!claim.malformed.empty()) {
      return Status::unresolvable("persistentvolumeclaim " + claimText(claim.key()) + ": " +
                                  claim.malformed);
    }
    data.claims.push_back(std::move(claim));
  }
  return {};
}

std::shared_ptr<const ClassInfo> VolumeBinding::storageClass(
    Cycle& cycle, const std::string& name,
    std::map<std::string, std::shared_ptr<const ClassInfo>>& classes) {
  auto it = classes.find(name);
  if (it != classes.end()) {
    return it->second;
  }
  auto info = std::make_shared<const ClassInfo>(
      readClass(host_, host_.objectGet(cycle, kClasses, "", name)));
  classes.emplace(name, info);
  return info;
}

// GetPodVolumeClaims, and for the unbound claims the node-independent halves of
// findMatchingVolumes and checkVolumeProvisions.
Status VolumeBinding::sortClaims(Cycle& cycle, CycleData& data) {
  std::map<std::string, std::shared_ptr<const ClassInfo>> classes;
  bool immediate = false;
  for (std::size_t i = 0; i < data.claims.size(); ++i) {
    const ClaimInfo& claim = data.claims[i];
    if (claim.fullyBound()) {
      BoundClaim b;
      b.claim = i;
      b.pv.object = host_.objectGet(cycle, kVolumes, "", claim.volumeName);
      b.found = b.pv.object.present();
      if (b.found) {
        b.pv.info = volumes_->get(b.pv.object);
        data.anyMigratable = data.anyMigratable || !b.pv.info->migration.plugin.empty();
      }
      data.bound.push_back(std::move(b));
      continue;
    }
    // IsDelayBindingMode: no class, or a class that does not exist, binds at once.
    bool delay = false;
    if (!claim.className.empty()) {
      std::shared_ptr<const ClassInfo> sc = storageClass(cycle, claim.className, classes);
      if (sc->found) {
        if (!sc->modeSet) {
          return Status::error("VolumeBindingMode not set for StorageClass " +
                               claimText(claim.className));
        }
        delay = sc->waitForFirstConsumer;
      }
    }
    if (delay && claim.volumeName.empty()) {
      UnboundClaim u;
      u.claim = i;
      data.unbound.push_back(std::move(u));
    } else {
      immediate = true;  // Immediate binding (or pre-bound): the PV controller's job
    }
  }
  if (immediate) {
    return Status::unresolvable(kErrReasonImmediate);
  }
  if (data.anyMigratable) {
    data.migrated = migratedByNode(cycle);
  }
  if (data.unbound.empty()) {
    data.boundOnly = true;
    return {};
  }

  // The volumes of the unbound claims' classes (pvCache.ListPVs), each read once.
  std::map<std::string, std::vector<PvRef>> byClass;
  for (const UnboundClaim& u : data.unbound) {
    byClass.emplace(data.claims[u.claim].className, std::vector<PvRef>());
  }
  for (Object pv : host_.objectList(cycle, kVolumes)) {
    PvPtr info = volumes_->get(pv);
    auto it = byClass.find(info->className);
    if (it != byClass.end()) {
      it->second.push_back(PvRef{pv, std::move(info)});
    }
  }
  {
    std::lock_guard<std::mutex> lock(sweepMu_);
    if (++listings_ % 64 == 0) {
      volumes_->sweep();
    }
  }

  std::vector<Object> capacities;
  bool capacitiesRead = false;
  for (UnboundClaim& u : data.unbound) {
    const ClaimInfo& claim = data.claims[u.claim];
    if (!claim.hasSelectedNode) {
      u.candidates = matchCandidates(claim, byClass[claim.className], &u.matchError);
      data.matchOrder.push_back(static_cast<std::size_t>(&u - data.unbound.data()));
    }
    u.provision = planProvisioning(cycle, claim, classes, capacities, capacitiesRead);
  }
  // findMatchingVolumes sorts the claims by increasing request (sort.Sort, which for the few
  // claims of a pod is an insertion sort: stable).
  std::stable_sort(data.matchOrder.begin(), data.matchOrder.end(),
                   [&](std::size_t a, std::size_t b) {
                     return data.claims[data.unbound[a].claim].request.cmp(
                                data.claims[data.unbound[b].claim].request) < 0;
                   });
  return {};
}

// checkVolumeProvisions and hasEnoughCapacity, the node-independent part.
ProvisionPlan VolumeBinding::planProvisioning(
    Cycle& cycle, const ClaimInfo& claim,
    std::map<std::string, std::shared_ptr<const ClassInfo>>& classes,
    std::vector<Object>& capacities, bool& capacitiesRead) {
  ProvisionPlan plan;
  if (claim.className.empty()) {
    plan.error = "no class for claim " + claimText(claim.key());
    return plan;
  }
  plan.storageClass = storageClass(cycle, claim.className, classes);
  if (!plan.storageClass->found) {
    plan.error = "failed to find storage class " + claimText(claim.className);
    return plan;
  }
  const std::string& provisioner = plan.storageClass->provisioner;
  plan.supported = !provisioner.empty() && provisioner != kNotSupportedProvisioner;
  if (!plan.supported || !claim.hasRequest) {
    return plan;  // no request: no capacity to check
  }
  // Only CSI drivers that opt into storage capacity tracking are checked.
  Object driver = host_.objectGet(cycle, kCsiDrivers, "", provisioner);
  if (!driver || !driver.path("spec.storageCapacity").asBool()) {
    return plan;
  }
  plan.checkCapacity = true;
  if (!capacitiesRead) {
    for (Object c : host_.objectList(cycle, kCapacities)) {
      capacities.push_back(c);
    }
    capacitiesRead = true;
  }
  const int64_t size = claim.request.value();
  for (const Object& c : capacities) {
    if (c.root()["storageClassName"].asString() != claim.className) {
      continue;
    }
    VolumeLimit limit = volumeLimit(c);
    if (!limit.present || limit.limit.value() < size) {
      continue;
    }
    plan.pools.push_back(LabelSelector::read(host_, c.root()["nodeTopology"]));
  }
  return plan;
}

}  // namespace schedhost::plugins::volumebinding
