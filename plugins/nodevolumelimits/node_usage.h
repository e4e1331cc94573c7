// What a node already uses, kept across cycles: the volumes its pods and VolumeAttachments
// attach, counted per driver, and the limits its CSINode reports.
//
// Upstream's Filter derives it anew for every node it examines (csi.go: the node's pods'
// volumes, getNodeVolumeAttachmentInfo, getVolumeLimits). It depends only on the node's pods
// and on the objects of the plugin's five kinds, so it is kept per node, keyed by the node's
// generation (which moves whenever its pods change) and the versions of the five kinds
// (object_kind_version: equal versions, equal objects). A cycle that changes none of them —
// the common case: one pod was bound since the last one, on one node — derives one node's usage
// instead of every node's.
//
//   KindVersions       the five kinds' versions as a cycle reads them
//   AttachmentIndex    the VolumeAttachments by spec.nodeName, built once per version of the kind
//   NodeUsage          one node's usage
//   NodeUsageCache     the usages by node, safe to read and fill from concurrent Filters
#ifndef SCHEDHOST_PLUGINS_NODEVOLUMELIMITS_NODE_USAGE_H
#define SCHEDHOST_PLUGINS_NODEVOLUMELIMITS_NODE_USAGE_H

#include "volumes.h"

#include <schedhost/plugin.hpp>

#include <algorithm>
#include <array>
#include <atomic>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <utility>
#include <vector>

namespace schedhost::plugins::nodevolumelimits {

// The versions of the plugin's kinds (by KindIndex) a cycle reads.
struct KindVersions {
  std::array<uint64_t, 5> of{};

  static KindVersions read(const Host& host, const Cycle& cycle);
  // A version 0 names none (an older host): nothing derived from it may be kept.
  bool known() const noexcept;
  bool operator==(const KindVersions& other) const noexcept { return of == other.of; }
  bool operator!=(const KindVersions& other) const noexcept { return of != other.of; }
};

// The VolumeAttachments by spec.nodeName (upstream's informer index va.spec.nodename), with the
// version of the kind it was built from. The views belong to that version: they are read only
// by a cycle that reads the same version, which keeps them alive.
struct AttachmentIndex {
  uint64_t version = 0;
  std::unordered_map<std::string, std::vector<const sh_object*>> byNode;
  Status status;  // a VolumeAttachment whose spec.nodeName is not a string

  static std::shared_ptr<const AttachmentIndex> build(const Host& host, const Cycle& cycle,
                                                      uint64_t version);
  // The node's attachments; none when it has no entry.
  const std::vector<const sh_object*>& of(std::string_view node) const;
};

// How many more volumes of a driver a node can attach: its CSINode's limit less the volumes
// attached already (negative when the node is over its limit).
struct DriverRoom {
  std::string driver;
  int64_t room = 0;
};

// One node's usage, as the Filter of a pod with attachable volumes needs it. Filter reads it
// on every node it examines, so what it reads on most nodes is in the struct itself: the first
// drivers' rooms (a node has one or two CSI drivers with limits) and a mask of its volumes.
struct NodeUsage {
  static constexpr std::size_t kInlineDrivers = 2;

  bool hasCsiNode = false;
  // Whether the CSINode reports any limit; else (or the Error reading it gave) nothing counts.
  bool hasLimits = false;
  Status limitsStatus;
  // The Error resolving the volumes of the node's pods or VolumeAttachments gave, if any.
  Status usageStatus;
  // The rooms of the drivers with a limit: the first kInlineDrivers here, the rest in
  // moreRooms.
  std::array<DriverRoom, kInlineDrivers> rooms;
  std::size_t roomCount = 0;
  std::vector<DriverRoom> moreRooms;
  // The volumes of the node's pods (their unique names, sorted), and volumeBit() of each: a
  // volume whose bit is clear is not among them, found without reading the names.
  std::vector<std::string> podVolumes;
  uint64_t volumeMask = 0;

