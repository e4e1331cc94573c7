// Scores: helper.DefaultNormalizeScore.
#ifndef SCHEDHOST_HELPERS_SCORES_HPP
#define SCHEDHOST_HELPERS_SCORES_HPP

#include <schedhost/plugin.h>

#include <cstddef>
#include <cstdint>

namespace schedhost {

// helper.DefaultNormalizeScore: scale to [0, maxPriority] by the highest score, optionally
// reversed. All zero stays zero (or becomes maxPriority when reversed).
inline void defaultNormalizeScore(int64_t maxPriority, bool reverse, sh_node_score* scores,
                                  std::size_t count) noexcept {
  int64_t maxCount = 0;
  for (std::size_t i = 0; i < count; ++i) {
    if (scores[i].score > maxCount) {
      maxCount = scores[i].score;
    }
  }
  if (maxCount == 0) {
    if (reverse) {
      for (std::size_t i = 0; i < count; ++i) {
        scores[i].score = maxPriority;
      }
    }
    return;
  }
  for (std::size_t i = 0; i < count; ++i) {
    int64_t score = maxPriority * scores[i].score / maxCount;
    scores[i].score = reverse ? maxPriority - score : score;
  }
}

}  // namespace schedhost

#endif  // SCHEDHOST_HELPERS_SCORES_HPP
