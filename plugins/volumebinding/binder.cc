// VolumeBinding Reserve, Unreserve and PreBind: assume the bindings Filter found for the chosen
// node (a volume's claimRef and bound-by-controller annotation, a claim's selected-node
// annotation), write them through the API, and wait, polling every second up to
// bindTimeoutSeconds, until the PV controller (and the provisioner) have fully bound every
// claim to a volume the node reaches.
// Upstream: volume_binding.go (Reserve, Unreserve, PreBind) and binder.go (AssumePodVolumes,
// RevertAssumedPodVolumes, BindPodVolumes, bindAPIUpdate, checkBindings), with
// component-helpers/storage/volume GetBindVolumeToClaim.
//
// The assume cache is the host's (object_assume): an assumed version is what every read returns
// until the watch delivers a newer resourceVersion. Upstream's checkBindings reads the API's
// version behind the assumption and waits while it is older than its own write; here a read
// that still returns the assumed version, or a version not newer than the one the write was
// made against, is that older version (the write is a PUT against that resourceVersion, so the
// first newer version the watch delivers is the write or later). An object written unchanged
// keeps its version (the API server makes no new one), so for it the stored version is current.
#include "volume_binding.h"

#include "json_value.h"

#include <chrono>
#include <cstdint>
#include <string>
#include <string_view>
#include <thread>
#include <vector>

