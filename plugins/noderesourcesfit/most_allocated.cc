// MostAllocated: favours nodes that are fuller after placing the pod (bin packing).
// Upstream: pkg/scheduler/framework/plugins/noderesources/most_allocated.go (v1.36).
#include "strategies.h"

#include <schedhost/plugin.hpp>

namespace schedhost::plugins::noderesourcesfit {

namespace {

// The used share of one resource on a 0..100 scale; requests beyond capacity count as full
// (pods without requests get the scoring defaults, which can exceed a small node).
int64_t mostRequestedScore(int64_t requested, int64_t capacity) noexcept {
  if (capacity == 0) {
    return 0;
  }
  if (requested > capacity) {
    requested = capacity;
  }
  return requested * SH_MAX_NODE_SCORE / capacity;
}

}  // namespace

int64_t mostAllocatedScore(const std::vector<ResourceSpec>& resources, const int64_t* requested,
                           const int64_t* allocatable) noexcept {
  return weightedScore(resources, requested, allocatable, mostRequestedScore);
}

}  // namespace schedhost::plugins::noderesourcesfit
