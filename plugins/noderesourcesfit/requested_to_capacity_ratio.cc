// RequestedToCapacityRatio: scores each resource's utilization through a configured
// piecewise-linear shape, e.g. [{0, 0}, {100, 10}] for bin packing.
// Upstream: pkg/scheduler/framework/plugins/noderesources/requested_to_capacity_ratio.go and
// helper.BuildBrokenLinearFunction (v1.36).
#include "strategies.h"

#include <schedhost/plugin.hpp>

#include <cmath>

namespace schedhost::plugins::noderesourcesfit {

namespace {

constexpr int64_t kMaxUtilization = 100;
// Shape scores are configured in [0, MaxCustomPriorityScore = 10].
constexpr int64_t kShapeScoreScale = SH_MAX_NODE_SCORE / 10;

// requested·max/capacity, exact (128-bit intermediate), with requested clamped to
// [0, capacity].
int64_t scaledUtilization(int64_t requested, int64_t capacity, int64_t max) noexcept {
  if (capacity <= 0 || requested <= 0) {
    return 0;
  }
  if (requested >= capacity) {
    return max;
  }
  __extension__ using Int128 = __int128;
  return static_cast<int64_t>(static_cast<Int128>(requested) * max / capacity);
}

}  // namespace

RequestedToCapacityRatio::RequestedToCapacityRatio(const std::vector<ShapePoint>& shape) {
  shape_.reserve(shape.size());
  for (const ShapePoint& p : shape) {
    shape_.push_back({p.utilization, p.score * kShapeScoreScale});
  }
}

// shape[0] below the first point, shape[n-1] above the last, linear (truncating) between.
int64_t RequestedToCapacityRatio::brokenLinear(int64_t p) const noexcept {
  for (std::size_t i = 0; i < shape_.size(); ++i) {
    if (p <= shape_[i].utilization) {
      if (i == 0) {
        return shape_[0].score;
      }
      const ShapePoint& a = shape_[i - 1];
      const ShapePoint& b = shape_[i];
      return a.score + (b.score - a.score) * (p - a.utilization) / (b.utilization - a.utilization);
    }
  }
  return shape_.empty() ? 0 : shape_.back().score;
}

int64_t RequestedToCapacityRatio::score(const std::vector<ResourceSpec>& resources,
                                        const int64_t* requested,
                                        const int64_t* allocatable) const noexcept {
  int64_t nodeScore = 0;
  int64_t weightSum = 0;
  for (std::size_t i = 0; i < resources.size(); ++i) {
    if (allocatable[i] == 0) {
      continue;
    }
    int64_t utilization = requested[i] > allocatable[i]
                              ? kMaxUtilization
                              : scaledUtilization(requested[i], allocatable[i], kMaxUtilization);
    int64_t resourceScore = brokenLinear(utilization);
    if (resourceScore > 0) {
      nodeScore += resourceScore * resources[i].weight;
      weightSum += resources[i].weight;
    }
  }
  if (weightSum == 0) {
    return 0;
  }
  return static_cast<int64_t>(
      std::round(static_cast<double>(nodeScore) / static_cast<double>(weightSum)));
}

}  // namespace schedhost::plugins::noderesourcesfit
