// NodeResourcesBalancedAllocation: prefers nodes where placing the pod makes the usage of the
// configured resources more even (a smaller standard deviation of requested/allocatable).
//
// Extension points: PreScore, Score (no NormalizeScore).
// Upstream: pkg/scheduler/framework/plugins/noderesources/balanced_allocation.go (v1.36),
// with the 1.36 formula 50 + (50 + score(with pod) − score(without pod)) / 2.
#include "args.h"

#include <schedhost/helpers.hpp>
#include <schedhost/plugin.hpp>

#include <cmath>
#include <memory>
#include <string>
#include <type_traits>
#include <vector>

namespace schedhost::plugins::noderesourcesbalancedallocation {

constexpr const char* kName = "NodeResourcesBalancedAllocation";

// The pod's actual request for each configured resource, in args order.
using PreScoreState = std::vector<int64_t>;

class BalancedAllocation : public PreScorePlugin, public ScorePlugin {
 public:
  static constexpr const char* kDefaultArgsJson =
      R"({"resources":[{"name":"cpu","weight":1},{"name":"memory","weight":1}]})";

  BalancedAllocation(Host& host, const Args& args);

  Status preScore(Cycle& cycle, const sh_pod& pod, const sh_node_info* const* nodes,
                  std::size_t count);
  Status score(Cycle& cycle, const sh_pod& pod, const sh_node_info& nodeInfo, int64_t& score);

 private:
  int64_t podRequest(const sh_pod& pod, std::size_t i) const noexcept {
    return podResourceRequest(pod, args_.resources[i].id, true);
  }

  BalancedAllocationArgs args_;
  sh_id preScoreStateKey_;
};

static_assert(!std::is_base_of_v<ScoreExtensions, BalancedAllocation>,
              "upstream BalancedAllocation has no NormalizeScore");

namespace {

// One resource of one node: what is requested without and with the pod, and allocatable.
struct Usage {
  int64_t allocated;
  int64_t requested;
  int64_t allocatable;
};

// (1 − std)·100 over the fractions min(used/allocatable, 1) of the resources the node offers:
// std is |f0 − f1|/2 for two resources, the population standard deviation for more, 0 below
// two. Float64 in upstream's order of operations.
template <typename Used>
int64_t balancedScore(const Usage* usage, std::size_t n, Used used) noexcept {
  auto fraction = [&](const Usage& u) {
    double f = static_cast<double>(used(u)) / static_cast<double>(u.allocatable);
    return f > 1 ? 1.0 : f;
  };
  std::size_t count = 0;
  double total = 0;
  double first = 0;
  double second = 0;
  for (std::size_t i = 0; i < n; ++i) {
    if (usage[i].allocatable == 0) {
      continue;
    }
    double f = fraction(usage[i]);
    total += f;
    if (count == 0) {
      first = f;
    } else if (count == 1) {
      second = f;
    }
    ++count;
  }
  double stddev = 0;
  if (count == 2) {
    stddev = std::fabs((first - second) / 2);
  } else if (count > 2) {
    double mean = total / static_cast<double>(count);
    double sum = 0;
    for (std::size_t i = 0; i < n; ++i) {
      if (usage[i].allocatable != 0) {
        double d = fraction(usage[i]) - mean;
        sum = sum + d * d;
      }
    }
    stddev = std::sqrt(sum / static_cast<double>(count));
  }
  return static_cast<int64_t>((1 - stddev) * static_cast<double>(SH_MAX_NODE_SCORE));
}

}  // namespace

BalancedAllocation::BalancedAllocation(Host& host, const Args& args)
    : args_(parseArgs(host, args)),
      preScoreStateKey_(host.intern(std::string("PreScore") + kName)) {}

// Skip for a pod that requests none of the resources (best effort), so such pods do not all
// pile onto the most balanced node.
Status BalancedAllocation::preScore(Cycle& cycle, const sh_pod& pod,
                                    const sh_node_info* const* /*nodes*/, std::size_t /*count*/) {
  auto state = std::make_unique<PreScoreState>();
  bool bestEffort = true;
  for (std::size_t i = 0; i < args_.resources.size(); ++i) {
    state->push_back(podRequest(pod, i));
    bestEffort = bestEffort && state->back() == 0;
  }
  if (bestEffort) {
    return Status::skip();
  }
  cycle.write(preScoreStateKey_, std::move(state));
  return Status::success();
}

// 50 + (50 + score(node with the pod) − score(node without it)) / 2.
Status BalancedAllocation::score(Cycle& cycle, const sh_pod& pod, const sh_node_info& nodeInfo,
                                 int64_t& score) {
  const PreScoreState* podRequests = cycle.read<PreScoreState>(preScoreStateKey_);
  const std::size_t n = args_.resources.size();
  constexpr std::size_t kInline = 16;
  Usage inlineUsage[kInline];
  std::vector<Usage> heapUsage(n > kInline ? n : 0);
  Usage* usage = n > kInline ? heapUsage.data() : inlineUsage;
  bool bestEffort = true;
  for (std::size_t i = 0; i < n; ++i) {
    int64_t request = podRequests != nullptr ? (*podRequests)[i] : podRequest(pod, i);
    bestEffort = bestEffort && request == 0;
    const ResourceSpec& r = args_.resources[i];
    ResourceAllocation a = resourceAllocation(nodeInfo, r.id, r.scalar, request, true);
    usage[i] = {a.allocated, a.requested, a.allocatable};
  }
  if (podRequests == nullptr && bestEffort) {
    score = 0;
    return Status::success();
  }
  int64_t withPod = balancedScore(usage, n, [](const Usage& u) { return u.requested; });
  int64_t withoutPod = balancedScore(usage, n, [](const Usage& u) { return u.allocated; });
  score = SH_MAX_NODE_SCORE / 2 + (SH_MAX_NODE_SCORE / 2 + withPod - withoutPod) / 2;
  return Status::success();
}

}  // namespace schedhost::plugins::noderesourcesbalancedallocation

SCHEDHOST_PLUGIN(schedhost::plugins::noderesourcesbalancedallocation::BalancedAllocation,
                 schedhost::plugins::noderesourcesbalancedallocation::kName, "1.36.0")
