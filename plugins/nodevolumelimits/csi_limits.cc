#include "csi_limits.h"

#include "fields.h"

#include <algorithm>
#include <cstddef>
#include <optional>
#include <random>
#include <utility>
#include <vector>

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
      volumeIdPrefix_(randomVolumeIdPrefix()),
      usage_(std::make_unique<NodeUsageCache>()) {}

// PreFilter: Skip unless the pod has a volume that may count against a CSI limit; otherwise
// resolve the pod's volumes once for the cycle.
Status CSILimits::preFilter(Cycle& cycle, const sh_pod& pod, PreFilterResult& /*result*/) {
  if (!hostHasPodVolumes(pod)) {
    return olderHost();
  }
  for (uint32_t i = 0; i < pod.volume_count; ++i) {
    if (mayAttach(pod.volumes[i])) {
      usage_->trim(cycle.snapshot().size());
      cycle.write(stateKey_, std::make_unique<PreFilterState>(PreFilterState{prepare(cycle, pod)}));
      return Status::success();
    }
  }
  return Status::skip();
}

std::shared_ptr<const AttachmentIndex> CSILimits::attachments(const Cycle& cycle,
                                                              uint64_t version) {
  std::lock_guard<std::mutex> lock(attachmentsMu_);
  if (version != 0 && attachments_ != nullptr && attachments_->version == version) {
    return attachments_;
  }
  std::shared_ptr<const AttachmentIndex> built = AttachmentIndex::build(host_, cycle, version);
  if (version != 0) {
    attachments_ = built;
  }
  return built;
}

std::shared_ptr<const CycleData> CSILimits::prepare(const Cycle& cycle, const sh_pod& pod) {
  auto data = std::make_shared<CycleData>();
  const KindVersions versions = KindVersions::read(host_, cycle);
  data->epoch = usage_->epochOf(versions);
  VolumeResolver resolver(host_, cycle, volumeIdPrefix_);
  CycleData::PodVolumes& without = data->withoutCsiNode;
  CycleData::PodVolumes& with = data->withCsiNode;
  for (auto [volumes, hasCsiNode] : {std::pair{&without, false}, std::pair{&with, true}}) {
    VolumeMap resolved;
    volumes->status = resolver.attachableVolumes(pod, hasCsiNode, true, resolved);
    for (auto& [name, driver] : resolved) {
      const uint64_t bit = NodeUsage::volumeBit(name);
      volumes->volumes.push_back(PodVolume{name, std::move(driver), bit});
    }
    std::sort(volumes->volumes.begin(), volumes->volumes.end(),
              [](const PodVolume& a, const PodVolume& b) { return a.name < b.name; });
  }
  // upstream's informer index va.spec.nodename, built once per version of the kind: a node's
  // usage needs it, whatever this pod's volumes are.
  data->attachments = attachments(cycle, versions.of[kVolumeAttachments]);
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
  const auto settled = [](const CycleData::PodVolumes& v) {
    return v.status.ok() && v.volumes.empty();
  };
  if (settled(data->withCsiNode) && settled(data->withoutCsiNode)) {
    return Status::success();  // nothing of the pod counts on any node
  }
  return usage_->visit(
      nodeInfo, data->epoch,
      [&] { return deriveNodeUsage(host_, cycle, volumeIdPrefix_, nodeInfo, *data->attachments); },
      [&](const NodeUsage& usage) { return fits(*data, usage); });
}

Status CSILimits::fits(const CycleData& data, const NodeUsage& usage) {
  const CycleData::PodVolumes& mine = usage.hasCsiNode ? data.withCsiNode : data.withoutCsiNode;
  if (!mine.status.ok()) {
    return mine.status;
  }
  if (mine.volumes.empty()) {
    return Status::success();
  }
  // VolumeLimitScaling (alpha, off in v1.36) would check here that each driver with
  // preventPodSchedulingIfMissing is installed on the node.
  if (!usage.limitsStatus.ok()) {
    return usage.limitsStatus;
  }
  if (!usage.hasLimits) {
    return Status::success();
  }
  if (!usage.usageStatus.ok()) {
    return usage.usageStatus;
  }

  // The pod's volumes that are not attached to the node yet, per driver, each driver counted
  // at its first volume: a pod has few volumes, so no map is built on every node.
  const auto& vols = mine.volumes;
  for (std::size_t i = 0; i < vols.size(); ++i) {
    const std::string& driver = vols[i].driver;
    const auto first = vols.begin() + static_cast<std::ptrdiff_t>(i);
    if (std::any_of(vols.begin(), first, [&](const auto& v) { return v.driver == driver; })) {
      continue;  // counted with the first volume of its driver
    }
    const int64_t count = std::count_if(first, vols.end(), [&](const PodVolume& v) {
      return v.driver == driver && !usage.usesVolume(v.name, v.bit);
    });
    const std::optional<int64_t> room = usage.roomOf(driver);
    if (count == 0 || !room) {
      continue;  // nothing new, or the driver reports no limit
    }
    if (count > *room) {  // attached + count > limit
      return Status::unschedulable(kErrReasonMaxVolumeCountExceeded);
    }
  }
  return Status::success();
}

}  // namespace schedhost::plugins::nodevolumelimits

SCHEDHOST_PLUGIN(schedhost::plugins::nodevolumelimits::CSILimits,
                 schedhost::plugins::nodevolumelimits::kName, "1.36.0")
