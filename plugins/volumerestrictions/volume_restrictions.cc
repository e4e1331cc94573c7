// VolumeRestrictions: construction, PreFilter, AddPod/RemovePod, Filter, and registration.
// Upstream: volumerestrictions/volume_restrictions.go (v1.36).
#include "volume_restrictions.h"

#include <schedhost/helpers.hpp>
#include <schedhost/plugin.hpp>

#include <algorithm>
#include <cstddef>
#include <memory>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace schedhost::plugins::volumerestrictions {

namespace {

constexpr std::string_view kReadWriteOncePod = "ReadWriteOncePod";

std::string objectRef(std::string_view ns, std::string_view name) {
  return "persistentvolumeclaim " + std::string(ns) + "/" + std::string(name);
}

// v1helper.ContainsAccessMode(pvc.Spec.AccessModes, v1.ReadWriteOncePod), with the field's
// type checked: a malformed claim is an Error naming it, never read as "no such mode".
Status hasReadWriteOncePod(const Object& pvc, bool& out) {
  out = false;
  const Json modes = pvc.path("spec.accessModes");
  if (!modes.present() || modes.isNull()) {
    return {};
  }
  if (!modes.isArray()) {
    return Status::error(objectRef(pvc.ns(), pvc.name()) +
                         ": spec.accessModes: expected an array of strings");
  }
  for (std::size_t i = 0; i < modes.size(); ++i) {
    const Json mode = modes.at(i);
    if (!mode.isString()) {
      return Status::error(objectRef(pvc.ns(), pvc.name()) + ": spec.accessModes[" +
                           std::to_string(i) + "]: expected a string");
    }
    if (mode.asString() == kReadWriteOncePod) {
      out = true;
    }
  }
  return {};
}

bool contains(const std::vector<std::string>& sorted, std::string_view name) {
  return std::binary_search(sorted.begin(), sorted.end(), name,
                            [](std::string_view a, std::string_view b) { return a < b; });
}

// Whether the host's table has snapshot_pvc_in_use (ABI 1.3; plugin.h, section 1: a plugin
// checks abi_minor and the table's size before calling a slot marked "since 1.N").
bool servesPvcInUse(const sh_host_api* api) noexcept {
  constexpr std::size_t kSlotEnd =
      offsetof(sh_host_api, snapshot_pvc_in_use) + sizeof(sh_host_api::snapshot_pvc_in_use);
  return api != nullptr && api->abi_major == SH_ABI_MAJOR && api->abi_minor >= 3 &&
         api->struct_size >= kSlotEnd && api->snapshot_pvc_in_use != nullptr;
}

}  // namespace

VolumeRestrictions::VolumeRestrictions(Host& host, const Args& /*args*/)
    : host_(host),
      preFilterKey_(host.intern(kPreFilterStateKey)),
      servesPvcInUse_(servesPvcInUse(host.api())) {}

bool VolumeRestrictions::pvcInUse(const Cycle& cycle, std::string_view ns,
                                  std::string_view name) const noexcept {
  const sh_host_api* api = host_.api();
  const sh_snapshot* snapshot = api->cycle_snapshot(cycle.handle());
  return api->snapshot_pvc_in_use(snapshot, ns.data(), ns.size(), name.data(), name.size()) != 0;
}

Status VolumeRestrictions::readWriteOncePodPVCs(const Cycle& cycle, const sh_pod& pod,
                                                std::vector<std::string>& out) const {
  const std::string_view ns = view(pod.namespace_);
  for (uint32_t i = 0; i < volumeCount(pod); ++i) {
    const sh_volume& volume = pod.volumes[i];
    if (volume.source != SH_VOLUME_PVC) {
      continue;
    }
    const std::string_view claim = view(volume.claim);
    const Object pvc = host_.objectGet(cycle, kPersistentVolumeClaims, ns, claim);
    if (!pvc) {
      // The lister's NotFound error: errors.NewNotFound(v1.Resource("persistentvolumeclaim")).
      return Status::unresolvable("persistentvolumeclaim " + quoted(claim) + " not found");
    }
    bool rwop = false;
    if (Status s = hasReadWriteOncePod(pvc, rwop); !s.ok()) {
      return s;
    }
    if (rwop) {
      out.emplace_back(pvc.name());
    }
  }
  std::sort(out.begin(), out.end());
  out.erase(std::unique(out.begin(), out.end()), out.end());
  return {};
}

