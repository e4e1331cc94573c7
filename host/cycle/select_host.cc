#include "host/cycle/select_host.h"

#include <algorithm>

namespace sh::cycle {

std::size_t numFeasibleNodesToFind(int globalPercentage, int profilePercentage,
                                   std::size_t numAllNodes) {
  constexpr std::size_t kMinFeasibleNodesToFind = 100;
  constexpr int kMinFeasibleNodesPercentageToFind = 5;
  if (numAllNodes < kMinFeasibleNodesToFind) {
    return numAllNodes;
  }
  int p = profilePercentage >= 0 ? profilePercentage : globalPercentage;
  if (p <= 0) {
    p = 50 - static_cast<int>(numAllNodes / 125);
    if (p < kMinFeasibleNodesPercentageToFind) {
      p = kMinFeasibleNodesPercentageToFind;
    }
  }
  if (p >= 100) {
    return numAllNodes;
  }
  std::size_t n = numAllNodes * static_cast<std::size_t>(p) / 100;
  return std::max(n, kMinFeasibleNodesToFind);
}

std::size_t selectHost(const std::vector<NodeScore>& scores, uint64_t seed) {
  if (scores.empty()) {
    return 0;
  }
  int64_t best = scores[0].total;
  std::size_t ties = 0;
  for (const NodeScore& s : scores) {
    if (s.total > best) {
      best = s.total;
      ties = 1;
    } else if (s.total == best) {
      ++ties;
    }
  }
  uint64_t state = seed;
  std::size_t pick = ties > 1 ? static_cast<std::size_t>(splitmix64(state) % ties) : 0;
  for (std::size_t i = 0; i < scores.size(); ++i) {
    if (scores[i].total == best) {
      if (pick == 0) {
        return i;
      }
      --pick;
    }
  }
  return 0;
}

}  // namespace sh::cycle
