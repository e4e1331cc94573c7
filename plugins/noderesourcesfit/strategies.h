// The scoring strategies of NodeResourcesFit. Each turns, per configured resource, what would
// be requested on the node with the pod (`requested`) and what the node offers
// (`allocatable`) into a node score in [0, 100]. A resource with allocatable 0 takes no part.
// All arithmetic is int64 as upstream; only RequestedToCapacityRatio rounds.
#ifndef SCHEDHOST_PLUGINS_NODERESOURCESFIT_STRATEGIES_H
#define SCHEDHOST_PLUGINS_NODERESOURCESFIT_STRATEGIES_H

#include "args.h"

#include <cstdint>
#include <vector>

namespace schedhost::plugins::noderesourcesfit {

// The weighted mean of perResource(requested, allocatable) over the resources the node
// has (allocatable > 0); 0 when it has none. LeastAllocated and MostAllocated differ only
// in perResource.
template <typename PerResource>
int64_t weightedScore(const std::vector<ResourceSpec>& resources, const int64_t* requested,
                      const int64_t* allocatable, PerResource perResource) noexcept {
  int64_t nodeScore = 0;
  int64_t weightSum = 0;
  for (std::size_t i = 0; i < resources.size(); ++i) {
    if (allocatable[i] == 0) {
      continue;
    }
    nodeScore += perResource(requested[i], allocatable[i]) * resources[i].weight;
    weightSum += resources[i].weight;
  }
  return weightSum == 0 ? 0 : nodeScore / weightSum;
}

// Σ w·((alloc − req)·100/alloc) / Σ w; a resource requested beyond capacity scores 0.
int64_t leastAllocatedScore(const std::vector<ResourceSpec>& resources, const int64_t* requested,
                            const int64_t* allocatable) noexcept;

// Σ w·(min(req, alloc)·100/alloc) / Σ w.
int64_t mostAllocatedScore(const std::vector<ResourceSpec>& resources, const int64_t* requested,
                           const int64_t* allocatable) noexcept;

// A piecewise-linear function of utilization (req·100/alloc, 100 when over capacity), with the
// shape's scores scaled by 10; resources scoring 0 are left out; round(Σ w·s / Σ w).
class RequestedToCapacityRatio {
 public:
  RequestedToCapacityRatio() = default;
  explicit RequestedToCapacityRatio(const std::vector<ShapePoint>& shape);

  int64_t score(const std::vector<ResourceSpec>& resources, const int64_t* requested,
                const int64_t* allocatable) const noexcept;

 private:
  int64_t brokenLinear(int64_t utilization) const noexcept;

  std::vector<ShapePoint> shape_;  // scores already scaled to [0, 100]
};

}  // namespace schedhost::plugins::noderesourcesfit

#endif  // SCHEDHOST_PLUGINS_NODERESOURCESFIT_STRATEGIES_H