  void addRoom(std::string driver, int64_t room) {
    if (roomCount < kInlineDrivers) {
      rooms[roomCount++] = DriverRoom{std::move(driver), room};
    } else {
      moreRooms.push_back(DriverRoom{std::move(driver), room});
    }
  }
  // The room for `driver`; nullopt when it reports no limit.
  std::optional<int64_t> roomOf(std::string_view driver) const noexcept {
    for (std::size_t i = 0; i < roomCount; ++i) {
      if (rooms[i].driver == driver) {
        return rooms[i].room;
      }
    }
    for (const DriverRoom& r : moreRooms) {
      if (r.driver == driver) {
        return r.room;
      }
    }
    return std::nullopt;
  }

  // One of 64 bits for a volume's unique name.
  static uint64_t volumeBit(std::string_view name) noexcept {
    return uint64_t{1} << (std::hash<std::string_view>()(name) % 64);
  }
  // Whether the node's pods use volume `name`, whose volumeBit() is `bit`.
  bool usesVolume(std::string_view name, uint64_t bit) const noexcept {
    return (volumeMask & bit) != 0 &&
           std::binary_search(podVolumes.begin(), podVolumes.end(), name,
                              [](std::string_view a, std::string_view b) { return a < b; });
  }
};

// Derives a node's usage through the cycle's objects.
NodeUsage deriveNodeUsage(const Host& host, const Cycle& cycle, std::string_view volumeIdPrefix,
                          const sh_node_info& ni, const AttachmentIndex& attachments);

// The usages by node name id, in shards so that concurrent Filters rarely share a lock. An
// entry derived from other versions or another generation of the node is derived again; trim()
// (from PreFilter, with the snapshot's node count) drops everything when the cache holds far
// more entries than there are nodes (nodes that left the cluster).
class NodeUsageCache {
 public:
  // The epoch of `versions` (from PreFilter, once per cycle): the same number while the
  // versions stay the same, a new one when they change; 0 for versions that name nothing (an
  // older host), whose usages are never kept. An entry keeps its epoch, one number to compare
  // on every node instead of five.
  uint64_t epochOf(const KindVersions& versions);

  // Calls `use(const NodeUsage&)` with the node's usage as of `epoch` — the kept one when it
  // still holds, else one `derive()` gives now (outside the lock), kept — and returns what it
  // returns. The usage lives in the cache's own entry and is read under its shard's lock, so
  // `use` only reads and compares.
  template <typename Derive, typename Use>
  auto visit(const sh_node_info& ni, uint64_t epoch, Derive&& derive, Use&& use) {
    if (epoch == 0 || ni.generation == 0) {
      return use(static_cast<const NodeUsage&>(derive()));
    }
    Shard& shard = shards_[ni.node->name_id % kShards];
    {
      std::lock_guard<std::mutex> lock(shard.mu);
      auto it = shard.usages.find(ni.node->name_id);
      if (it != shard.usages.end() && it->second.generation == ni.generation &&
          it->second.node == ni.node && it->second.epoch == epoch) {
        return use(static_cast<const NodeUsage&>(it->second.usage));
      }
    }
    NodeUsage fresh = derive();
    std::lock_guard<std::mutex> lock(shard.mu);
    auto [it, added] = shard.usages.insert_or_assign(
        ni.node->name_id, Entry{ni.generation, ni.node, epoch, std::move(fresh)});
    if (added) {
      size_.fetch_add(1, std::memory_order_relaxed);
    }
    return use(static_cast<const NodeUsage&>(it->second.usage));
  }

  void trim(std::size_t nodes);
  std::size_t size() const noexcept { return size_.load(std::memory_order_relaxed); }

 private:
  static constexpr std::size_t kShards = 64;
  struct Entry {  // what the usage was derived from, and the usage
    uint64_t generation = 0;
    const sh_node* node = nullptr;
    uint64_t epoch = 0;
    NodeUsage usage;
  };
  struct Shard {
    std::mutex mu;
    std::unordered_map<sh_id, Entry> usages;
  };
  std::array<Shard, kShards> shards_;
  std::atomic<std::size_t> size_{0};
  std::mutex epochMu_;
  KindVersions epochVersions_;
  uint64_t epoch_ = 0;
};

}  // namespace schedhost::plugins::nodevolumelimits

#endif  // SCHEDHOST_PLUGINS_NODEVOLUMELIMITS_NODE_USAGE_H
