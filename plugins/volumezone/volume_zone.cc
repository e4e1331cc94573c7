// VolumeZone: construction, PreFilter, Filter, and registration.
// Upstream: volumezone/volume_zone.go (v1.36) and k8s.io/component-helpers/storage/volume
// (GetPersistentVolumeClaimClass).
#include "volume_zone.h"

#include <schedhost/helpers.hpp>
#include <schedhost/plugin.hpp>

#include <algorithm>
#include <memory>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace schedhost::plugins::volumezone {

namespace {

constexpr char kBetaStorageClassAnnotation[] = "volume.beta.kubernetes.io/storage-class";

std::string objectRef(std::string_view kind, std::string_view ns, std::string_view name) {
  std::string out(kind);
  out += ' ';
  if (!ns.empty()) {
    out.append(ns).append("/");
  }
  out.append(name);
  return out;
}

// A string field of `object` at `path`: "" when absent or null; an Error naming the object and
// the field when it holds anything but a string.
Status stringField(const Object& object, std::string_view kind, std::string_view path,
                   std::string_view& out) {
  const Json field = object.path(path);
  out = {};
  if (!field.present() || field.isNull()) {
    return {};
  }
  if (!field.isString()) {
    return Status::error(objectRef(kind, object.ns(), object.name()) + ": " + std::string(path) +
                         ": expected a string");
  }
  out = field.asString();
  return {};
}

// storagehelpers.GetPersistentVolumeClaimClass: the beta annotation when present (even empty),
// else spec.storageClassName, else "".
Status claimClass(const Object& pvc, std::string_view& out) {
  const Json annotation =
      pvc.root().get("metadata").get("annotations").get(kBetaStorageClassAnnotation);
  if (annotation.present()) {
    if (!annotation.isString()) {
      return Status::error(objectRef("persistentvolumeclaim", pvc.ns(), pvc.name()) +
                           ": metadata.annotations[" + quoted(kBetaStorageClassAnnotation) +
                           "]: expected a string");
    }
    out = annotation.asString();
    return {};
  }
  return stringField(pvc, "persistentvolumeclaim", "spec.storageClassName", out);
}

// getErrorAsStatus of a lister's NotFound error: errors.NewNotFound(<group resource>, name).
Status notFound(std::string_view groupResource, std::string_view name) {
  return Status::unresolvable(std::string(groupResource) + " " + quoted(name) + " not found");
}

bool hasAnyTopologyLabel(const TopologyLabels& labels, const sh_node& node) noexcept {
  return std::any_of(labels.begin(), labels.end(),
                     [&](const TopologyLabel& l) { return findLabel(node, l.id) != nullptr; });
}

}  // namespace

VolumeZone::VolumeZone(Host& host, const Args& /*args*/)
    : host_(host),
      preFilterKey_(host.intern(kPreFilterStateKey)),
      labels_(makeTopologyLabels(host)) {}

