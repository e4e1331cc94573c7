// NodeResourcesFit: a pod fits a node when the node's allocatable covers the pod's requests
// on top of what is already requested there; feasible nodes are scored by the configured
// strategy (LeastAllocated, MostAllocated or RequestedToCapacityRatio).
//
// Extension points: PreFilter, Filter, PreScore, Score (no NormalizeScore), EnqueueExtensions.
// Upstream: pkg/scheduler/framework/plugins/noderesources/fit.go and resource_allocation.go
// (v1.36).
#ifndef SCHEDHOST_PLUGINS_NODERESOURCESFIT_FIT_H
#define SCHEDHOST_PLUGINS_NODERESOURCESFIT_FIT_H

#include "args.h"
#include "strategies.h"

#include <schedhost/helpers.hpp>
#include <schedhost/plugin.hpp>

#include <string>
#include <type_traits>
#include <vector>

namespace schedhost::plugins::noderesourcesfit {

constexpr const char* kName = "NodeResourcesFit";

// The pod's requests as computed at PreFilter (framework.Resource), owned by the cycle state.
struct PreFilterState {
  int64_t milliCpu = 0;
  int64_t memory = 0;
  int64_t ephemeralStorage = 0;
  std::vector<sh_quantity> scalars;  // sorted by name id

  sh_resources view() const noexcept;
};

// The pod's request for each configured resource, in args order (with scoring defaults).
using PreScoreState = std::vector<int64_t>;

class Fit : public PreFilterPlugin,
            public FilterPlugin,
            public PreScorePlugin,
            public ScorePlugin,
            public EnqueueExtensions {
 public:
  // Upstream's defaulted NodeResourcesFitArgs.
  static constexpr const char* kDefaultArgsJson =
      R"({"ignoredResources":[],"ignoredResourceGroups":[],)"
      R"("scoringStrategy":{"type":"LeastAllocated",)"
      R"("resources":[{"name":"cpu","weight":1},{"name":"memory","weight":1}]}})";

  Fit(Host& host, const Args& args);

  Status preFilter(Cycle& cycle, const sh_pod& pod, PreFilterResult& result);
  Status filter(Cycle& cycle, const sh_pod& pod, const sh_node_info& nodeInfo);
  Status preScore(Cycle& cycle, const sh_pod& pod, const sh_node_info* const* nodes,
                  std::size_t count);
  Status score(Cycle& cycle, const sh_pod& pod, const sh_node_info& nodeInfo, int64_t& score);
  std::vector<EventRegistration> eventsToRegister();
  sh_queueing_hint queueingHint(std::size_t index, const sh_pod& pod,
                                const sh_event_objects& event);

  // One resource the pod needs more of than the node has free.
  struct Insufficient {
    sh_id resource;     // SH_ID_PODS for "Too many pods"
    bool unresolvable;  // the request exceeds the node's allocatable outright
  };
  // Visits the insufficient resources in upstream's order: pods, cpu, memory,
  // ephemeral-storage, then scalars by id. `withIgnored` applies ignoredResources and
  // ignoredResourceGroups (Filter does; the queueing hint does not).
  template <typename Visit>
  void fitsRequest(const sh_resources& podRequest, const sh_node_info& nodeInfo, bool withIgnored,
                   Visit&& visit) const;

 private:
  enum Event : std::size_t { kPodDeleteOrScaleDown = 0, kNodeAddOrAllocatable = 1 };

  bool ignored(sh_id resource) const noexcept;
  int64_t scoreStrategy(const int64_t* requested, const int64_t* allocatable) const noexcept;
  sh_queueing_hint afterPodEvent(const sh_pod& pod, const sh_event_objects& event) const;
  sh_queueing_hint afterNodeChange(const sh_pod& pod, const sh_event_objects& event) const;

  Host host_;
  FitArgs args_;
  RequestedToCapacityRatio ratio_;
  sh_id preFilterStateKey_;
  sh_id preScoreStateKey_;
};

static_assert(!std::is_base_of_v<ScoreExtensions, Fit>, "upstream Fit has no NormalizeScore");

template <typename Visit>
void Fit::fitsRequest(const sh_resources& podRequest, const sh_node_info& nodeInfo,
                      bool withIgnored, Visit&& visit) const {
  const sh_resources& allocatable = nodeInfo.node->allocatable;
  const sh_resources& requested = nodeInfo.requested;
  if (static_cast<int64_t>(nodeInfo.pod_count) + 1 > allocatable.allowed_pod_number) {
    visit(Insufficient{SH_ID_PODS, false});
  }
  if (podRequest.milli_cpu == 0 && podRequest.memory == 0 && podRequest.ephemeral_storage == 0 &&
      podRequest.scalar_count == 0) {
    return;
  }
  auto check = [&visit](sh_id resource, int64_t want, int64_t alloc, int64_t used) {
    if (want > 0 && want > alloc - used) {
      visit(Insufficient{resource, want > alloc});
    }
  };
  check(SH_ID_CPU, podRequest.milli_cpu, allocatable.milli_cpu, requested.milli_cpu);
  check(SH_ID_MEMORY, podRequest.memory, allocatable.memory, requested.memory);
  check(SH_ID_EPHEMERAL_STORAGE, podRequest.ephemeral_storage, allocatable.ephemeral_storage,
        requested.ephemeral_storage);
  for (uint32_t i = 0; i < podRequest.scalar_count; ++i) {
    const sh_quantity& q = podRequest.scalars[i];
    if (q.value == 0 || (withIgnored && ignored(q.name))) {
      continue;
    }
    int64_t alloc = scalarValue(allocatable, q.name);
    int64_t used = scalarValue(requested, q.name);
    if (q.value > alloc - used) {
      visit(Insufficient{q.name, q.value > alloc});
    }
  }
}

}  // namespace schedhost::plugins::noderesourcesfit

#endif  // SCHEDHOST_PLUGINS_NODERESOURCESFIT_FIT_H