// Skip unless an in-line disk needs the conflict check or a ReadWriteOncePod claim of the pod is
// already in use. A pod with no PersistentVolumeClaim and no such disk is answered from its
// volume sources alone.
Status VolumeRestrictions::preFilter(Cycle& cycle, const sh_pod& pod, PreFilterResult& /*result*/) {
  if (!hasVolumeFields(pod)) {
    return Status::error(std::string(kName) +
                         ": the host's pod view has no volumes (plugin ABI 1.3 needed)");
  }
  bool needsCheck = false;
  bool hasClaim = false;
  for (uint32_t i = 0; i < volumeCount(pod); ++i) {
    needsCheck = needsCheck || needsRestrictionsCheck(pod.volumes[i]);
    hasClaim = hasClaim || pod.volumes[i].source == SH_VOLUME_PVC;
  }
  if (!needsCheck && !hasClaim) {
    return Status::skip();
  }

  auto pvcs = std::make_shared<std::vector<std::string>>();
  if (Status s = readWriteOncePodPVCs(cycle, pod, *pvcs); !s.ok()) {
    return s;
  }
  if (!pvcs->empty() && !servesPvcInUse_) {
    return Status::error(std::string(kName) +
                         ": the host does not serve snapshot_pvc_in_use (ABI 1.3 needed)");
  }
  int64_t conflicting = 0;
  for (const std::string& name : *pvcs) {
    // There can only be at most one pod using the ReadWriteOncePod PVC.
    if (pvcInUse(cycle, view(pod.namespace_), name)) {
      ++conflicting;
    }
  }
  if (!needsCheck && conflicting == 0) {
    return Status::skip();
  }
  auto state = std::make_unique<PreFilterState>();
  state->readWriteOncePodPVCs = std::move(pvcs);
  state->conflictingPVCRefCount = conflicting;
  cycle.write(preFilterKey_, std::move(state));
  return {};
}

// preFilterState.updateWithPod: every persistentVolumeClaim volume of `other` naming one of the
// pod's ReadWriteOncePod claims counts once (by claim name, as upstream: the namespace is not
// compared).
Status VolumeRestrictions::updateWithPod(Cycle& cycle, const sh_pod& other, int64_t multiplier) {
  PreFilterState* state = cycle.read<PreFilterState>(preFilterKey_);
  if (state == nullptr) {
    return Status::error("cannot read " + quoted(kPreFilterStateKey) + " from cycleState");
  }
  if (state->readWriteOncePodPVCs == nullptr) {
    return {};
  }
  int64_t conflicts = 0;
  for (uint32_t i = 0; i < volumeCount(other); ++i) {
    const sh_volume& volume = other.volumes[i];
    if (volume.source == SH_VOLUME_PVC &&
        contains(*state->readWriteOncePodPVCs, view(volume.claim))) {
      ++conflicts;
    }
  }
  state->conflictingPVCRefCount += multiplier * conflicts;
  return {};
}

Status VolumeRestrictions::addPod(Cycle& cycle, const sh_pod& /*pod*/, const sh_pod& other,
                                  const sh_node_info& /*node*/) {
  return updateWithPod(cycle, other, 1);
}

Status VolumeRestrictions::removePod(Cycle& cycle, const sh_pod& /*pod*/, const sh_pod& other,
                                     const sh_node_info& /*node*/) {
  return updateWithPod(cycle, other, -1);
}

// In-line disk conflicts with the node's pods first, then the ReadWriteOncePod claims in use.
Status VolumeRestrictions::filter(Cycle& cycle, const sh_pod& pod, const sh_node_info& nodeInfo) {
  if (!satisfyVolumeConflicts(pod, nodeInfo.pods, nodeInfo.pod_count)) {
    return Status::unschedulable(kErrReasonDiskConflict);
  }
  const PreFilterState* state = cycle.read<PreFilterState>(preFilterKey_);
  if (state == nullptr) {
    return Status::error("cannot read " + quoted(kPreFilterStateKey) + " from cycleState");
  }
  if (state->conflictingPVCRefCount > 0) {
    return Status::unschedulable(kErrReasonReadWriteOncePodConflict);
  }
  return {};
}

}  // namespace schedhost::plugins::volumerestrictions

SCHEDHOST_PLUGIN(schedhost::plugins::volumerestrictions::VolumeRestrictions,
                 schedhost::plugins::volumerestrictions::kName, "1.36.0")