Status VolumeZone::podPVTopologies(const Cycle& cycle, const sh_pod& pod,
                                   std::vector<PvTopology>& out) const {
  const std::string_view ns = view(pod.namespace_);
  for (uint32_t i = 0; i < volumeCount(pod); ++i) {
    const sh_volume& volume = pod.volumes[i];
    if (volume.source != SH_VOLUME_PVC) {
      continue;
    }
    const std::string_view claim = view(volume.claim);
    if (claim.empty()) {
      return Status::unresolvable("PersistentVolumeClaim had no name");
    }
    const Object pvc = host_.objectGet(cycle, kPersistentVolumeClaims, ns, claim);
    if (!pvc) {
      return notFound("persistentvolumeclaim", claim);
    }
    std::string_view pvName;
    if (Status s = stringField(pvc, "persistentvolumeclaim", "spec.volumeName", pvName); !s.ok()) {
      return s;
    }
    if (pvName.empty()) {
      std::string_view scName;
      if (Status s = claimClass(pvc, scName); !s.ok()) {
        return s;
      }
      if (scName.empty()) {
        return Status::unresolvable("PersistentVolumeClaim had no pv name and storageClass name");
      }
      const Object sc = host_.objectGet(cycle, kStorageClasses, {}, scName);
      if (!sc) {
        return notFound("storageclass.storage.k8s.io", scName);
      }
      const Json mode = sc.path("volumeBindingMode");
      if (!mode.present() || mode.isNull()) {
        return Status::unresolvable("VolumeBindingMode not set for StorageClass " + quoted(scName));
      }
      if (!mode.isString()) {
        return Status::error(objectRef("storageclass.storage.k8s.io", {}, scName) +
                             ": volumeBindingMode: expected a string");
      }
      if (mode.asString() == kWaitForFirstConsumer) {
        continue;  // an unbound claim waiting for its first consumer: nothing to compare yet
      }
      return Status::unresolvable("PersistentVolume had no name");
    }
    const Object pv = host_.objectGet(cycle, kPersistentVolumes, {}, pvName);
    if (!pv) {
      return notFound("persistentvolume", pvName);
    }
    std::vector<PvTopology> topologies = pvTopologies(labels_, pv);
    out.insert(out.end(), std::make_move_iterator(topologies.begin()),
               std::make_move_iterator(topologies.end()));
  }
  return {};
}

// Skip unless a claim of the pod is bound to a PV with zone or region labels. A pod without
// persistentVolumeClaim volumes is answered from its volume sources alone.
Status VolumeZone::preFilter(Cycle& cycle, const sh_pod& pod, PreFilterResult& /*result*/) {
  if (!hasVolumeFields(pod)) {
    return Status::error(std::string(kName) +
                         ": the host's pod view has no volumes (plugin ABI 1.3 needed)");
  }
  bool hasClaim = false;
  for (uint32_t i = 0; i < volumeCount(pod) && !hasClaim; ++i) {
    hasClaim = pod.volumes[i].source == SH_VOLUME_PVC;
  }
  if (!hasClaim) {
    return Status::skip();
  }
  auto topologies = std::make_shared<std::vector<PvTopology>>();
  if (Status s = podPVTopologies(cycle, pod, *topologies); !s.ok()) {
    return s;
  }
  if (topologies->empty()) {
    return Status::skip();
  }
  auto state = std::make_unique<PreFilterState>();
  state->podPVTopologies = std::move(topologies);
  cycle.write(preFilterKey_, std::move(state));
  return {};
}

// Every PV topology label must name the node's value of that label (a beta label of the PV may
// also match the node's GA label). A node without zone and region labels fits: a single-zone
// cluster's nodes may carry none.
Status VolumeZone::filter(Cycle& cycle, const sh_pod& pod, const sh_node_info& nodeInfo) {
  if (volumeCount(pod) == 0) {
    return {};
  }
  std::shared_ptr<const std::vector<PvTopology>> topologies;
  if (const PreFilterState* state = cycle.read<PreFilterState>(preFilterKey_)) {
    topologies = state->podPVTopologies;
  } else {
    // As upstream: without a PreFilter state, compute the topologies here.
    auto computed = std::make_shared<std::vector<PvTopology>>();
    if (Status s = podPVTopologies(cycle, pod, *computed); !s.ok()) {
      return s;
    }
    topologies = std::move(computed);
  }
  const sh_node& node = *nodeInfo.node;
  if (!hasAnyTopologyLabel(labels_, node)) {
    return {};
  }
  for (const PvTopology& t : *topologies) {
    const sh_label* label = findLabel(node, t.label->id);
    if (label == nullptr) {
      label = findLabel(node, t.label->gaId);
    }
    if (label == nullptr ||
        !std::binary_search(t.values.begin(), t.values.end(), view(label->value_str),
                            [](std::string_view a, std::string_view b) { return a < b; })) {
      return Status::unresolvable(kErrReasonConflict);
    }
  }
  return {};
}

}  // namespace schedhost::plugins::volumezone

SCHEDHOST_PLUGIN(schedhost::plugins::volumezone::VolumeZone, schedhost::plugins::volumezone::kName,
                 "1.36.0")
