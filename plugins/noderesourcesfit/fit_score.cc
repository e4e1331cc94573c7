// NodeResourcesFit scoring: PreScore records the pod's request per configured resource
// (cpu and memory with the scoring defaults), Score feeds node + pod requests and allocatable
// to the configured strategy. No NormalizeScore: the strategies already give [0, 100].
#include "fit.h"

#include <schedhost/helpers.hpp>
#include <schedhost/plugin.hpp>

#include <memory>
#include <vector>

namespace schedhost::plugins::noderesourcesfit {

namespace {

// Per-resource scratch for one Score call: on the stack for the usual handful of resources.
class ScoreBuffers {
 public:
  explicit ScoreBuffers(std::size_t n) {
    if (n > kInline) {
      heap_.resize(2 * n);
    }
    requested_ = n > kInline ? heap_.data() : inline_;
    allocatable_ = n > kInline ? heap_.data() + n : inline_ + kInline;
  }
  int64_t* requested() noexcept { return requested_; }
  int64_t* allocatable() noexcept { return allocatable_; }

 private:
  static constexpr std::size_t kInline = 16;
  int64_t inline_[2 * kInline];
  std::vector<int64_t> heap_;
  int64_t* requested_;
  int64_t* allocatable_;
};

}  // namespace

Status Fit::preScore(Cycle& cycle, const sh_pod& pod, const sh_node_info* const* /*nodes*/,
                     std::size_t /*count*/) {
  auto state = std::make_unique<PreScoreState>();
  state->reserve(args_.resources.size());
  for (const ResourceSpec& r : args_.resources) {
    state->push_back(podResourceRequest(pod, r.id, false));
  }
  cycle.write(preScoreStateKey_, std::move(state));
  return Status::success();
}

Status Fit::score(Cycle& cycle, const sh_pod& pod, const sh_node_info& nodeInfo, int64_t& score) {
  // Without PreScore (disabled in the profile) the requests are computed here.
  const PreScoreState* podRequests = cycle.read<PreScoreState>(preScoreStateKey_);
  const std::size_t n = args_.resources.size();
  ScoreBuffers buffers(n);
  int64_t* requested = buffers.requested();
  int64_t* allocatable = buffers.allocatable();
  for (std::size_t i = 0; i < n; ++i) {
    const ResourceSpec& r = args_.resources[i];
    int64_t podRequest =
        podRequests != nullptr ? (*podRequests)[i] : podResourceRequest(pod, r.id, false);
    ResourceAllocation a = resourceAllocation(nodeInfo, r.id, r.scalar, podRequest, false);
    // Only resources the node offers take part.
    allocatable[i] = a.allocatable;
    requested[i] = a.allocatable == 0 ? 0 : a.requested;
  }
  score = scoreStrategy(requested, allocatable);
  return Status::success();
}

int64_t Fit::scoreStrategy(const int64_t* requested, const int64_t* allocatable) const noexcept {
  switch (args_.type) {
    case StrategyType::kMostAllocated:
      return mostAllocatedScore(args_.resources, requested, allocatable);
    case StrategyType::kRequestedToCapacityRatio:
      return ratio_.score(args_.resources, requested, allocatable);
    case StrategyType::kLeastAllocated:
    default:
      return leastAllocatedScore(args_.resources, requested, allocatable);
  }
}

}  // namespace schedhost::plugins::noderesourcesfit