namespace schedhost::plugins::volumebinding {

namespace {

std::string quotedName(std::string_view s) { return "\"" + std::string(s) + "\""; }

// The resourceVersion `now` is newer than `base` (apiserver storage's APIObjectVersioner:
// versions are unsigned integers; one that does not parse counts as 0).
bool newerVersion(std::string_view now, std::string_view base) {
  auto parse = [](std::string_view s) {
    uint64_t v = 0;
    for (char c : s) {
      if (c < '0' || c > '9') {
        return uint64_t{0};
      }
      v = v * 10 + static_cast<uint64_t>(c - '0');
    }
    return v;
  };
  return parse(now) > parse(base);
}

// isVolumeBound for one volume of the pod, on the latest version of its claim.
bool volumeBound(const Host& host, const sh_pod& pod, const Volume& vol) {
  Object pvc = host.objectGet(VolumeBinding::kClaims, view(pod.namespace_), vol.claim());
  if (!pvc) {
    return false;
  }
  if (vol.source() == SH_VOLUME_EPHEMERAL && !claimNotForPod(pod, pvc).empty()) {
    return false;
  }
  bool bindCompleted = false;
  annotation(pvc.root(), kAnnBindCompleted, &bindCompleted);
  return !pvc.path("spec.volumeName").asString().empty() && bindCompleted;
}

}  // namespace

// passiveAssumeCache.Assume after its checks: the stored (API) object exists and has the
// version the assumed one was derived from.
Status VolumeBinding::assume(uint32_t kind, const PendingWrite& write) {
  const std::string key = write.ns.empty() ? write.name : write.ns + "/" + write.name;
  Object stored = host_.objectGet(kind, write.ns, write.name);
  if (!stored) {
    return Status::error(
        std::string(kind == kVolumes ? "persistentvolumes" : "persistentvolumeclaims") + " " +
        quotedName(key) + " not found");
  }
  if (stored.resourceVersion() != write.baseVersion) {
    return Status::error(quotedName(key) +
                         " is out of sync (stored: " + std::string(stored.resourceVersion()) +
                         ", assume: " + write.baseVersion + ")");
  }
  return host_.objectAssume(kind, write.body);
}

void VolumeBinding::revert(uint32_t kind, std::vector<PendingWrite>& writes, std::size_t from) {
  for (std::size_t i = from; i < writes.size(); ++i) {
    PendingWrite& w = writes[i];
    if (w.assumed && !w.written) {
      host_.objectRestore(kind, w.ns, w.name);
      w.assumed = false;
    }
  }
}

// Reserve: AssumePodVolumes for the node.
Status VolumeBinding::reserve(Cycle& cycle, const sh_pod& pod, std::string_view node) {
  CycleData* data = state(cycle);
  if (data == nullptr) {
    return {};  // PreFilter skipped: the pod has no claim
  }
  data->allBound = false;
  data->volumeWrites.clear();
  data->claimWrites.clear();
  const NodeVolumes* found = data->nodeVolumes(node);
  if (found == nullptr) {
    data->allBound = true;  // may not exist if the pod does not reference any PVC
    return {};
  }
  // arePodVolumesBound, on the latest claims: nothing to assume when all are bound by now.
  bool allBound = true;
  for (Volume vol : volumes(pod)) {
    if (vol.usesClaim() && !volumeBound(host_, pod, vol)) {
      allBound = false;
      break;
    }
  }
  if (allBound) {
    data->allBound = true;
    return {};
  }
  // The node's labels, for checkBindings in the binding cycle (the snapshot is the scheduling
  // cycle's).
  data->nodeLabels.clear();
  const sh_node_info* info = cycle.snapshot().find(node);
  data->nodeFound = info != nullptr;
  if (info != nullptr) {
    for (uint32_t i = 0; i < info->node->label_count; ++i) {
      sh_label l = info->node->labels[i];
      std::string_view key = host_.str(l.key);
      std::string_view value = host_.str(l.value);
      l.key_str = sh_str{key.data(), key.size()};
      l.value_str = sh_str{value.data(), value.size()};
      data->nodeLabels.push_back(l);
    }
  }

  // GetBindVolumeToClaim for each static binding; a changed volume is assumed.
  for (const StaticBinding& b : found->staticBindings) {
    const ClaimInfo& claim = data->claims[b.claim];
    const PvInfo& pv = *b.pv.info;
    JsonValue object = JsonValue::fromView(b.pv.object.root());
    bool dirty = false;
    if (!pv.hasClaimRef || pv.claimName != claim.name || pv.claimNamespace != claim.ns ||
        pv.claimUid != claim.uid) {
      // reference.GetReference(scheme.Scheme, claim)
      JsonValue ref = JsonValue::object();
      ref.set("kind", JsonValue::string("PersistentVolumeClaim"));
      ref.set("namespace", JsonValue::string(claim.ns));
      ref.set("name", JsonValue::string(claim.name));
      ref.set("uid", JsonValue::string(claim.uid));
      ref.set("apiVersion", JsonValue::string("v1"));
      ref.set("resourceVersion", JsonValue::string(claim.resourceVersion));
      object.member("spec").set("claimRef", std::move(ref));
      dirty = true;
    }
    bool boundByController = false;
    annotation(b.pv.object.root(), kAnnBoundByController, &boundByController);
    if (!volumeBoundToClaim(pv, claim) && !boundByController) {
      object.member("metadata")
          .member("annotations")
          .set(kAnnBoundByController, JsonValue::string("yes"));
      dirty = true;
    }
    PendingWrite w;
    w.claim = b.claim;
    w.name = pv.name;
    w.baseVersion = pv.resourceVersion;
    w.body = object.serialize();
    w.changed = dirty;
    if (dirty) {
      Status assumed = assume(kVolumes, w);
      if (!assumed.ok()) {
        revert(kVolumes, data->volumeWrites, 0);
        return assumed;
      }
      w.assumed = true;
    }
    data->volumeWrites.push_back(std::move(w));
  }
  // Every claim to provision gets the selected-node annotation, assumed.
  for (std::size_t c : found->dynamicProvisions) {
    const ClaimInfo& claim = data->claims[c];
    JsonValue object = JsonValue::fromView(claim.object.root());
    object.member("metadata").member("annotations").set(kAnnSelectedNode, JsonValue::string(node));
    PendingWrite w;
    w.claim = c;
    w.ns = claim.ns;
    w.name = claim.name;
    w.baseVersion = claim.resourceVersion;
    w.body = object.serialize();
    w.changed = !claim.hasSelectedNode || claim.selectedNode != node;
    Status assumed = assume(kClaims, w);
    if (!assumed.ok()) {
      revert(kVolumes, data->volumeWrites, 0);
      revert(kClaims, data->claimWrites, 0);
      return assumed;
    }
    w.assumed = true;
    data->claimWrites.push_back(std::move(w));
  }
  return {};
}

// Unreserve: RevertAssumedPodVolumes. Idempotent: what was restored, or written, stays.
void VolumeBinding::unreserve(Cycle& cycle, const sh_pod& /*pod*/, std::string_view /*node*/) {
  CycleData* data = state(cycle);
  if (data == nullptr) {
    return;
  }
  revert(kVolumes, data->volumeWrites, 0);
  revert(kClaims, data->claimWrites, 0);
}

// PreBind: BindPodVolumes.
Status VolumeBinding::preBind(Cycle& cycle, const sh_pod& pod, std::string_view node) {
  CycleData* data = state(cycle);
  if (data == nullptr || data->allBound) {
    return {};  // no volumes to bind
  }
  if (data->nodeVolumes(node) == nullptr) {
    return Status::error("no pod volume found for node " + quotedName(node));
  }
  // bindAPIUpdate: the volumes first, then the claims; what was not written is restored.
  for (std::size_t i = 0; i < data->volumeWrites.size(); ++i) {
    Status written =
        host_.objectWrite(cycle, ObjectWrite::update(kVolumes, data->volumeWrites[i].body));
    if (!written.ok()) {
      revert(kVolumes, data->volumeWrites, i);
      revert(kClaims, data->claimWrites, 0);
      return written;
    }
    data->volumeWrites[i].written = true;
  }
  for (std::size_t i = 0; i < data->claimWrites.size(); ++i) {
    Status written =
        host_.objectWrite(cycle, ObjectWrite::update(kClaims, data->claimWrites[i].body));
    if (!written.ok()) {
      revert(kClaims, data->claimWrites, i);
      return written;
    }
    data->claimWrites[i].written = true;
  }

  // Under evaluate and test the writes are only planned (the bindingPlan): no PV controller
  // will act on them, so there is nothing to wait for.
  if (host_.writesPlanned()) {
    return {};
  }
  // wait.PollUntilContextTimeout(ctx, time.Second, bindTimeout, false, checkBindings): the
  // first check a second after the writes, the last one before the deadline. The waits end
  // early when the binding cycle is cancelled (the scheduler stops, the pod is deleted), as
  // upstream's context does.
  using Clock = std::chrono::steady_clock;
  const Clock::time_point deadline = Clock::now() + std::chrono::seconds(args_.bindTimeoutSeconds);
  Clock::time_point next = Clock::now() + std::chrono::seconds(1);
  auto waitUntil = [&](Clock::time_point t) {
    const auto left = std::chrono::ceil<std::chrono::milliseconds>(t - Clock::now());
    return left.count() <= 0 ? Host::WaitEnd::kElapsed
                             : host_.cycleWait(cycle, static_cast<uint32_t>(left.count()));
  };
  // checkBindings' first step (the pod lister's NotFound), or the scheduler's context.
  auto cancelled = [&](Host::WaitEnd why) {
    if (why == Host::WaitEnd::kPodDeleted) {
      return Status::error("binding volumes: pod does not exist any more: pod " +
                           quotedName(std::string_view(pod.name.ptr, pod.name.len)) + " not found");
    }
    return Status::error("binding volumes: context canceled");
  };
  while (true) {
    if (next >= deadline) {
      if (Host::WaitEnd why = waitUntil(deadline); why != Host::WaitEnd::kElapsed) {
        return cancelled(why);
      }
      return Status::error("binding volumes: context deadline exceeded");
    }
    if (Host::WaitEnd why = waitUntil(next); why != Host::WaitEnd::kElapsed) {
      return cancelled(why);
    }
    next += std::chrono::seconds(1);
    std::string error;
    const int bound = checkBindings(*data, node, error);
    if (bound < 0) {
      return Status::error("binding volumes: " + error);
    }
    if (bound > 0) {
      return {};
    }
  }
}

// checkBindings, on the latest versions of the objects.
int VolumeBinding::checkBindings(const CycleData& data, std::string_view node,
                                 std::string& error) const {
  if (!data.nodeFound) {
    error = "failed to get node " + quotedName(node) + ": node " + quotedName(node) + " not found";
    return -1;
  }
  const LabelView labels{data.nodeLabels.data(), static_cast<uint32_t>(data.nodeLabels.size())};
  std::string migrated;
  bool migratedRead = false;
  auto affinityOf = [&](const PvInfo& pv, std::string* err) {
    if (!migratedRead && !pv.migration.plugin.empty()) {
      migrated = migratedPlugins(nullptr, node);
      migratedRead = true;
    }
    return affinityOnNode(pv, migrated, err);
  };

  for (const PendingWrite& w : data.volumeWrites) {
    const ClaimInfo& claim = data.claims[w.claim];
    Object pv = host_.objectGet(kVolumes, "", w.name);
    if (!pv) {
      error = "failed to check binding: persistentvolumes " + quotedName(w.name) + " not found";
      return -1;
    }
    Object pvc = host_.objectGet(kClaims, claim.ns, claim.name);
    if (!pvc) {
      error = "failed to check binding: persistentvolumeclaims " + quotedName(claim.key()) +
              " not found";
      return -1;
    }
    // The API's version is still the one before the write: wait for the newer one.
    if (pv.assumed() || (w.changed && !newerVersion(pv.resourceVersion(), w.baseVersion))) {
      return 0;
    }
    const PvInfo info = readPv(host_, pv);
    std::string translateError;
    const VolumeNodeAffinity* affinity = affinityOf(info, &translateError);
    if (affinity == nullptr) {
      error = "failed to translate pv to csi: " + translateError;
      return -1;
    }
    if (!affinity->matches(labels)) {
      error = "pv " + quotedName(info.name) + " node affinity doesn't match node " +
              quotedName(node) + ": " + affinity->mismatchError();
      return -1;
    }
    // The PV controller drops the claimRef when it unbinds the volume.
    if (!info.hasClaimRef || info.claimUid.empty()) {
      error = "ClaimRef got reset for pv " + quotedName(info.name);
      return -1;
    }
    if (!readClaim(host_, pvc).fullyBound()) {
      return 0;
    }
  }

  for (const PendingWrite& w : data.claimWrites) {
    const ClaimInfo& claim = data.claims[w.claim];
    Object pvc = host_.objectGet(kClaims, claim.ns, claim.name);
    if (!pvc) {
      error = "failed to check provisioning pvc: persistentvolumeclaims " +
              quotedName(claim.key()) + " not found";
      return -1;
    }
    if (pvc.assumed() || (w.changed && !newerVersion(pvc.resourceVersion(), w.baseVersion))) {
      return 0;
    }
    const ClaimInfo now = readClaim(host_, pvc);
    if (!now.annotations) {
      error = "selectedNode annotation reset for PVC " + quotedName(now.name);
      return -1;
    }
    // The provisioner removes the annotation when it fails: the pod is scheduled again.
    if (now.selectedNode != node) {
      error = "provisioning failed for PVC " + quotedName(now.name);
      return -1;
    }
    if (!now.volumeName.empty()) {
      Object pv = host_.objectGet(kVolumes, "", now.volumeName);
      if (!pv) {
        return 0;  // not seen yet; a deleted one unbinds the claim in time
      }
      const PvInfo info = readPv(host_, pv);
      std::string translateError;
      const VolumeNodeAffinity* affinity = affinityOf(info, &translateError);
      if (affinity == nullptr) {
        error = translateError;
        return -1;
      }
      if (!affinity->matches(labels)) {
        error = "pv " + quotedName(info.name) + " node affinity doesn't match node " +
                quotedName(node) + ": " + affinity->mismatchError();
        return -1;
      }
    }
    if (!now.fullyBound()) {
      return 0;
    }
  }
  return 1;
}

}  // namespace schedhost::plugins::volumebinding
