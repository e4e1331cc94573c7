#include "node_usage.h"

#include "fields.h"

#include <algorithm>
#include <string>
#include <unordered_map>

namespace schedhost::plugins::nodevolumelimits {

KindVersions KindVersions::read(const Host& host, const Cycle& cycle) {
  KindVersions out;
  for (uint32_t kind = 0; kind < out.of.size(); ++kind) {
    out.of[kind] = host.objectKindVersion(cycle, kind);
  }
  return out;
}

bool KindVersions::known() const noexcept {
  return std::none_of(of.begin(), of.end(), [](uint64_t v) { return v == 0; });
}

std::shared_ptr<const AttachmentIndex> AttachmentIndex::build(const Host& host, const Cycle& cycle,
                                                              uint64_t version) {
  auto out = std::make_shared<AttachmentIndex>();
  out->version = version;
  for (Object va : host.objectList(cycle, kVolumeAttachments)) {
    Fields f(va, "VolumeAttachment");
    std::optional<std::string_view> node = f.optionalString("spec.nodeName");
    if (!f.ok()) {
      out->status = Status::error(f.error());
      out->byNode.clear();
      break;
    }
    if (node && !node->empty()) {
      out->byNode[std::string(*node)].push_back(va.raw());
    }
  }
  return out;
}

const std::vector<const sh_object*>& AttachmentIndex::of(std::string_view node) const {
  static const std::vector<const sh_object*> kNone;
  auto it = byNode.find(std::string(node));
  return it == byNode.end() ? kNone : it->second;
}

NodeUsage deriveNodeUsage(const Host& host, const Cycle& cycle, std::string_view volumeIdPrefix,
                          const sh_node_info& ni, const AttachmentIndex& attachments) {
  NodeUsage usage;
  const std::string_view nodeName = view(ni.node->name);
  // No CSINode (not created yet): in-tree volumes do not count, and there are no limits.
  Object csiNode = host.objectGet(cycle, kCSINodes, {}, nodeName);
  usage.hasCsiNode = static_cast<bool>(csiNode);
  if (!csiNode) {
    return usage;
  }
  std::unordered_map<std::string, int64_t> limits;
  usage.limitsStatus = volumeLimits(csiNode, limits);
  if (!usage.limitsStatus.ok() || limits.empty()) {
    return usage;
  }
  usage.hasLimits = true;

  // The volumes of the pods already on the node; one used by several pods counts once.
  VolumeResolver resolver(host, cycle, volumeIdPrefix);
  VolumeMap attached;
  for (uint32_t i = 0; i < ni.pod_count; ++i) {
    Status st = resolver.attachableVolumes(*ni.pods[i], true, false, attached);
    if (!st.ok()) {
      usage.usageStatus = std::move(st);
      return usage;
    }
  }
  std::unordered_map<std::string, int64_t> counts;
  for (const auto& [name, driver] : attached) {
    ++counts[driver];
    usage.podVolumes.push_back(name);
    usage.volumeMask |= NodeUsage::volumeBit(name);
  }
  std::sort(usage.podVolumes.begin(), usage.podVolumes.end());

  // Volumes attached to the node by VolumeAttachments, unless a pod there already uses them.
  if (!attachments.status.ok()) {
    usage.usageStatus = attachments.status;
    return usage;
  }
  VolumeMap viaAttachments;
  if (Status st = resolver.attachedVolumes(attachments.of(nodeName), viaAttachments); !st.ok()) {
    usage.usageStatus = std::move(st);
    return usage;
  }
  for (const auto& [name, driver] : viaAttachments) {
    if (!usage.usesVolume(name, NodeUsage::volumeBit(name))) {
      ++counts[driver];
    }
  }
  for (auto& [driver, limit] : limits) {
    auto used = counts.find(driver);
    usage.addRoom(driver, limit - (used == counts.end() ? 0 : used->second));
  }
  return usage;
}

uint64_t NodeUsageCache::epochOf(const KindVersions& versions) {
  if (!versions.known()) {
    return 0;
  }
  std::lock_guard<std::mutex> lock(epochMu_);
  if (epoch_ == 0 || versions != epochVersions_) {
    epochVersions_ = versions;
    ++epoch_;
  }
  return epoch_;
}

void NodeUsageCache::trim(std::size_t nodes) {
  if (size() <= 2 * nodes + kShards) {
    return;
  }
  for (Shard& shard : shards_) {
    std::lock_guard<std::mutex> lock(shard.mu);
    size_.fetch_sub(shard.usages.size(), std::memory_order_relaxed);
    shard.usages.clear();
  }
}

}  // namespace schedhost::plugins::nodevolumelimits
