#include "volumes.h"

#include "fields.h"
#include "translation.h"

#include <cstddef>

namespace schedhost::plugins::nodevolumelimits {

namespace {

// storagehelpers.GetPersistentVolumeClaimClass: the beta annotation first (even when empty),
// then spec.storageClassName.
constexpr std::string_view kBetaStorageClassAnnotation = "volume.beta.kubernetes.io/storage-class";

// ephemeral.VolumeIsForPod: metav1.IsControlledBy(pvc, pod), the first owner reference with
// controller: true has the pod's UID.
Status checkEphemeralOwner(const sh_pod& pod, const Object& pvc) {
  Fields f(pvc, "PersistentVolumeClaim");
  Json refs = pvc.path("metadata.ownerReferences");
  bool controlled = false;
  if (f.arrayOf(refs, "metadata.ownerReferences")) {
    for (std::size_t i = 0; i < refs.size(); ++i) {
      const std::string at = "metadata.ownerReferences[" + std::to_string(i) + "]";
      Json ref = refs.at(i);
      if (!f.objectOf(ref, at)) {
        continue;
      }
      if (f.boolOf(ref.get("controller"), at + ".controller").value_or(false)) {
        controlled = f.stringOf(ref.get("uid"), at + ".uid").value_or("") == view(pod.uid);
        break;
      }
    }
  }
  if (!f.ok()) {
    return Status::error(f.error());
  }
  if (pvc.ns() != view(pod.namespace_) || !controlled) {
    return Status::error("PVC " + std::string(pvc.ns()) + "/" + std::string(pvc.name()) +
                         " was not created for pod " + std::string(view(pod.namespace_)) + "/" +
                         std::string(view(pod.name)) + " (pod is not owner)");
  }
  return Status::success();
}

}  // namespace

std::string volumeUniqueName(std::string_view driver, std::string_view handle) {
  std::string out;
  out.reserve(driver.size() + 1 + handle.size());
  out.append(driver).append("/").append(handle);
  return out;
}

bool hostHasPodVolumes(const sh_pod& pod) noexcept {
  return pod.struct_size >= offsetof(sh_pod, resource_claim_count) + sizeof(uint32_t);
}

bool mayAttach(const sh_volume& vol) noexcept {
  return vol.source == SH_VOLUME_PVC || vol.source == SH_VOLUME_EPHEMERAL ||
         pluginOfInlineSource(vol.source) != nullptr;
}

Status azureDiskKind(const Host& host, const sh_pod& pod, const sh_volume& vol, std::string& kind) {
  const sh_host_api* api = host.api();
  constexpr std::size_t kSlotEnd =
      offsetof(sh_host_api, pod_manifest) + sizeof(sh_host_api::pod_manifest);
  const std::string volume = "volume " + goQuote(view(vol.name)) + " of pod " +
                             std::string(view(pod.namespace_)) + "/" + std::string(view(pod.name));
  if (!detail::hostHasSlot(api, kSlotEnd, 3) || api->pod_manifest == nullptr) {
    return Status::error("reading azureDisk.kind of " + volume +
                         ": the host has no pod_manifest service (ABI 1.3)");
  }
  Json volumes = Json(api, api->pod_manifest(host.handle(), &pod)).path("spec.volumes");
  for (std::size_t i = 0; i < volumes.size(); ++i) {
    Json item = volumes.at(i);
    if (item.get("name").asString() != view(vol.name)) {
      continue;
    }
    Json k = item.path("azureDisk.kind");
    if (!k.present() || k.isNull()) {
      kind = "Shared";  // the API server's default (AzureSharedBlobDisk)
      return Status::success();
    }
    if (!k.isString()) {
      return Status::error("reading azureDisk.kind of " + volume + ": expected a string");
    }
    kind = std::string(k.asString());
    return Status::success();
  }
  return Status::error("reading azureDisk.kind of " + volume +
                       ": the volume is not in the pod's manifest");
}

Status volumeLimits(const Object& csiNode, std::unordered_map<std::string, int64_t>& out) {
  Fields f(csiNode, "CSINode");
  Json drivers = csiNode.path("spec.drivers");
  if (f.arrayOf(drivers, "spec.drivers")) {
    for (std::size_t i = 0; i < drivers.size(); ++i) {
      const std::string at = "spec.drivers[" + std::to_string(i) + "]";
      Json d = drivers.at(i);
      if (!f.objectOf(d, at)) {
        continue;
      }
      std::string_view name = f.stringOf(d.get("name"), at + ".name").value_or("");
      Json allocatable = d.get("allocatable");
      if (!f.objectOf(allocatable, at + ".allocatable")) {
        continue;
      }
      std::optional<int64_t> count =
          f.integerOf(allocatable.get("count"), at + ".allocatable.count");
      if (count && (*count < INT32_MIN || *count > INT32_MAX)) {
        return Status::error("CSINode " + goQuote(csiNode.name()) + ": " + at +
                             ".allocatable.count: out of the range of an int32");
      }
      if (count) {
        out[std::string(name)] = *count;
      }
    }
  }
  if (!f.ok()) {
    return Status::error(f.error());
  }
  return Status::success();
}

Status VolumeResolver::attachableVolumes(const sh_pod& pod, bool hasCsiNode, bool newPod,
                                         VolumeMap& out) const {
  const std::string_view ns = view(pod.namespace_);
  for (uint32_t i = 0; i < pod.volume_count; ++i) {
    const sh_volume& vol = pod.volumes[i];
    const bool isEphemeral = vol.source == SH_VOLUME_EPHEMERAL;
    if (vol.source != SH_VOLUME_PVC && !isEphemeral) {
      // An inline volume: counted when csi-translation-lib migrates it and migration is on.
      Status st = inlineVolume(pod, vol, hasCsiNode, out);
      if (!st.ok()) {
        return st;
      }
      continue;
    }
    const std::string_view claim = view(vol.claim);
    if (claim.empty()) {
      return Status::error("PersistentVolumeClaim had no name");
    }
    Object pvc = host_.objectGet(cycle_, kPersistentVolumeClaims, ns, claim);
    if (!pvc) {
      if (newPod) {
        // The pod cannot run without its claim: it waits until the claim is created.
        return Status::unresolvable("looking up PVC " + std::string(ns) + "/" + std::string(claim) +
                                    ": persistentvolumeclaim " + goQuote(claim) + " not found");
      }
      continue;  // a claim of a pod already there that is gone: not counted
    }
    if (isEphemeral) {
      Status st = checkEphemeralOwner(pod, pvc);
      if (!st.ok()) {
        return st;
      }
    }
    DriverInfo info;
    Status st = driverInfo(pvc, hasCsiNode, info);
    if (!st.ok()) {
      return st;
    }
    if (info.driver.empty() || info.handle.empty()) {
      continue;  // not a CSI volume, or its driver is unknown: not counted
    }
    out[volumeUniqueName(info.driver, info.handle)] = info.driver;
  }
  return Status::success();
}

Status VolumeResolver::inlineVolume(const sh_pod& pod, const sh_volume& vol, bool hasCsiNode,
                                    VolumeMap& out) const {
  const InTreePlugin* plugin = pluginOfInlineSource(vol.source);
  if (plugin == nullptr || !isCSIMigrationOn(hasCsiNode, plugin->name)) {
    return Status::success();
  }
  std::string kind;
  if (vol.source == SH_VOLUME_AZURE_DISK) {
    Status st = azureDiskKind(host_, pod, vol, kind);
    if (!st.ok()) {
      return st;
    }
  }
  Translation t = translateInlineVolume(vol, kind);
  if (!t.ok()) {
    return Status::error("converting volume(" + std::string(view(vol.name)) +
                         ") from inline to csi: " + t.error);
  }
  out[volumeUniqueName(plugin->driver, t.handle)] = std::string(plugin->driver);
  return Status::success();
}

Status VolumeResolver::driverInfo(const Object& pvc, bool hasCsiNode, DriverInfo& info) const {
  Fields claim(pvc, "PersistentVolumeClaim");
  std::string_view pvName = claim.string("spec.volumeName");
  if (!claim.ok()) {
    return Status::error(claim.error());
  }
  if (pvName.empty()) {
    return driverInfoFromStorageClass(pvc, hasCsiNode, info);
  }
  Object pv = host_.objectGet(cycle_, kPersistentVolumes, {}, pvName);
  if (!pv) {
    // Deleted, or the claim is pre-bound to a volume not created yet: count it through its
    // StorageClass.
    return driverInfoFromStorageClass(pvc, hasCsiNode, info);
  }
  Fields f(pv, "PersistentVolume");
  if (f.hasObject("spec.csi")) {
    info.driver = std::string(f.string("spec.csi.driver"));
    info.handle = std::string(f.string("spec.csi.volumeHandle"));
    return f.ok() ? Status::success() : Status::error(f.error());
  }
  if (!f.ok()) {
    return Status::error(f.error());
  }
  const InTreePlugin* plugin = pluginOfPersistentVolume(pv);
  if (plugin == nullptr || !isCSIMigrationOn(hasCsiNode, plugin->name)) {
    return Status::success();  // not migratable, or migration is off: not counted
  }
  Translation t = translatePersistentVolume(*plugin, pv);
  if (!t.ok()) {
    return Status::success();  // upstream logs the translation error and does not count it
  }
  info.driver = std::string(plugin->driver);
  info.handle = std::move(t.handle);
  return Status::success();
}

Status VolumeResolver::driverInfoFromStorageClass(const Object& pvc, bool hasCsiNode,
                                                  DriverInfo& info) const {
  Fields claim(pvc, "PersistentVolumeClaim");
  std::optional<std::string_view> scName =
      claim.memberString("metadata.annotations", kBetaStorageClassAnnotation,
                         "metadata.annotations[" + std::string(kBetaStorageClassAnnotation) + "]");
  if (!scName) {
    scName = claim.optionalString("spec.storageClassName");
  }
  if (!claim.ok()) {
    return Status::error(claim.error());
  }
  if (!scName || scName->empty()) {
    // Without a class the claim binds immediately, so it is bound before its pod is scheduled.
    return Status::success();
  }
  Object sc = host_.objectGet(cycle_, kStorageClasses, {}, *scName);
  if (!sc) {
    return Status::success();
  }
  Fields f(sc, "StorageClass");
  std::string_view provisioner = f.string("provisioner");
  if (!f.ok()) {
    return Status::error(f.error());
  }
  // A random prefix, so that the name cannot collide with a real volume handle. If the claim
  // is bound meanwhile and another pod of the node uses that volume, it is counted twice.
  std::string handle =
      std::string(prefix_) + "-" + std::string(pvc.ns()) + "/" + std::string(pvc.name());
  if (const InTreePlugin* plugin = pluginNamed(provisioner)) {
    if (!isCSIMigrationOn(hasCsiNode, provisioner)) {
      return Status::success();
    }
    info.driver = std::string(plugin->driver);
  } else {
    info.driver = std::string(provisioner);
  }
  info.handle = std::move(handle);
  return Status::success();
}

Status VolumeResolver::attachedVolumes(const std::vector<const sh_object*>& attachments,
                                       VolumeMap& out) const {
  for (const sh_object* raw : attachments) {
    Object va(host_.api(), raw);
    Fields f(va, "VolumeAttachment");
    std::string_view attacher = f.string("spec.attacher");
    std::optional<std::string_view> pvName = f.optionalString("spec.source.persistentVolumeName");
    if (!f.ok()) {
      return Status::error(f.error());
    }
    if (attacher.empty() || !pvName) {
      continue;  // no attacher, or an inline volume's attachment: not counted
    }
    Object pv = host_.objectGet(cycle_, kPersistentVolumes, {}, *pvName);
    if (!pv) {
      continue;
    }
    Fields p(pv, "PersistentVolume");
    if (!p.hasObject("spec.csi")) {
      if (!p.ok()) {
        return Status::error(p.error());
      }
      continue;  // not a CSI volume
    }
    std::string_view handle = p.string("spec.csi.volumeHandle");
    if (!p.ok()) {
      return Status::error(p.error());
    }
    out[volumeUniqueName(attacher, handle)] = std::string(attacher);
  }
  return Status::success();
}

}  // namespace schedhost::plugins::nodevolumelimits
