#include "csi_limits.h"

#include "fields.h"

#include <random>

namespace schedhost::plugins::nodevolumelimits {

namespace {

// rand.String(32) (k8s.io/apimachinery/pkg/util/rand): its alphabet, no vowels.
std::string randomVolumeIdPrefix() {
  constexpr std::string_view kAlphanums = "bcdfghjklmnpqrstvwxz2456789";
  std::random_device device;
  std::mt19937_64 gen((static_cast<uint64_t>(device()) << 32) ^ device());
  std::uniform_int_distribution<std::size_t> pick(0, kAlphanums.size() - 1);
  std::string out(32, ' ');
  for (char& c : out) {
    c = kAlphanums[pick(gen)];
  }
  return out;
}

Status olderHost() {
  return Status::error(std::string(kName) +
                       ": the host does not provide the pod's volumes (sh_pod.volumes, ABI 1.3)");
}

}  // namespace

CSILimits::CSILimits(Host& host, const Args& /*args*/)
    : host_(host),
      stateKey_(host.intern(std::string("PreFilter") + kName)),
      volumeIdPrefix_(randomVolumeIdPrefix()) {}

// PreFilter: Skip unless the pod has a volume that may count against a CSI limit; otherwise
// resolve the pod's volumes once for the cycle.
Status CSILimits::preFilter(Cycle& cycle, const sh_pod& pod, PreFilterResult& /*result*/) {
  if (!hostHasPodVolumes(pod)) {
    return olderHost();
  }
  for (uint32_t i = 0; i < pod.volume_count; ++i) {
    if (mayAttach(pod.volumes[i])) {
      cycle.write(stateKey_, std::make_unique<PreFilterState>(PreFilterState{prepare(cycle, pod)}));
      return Status::success();
    }
  }
  return Status::skip();
}

std::shared_ptr<const CycleData> CSILimits::prepare(const Cycle& cycle, const sh_pod& pod) const {
  auto data = std::make_shared<CycleData>();
  VolumeResolver resolver(host_, cycle, volumeIdPrefix_);
  CycleData::PodVolumes& without = data->withoutCsiNode;
  CycleData::PodVolumes& with = data->withCsiNode;
  without.status = resolver.attachableVolumes(pod, false, true, without.volumes);
  with.status = resolver.attachableVolumes(pod, true, true, with.volumes);
  const bool needAttachments = (without.status.ok() && !without.volumes.empty()) ||
                               (with.status.ok() && !with.volumes.empty());
  if (!needAttachments) {
    return data;
  }
  // upstream's informer index va.spec.nodename, built once per cycle.
  for (Object va : host_.objectList(cycle, kVolumeAttachments)) {
    Fields f(va, "VolumeAttachment");
    std::optional<std::string_view> node = f.optionalString("spec.nodeName");
    if (!f.ok()) {
      data->attachmentsStatus = Status::error(f.error());
      break;
    }
    if (node && !node->empty()) {
      data->attachmentsByNode[*node].push_back(va.raw());
    }
  }
  return data;
}

Status CSILimits::filter(Cycle& cycle, const sh_pod& pod, const sh_node_info& nodeInfo) {
  if (!hostHasPodVolumes(pod)) {
    return olderHost();
  }
  if (pod.volume_count == 0) {
    return Status::success();
  }
  if (nodeInfo.node == nullptr) {
    return Status::error("node not found");
  }
  const std::string_view nodeName = view(nodeInfo.node->name);
  // No CSINode (not created yet): in-tree volumes do not count, and there are no limits.
  Object csiNode = host_.objectGet(cycle, kCSINodes, {}, nodeName);

  // A raw pointer: Filter runs on many nodes at once, and copying the shared pointer would
  // make them all write its count. Without PreFilter's state (a caller that skipped it), the
  // pod's volumes are resolved here.
  std::shared_ptr<const CycleData> prepared;
  const CycleData* data = nullptr;
  if (const auto* state = cycle.read<PreFilterState>(stateKey_)) {
    data = state->data.get();
  } else {
    prepared = prepare(cycle, pod);
    data = prepared.get();
  }
  const CycleData::PodVolumes& mine = csiNode ? data->withCsiNode : data->withoutCsiNode;
  if (!mine.status.ok()) {
    return mine.status;
  }
  if (mine.volumes.empty()) {
    return Status::success();
  }
  // VolumeLimitScaling (alpha, off in v1.36) would check here that each driver with
  // preventPodSchedulingIfMissing is installed on the node.

  std::unordered_map<std::string, int64_t> limits;
  if (csiNode) {
    Status st = volumeLimits(csiNode, limits);
    if (!st.ok()) {
      return st;
    }
  }
  if (limits.empty()) {
    return Status::success();
  }

  // The volumes of the pods already on the node; one used by several pods counts once.
  VolumeResolver resolver(host_, cycle, volumeIdPrefix_);
  VolumeMap attached;
  for (uint32_t i = 0; i < nodeInfo.pod_count; ++i) {
    Status st = resolver.attachableVolumes(*nodeInfo.pods[i], true, false, attached);
    if (!st.ok()) {
      return st;
    }
  }
  std::unordered_map<std::string_view, int64_t> attachedCount;
  for (const auto& [name, driver] : attached) {
    ++attachedCount[driver];
  }

  // Volumes attached to the node by VolumeAttachments, unless a pod there already uses them.
  if (!data->attachmentsStatus.ok()) {
    return data->attachmentsStatus;
  }
  VolumeMap viaAttachments;
  if (auto it = data->attachmentsByNode.find(nodeName); it != data->attachmentsByNode.end()) {
    Status st = resolver.attachedVolumes(it->second, viaAttachments);
    if (!st.ok()) {
      return st;
    }
  }
  for (const auto& [name, driver] : viaAttachments) {
    if (attached.find(name) == attached.end()) {
      ++attachedCount[driver];
    }
  }

  // The pod's volumes that are not attached to the node yet, per driver.
  std::unordered_map<std::string_view, int64_t> newCount;
  for (const auto& [name, driver] : mine.volumes) {
    if (attached.find(name) == attached.end()) {
      ++newCount[driver];
    }
  }
  for (const auto& [driver, count] : newCount) {
    auto limit = limits.find(std::string(driver));
    if (limit == limits.end()) {
      continue;  // the driver reports no limit
    }
    auto current = attachedCount.find(driver);
    const int64_t used = current == attachedCount.end() ? 0 : current->second;
    if (used + count > limit->second) {
      return Status::unschedulable(kErrReasonMaxVolumeCountExceeded);
    }
  }
  return Status::success();
}

}  // namespace schedhost::plugins::nodevolumelimits

SCHEDHOST_PLUGIN(schedhost::plugins::nodevolumelimits::CSILimits,
                 schedhost::plugins::nodevolumelimits::kName, "1.36.0")
