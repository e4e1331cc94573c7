// LeastAllocated: favours nodes with more free capacity after placing the pod.
// Upstream: pkg/scheduler/framework/plugins/noderesources/least_allocated.go (v1.36).
#include "strategies.h"

#include <schedhost/plugin.hpp>

namespace schedhost::plugins::noderesourcesfit {

namespace {

// The unused share of one resource on a 0..100 scale.
int64_t leastRequestedScore(int64_t requested, int64_t capacity) noexcept {
  if (capacity == 0 || requested > capacity) {
    return 0;
  }
  return (capacity - requested) * SH_MAX_NODE_SCORE / capacity;
}

}  // namespace

int64_t leastAllocatedScore(const std::vector<ResourceSpec>& resources, const int64_t* requested,
                            const int64_t* allocatable) noexcept {
  return weightedScore(resources, requested, allocatable, leastRequestedScore);
}

}  // namespace schedhost::plugins::noderesourcesfit
