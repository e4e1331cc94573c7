// VolumeRestrictions' in-line disk rules: two pods on one node conflict when they mount
//   - the same GCE PD (pdName), unless both mount it read-only;
//   - the same AWS EBS volume (volumeID), always;
//   - the same iSCSI target (iqn), unless both mount it read-only;
//   - the same RBD image: at least one Ceph monitor in common, the same pool and image, unless
//     both mount it read-only.
// Upstream: volume_restrictions.go (isVolumeConflict, haveOverlap, needsRestrictionsCheck,
// satisfyVolumeConflicts).
#include "volume_restrictions.h"

#include <schedhost/plugin.hpp>

#include <cstddef>
#include <cstdint>
#include <string_view>

namespace schedhost::plugins::volumerestrictions {

namespace {

bool bothReadOnly(const sh_volume& a, const sh_volume& b) noexcept {
  return a.read_only != 0 && b.read_only != 0;
}

// haveOverlap: the two monitor lists have at least one element in common. Monitor lists are
// short (a handful of addresses), so a nested scan beats building a set.
bool haveOverlap(const sh_volume& a, const sh_volume& b) noexcept {
  for (uint32_t i = 0; i < a.monitor_count; ++i) {
    for (uint32_t j = 0; j < b.monitor_count; ++j) {
      if (view(a.monitors[i]) == view(b.monitors[j])) {
        return true;
      }
    }
  }
  return false;
}

}  // namespace

bool needsRestrictionsCheck(const sh_volume& volume) noexcept {
  return volume.source == SH_VOLUME_GCE_PD || volume.source == SH_VOLUME_AWS_EBS ||
         volume.source == SH_VOLUME_RBD || volume.source == SH_VOLUME_ISCSI;
}

bool isVolumeConflict(const sh_volume& volume, const sh_pod& existing) noexcept {
  for (uint32_t i = 0; i < volumeCount(existing); ++i) {
    const sh_volume& other = existing.volumes[i];
    if (other.source != volume.source) {
      continue;
    }
    const bool sameHandle = view(volume.handle) == view(other.handle);
    switch (volume.source) {
      case SH_VOLUME_GCE_PD:
        if (sameHandle && !bothReadOnly(volume, other)) {
          return true;
        }
        break;
      case SH_VOLUME_AWS_EBS:
        if (sameHandle) {
          return true;
        }
        break;
      case SH_VOLUME_ISCSI:
        // iSCSI volumes are RWO or ROX: only one read-write mount of the same IQN.
        if (sameHandle && !bothReadOnly(volume, other)) {
          return true;
        }
        break;
      case SH_VOLUME_RBD:
        if (haveOverlap(volume, other) && view(volume.pool) == view(other.pool) && sameHandle &&
            !bothReadOnly(volume, other)) {
          return true;
        }
        break;
      default:
        break;
    }
  }
  return false;
}

bool satisfyVolumeConflicts(const sh_pod& pod, const sh_pod* const* pods,
                            std::size_t count) noexcept {
  for (uint32_t i = 0; i < volumeCount(pod); ++i) {
    const sh_volume& volume = pod.volumes[i];
    if (!needsRestrictionsCheck(volume)) {
      continue;
    }
    for (std::size_t j = 0; j < count; ++j) {
      if (pods[j] != nullptr && isVolumeConflict(volume, *pods[j])) {
        return false;
      }
    }
  }
  return true;
}

}  // namespace schedhost::plugins::volumerestrictions
