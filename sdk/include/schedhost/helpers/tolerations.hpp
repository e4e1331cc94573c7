// Taints and tolerations: v1.Toleration.ToleratesTaint and
// v1helper.FindMatchingUntoleratedTaint.
#ifndef SCHEDHOST_HELPERS_TOLERATIONS_HPP
#define SCHEDHOST_HELPERS_TOLERATIONS_HPP

#include <schedhost/plugin.h>
#include <schedhost/helpers/labels.hpp>

#include <cstdint>

namespace schedhost {

// v1.Toleration.ToleratesTaint with the TaintTolerationComparisonOperators gate off (1.36
// default): Lt, Gt and unknown operators tolerate nothing.
inline bool toleratesTaint(const sh_toleration& t, const sh_taint& taint) noexcept {
  if (t.effect != SH_EFFECT_NONE && t.effect != taint.effect) {
    return false;
  }
  if (canonicalId(t.key) != SH_ID_NONE && !sameId(t.key, taint.key)) {
    return false;
  }
  switch (t.op) {
    case SH_TOLERATION_EQUAL:
      return sameId(t.value, taint.value);
    case SH_TOLERATION_EXISTS:
      return true;
    default:
      return false;
  }
}

inline bool tolerationsTolerateTaint(const sh_toleration* tolerations, uint32_t count,
                                     const sh_taint& taint) noexcept {
  for (uint32_t i = 0; i < count; ++i) {
    if (toleratesTaint(tolerations[i], taint)) {
      return true;
    }
  }
  return false;
}

// Bit masks of taint effects for findUntoleratedTaint's filter.
constexpr uint32_t effectBit(int32_t effect) noexcept {
  return 1u << static_cast<uint32_t>(effect);
}
constexpr uint32_t kDoNotScheduleEffects =
    effectBit(SH_EFFECT_NO_SCHEDULE) | effectBit(SH_EFFECT_NO_EXECUTE);

// The first taint whose effect is in `effects` that no toleration tolerates, or nullptr.
inline const sh_taint* findUntoleratedTaint(const sh_taint* taints, uint32_t taintCount,
                                            const sh_toleration* tolerations,
                                            uint32_t tolerationCount, uint32_t effects) noexcept {
  for (uint32_t i = 0; i < taintCount; ++i) {
    const sh_taint& taint = taints[i];
    bool known = taint.effect >= SH_EFFECT_NONE && taint.effect <= SH_EFFECT_NO_EXECUTE;
    if (!known || (effects & effectBit(taint.effect)) == 0) {
      continue;
    }
    if (!tolerationsTolerateTaint(tolerations, tolerationCount, taint)) {
      return &taint;
    }
  }
  return nullptr;
}
inline const sh_taint* findUntoleratedTaint(const sh_node& node, const sh_pod& pod,
                                            uint32_t effects) noexcept {
  return findUntoleratedTaint(node.taints, node.taint_count, pod.tolerations, pod.toleration_count,
                              effects);
}

}  // namespace schedhost

#endif  // SCHEDHOST_HELPERS_TOLERATIONS_HPP
