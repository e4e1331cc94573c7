// NodeResourcesFit: construction, PreFilter and Filter. Scoring is in fit_score.cc, the
// cluster events in fit_events.cc, the strategies in their own files.
//
// Extension points: PreFilter, Filter, PreScore, Score, EnqueueExtensions (see fit.h).
#include "fit.h"

#include <schedhost/helpers.hpp>
#include <schedhost/plugin.hpp>

#include <algorithm>
#include <memory>
#include <string>

namespace schedhost::plugins::noderesourcesfit {

sh_resources PreFilterState::view() const noexcept {
  sh_resources r{};
  r.milli_cpu = milliCpu;
  r.memory = memory;
  r.ephemeral_storage = ephemeralStorage;
  r.scalars = scalars.data();
  r.scalar_count = static_cast<uint32_t>(scalars.size());
  return r;
}

Fit::Fit(Host& host, const Args& args)
    : host_(host),
      args_(parseArgs(host, args)),
      ratio_(args_.shape),
      preFilterStateKey_(host.intern(std::string("PreFilter") + kName)),
      preScoreStateKey_(host.intern(std::string("PreScore") + kName)) {}

// Extended resources listed in ignoredResources, or whose domain is in ignoredResourceGroups,
// are not checked.
bool Fit::ignored(sh_id resource) const noexcept {
  if (args_.ignoredResources.empty() && args_.ignoredResourceGroups.empty()) {
    return false;
  }
  std::string_view name = host_.str(resource);
  if (!isExtendedResourceName(name)) {
    return false;
  }
  if (std::binary_search(args_.ignoredResources.begin(), args_.ignoredResources.end(), resource)) {
    return true;
  }
  std::string_view group = name.substr(0, name.find('/'));
  for (const std::string& g : args_.ignoredResourceGroups) {
    if (g == group) {
      return true;
    }
  }
  return false;
}

// Records the pod's requests (containers, init and sidecar containers, pod-level resources
// and overhead, as the host computed them) for Filter.
Status Fit::preFilter(Cycle& cycle, const sh_pod& pod, PreFilterResult& /*result*/) {
  auto state = std::make_unique<PreFilterState>();
  state->milliCpu = pod.requests.milli_cpu;
  state->memory = pod.requests.memory;
  state->ephemeralStorage = pod.requests.ephemeral_storage;
  state->scalars.assign(pod.requests.scalars, pod.requests.scalars + pod.requests.scalar_count);
  cycle.write(preFilterStateKey_, std::move(state));
  return Status::success();
}

// Every insufficient resource is a reason; Unschedulable, or UnschedulableAndUnresolvable
// when some request exceeds the node's allocatable outright.
Status Fit::filter(Cycle& cycle, const sh_pod& /*pod*/, const sh_node_info& nodeInfo) {
  const PreFilterState* state = cycle.read<PreFilterState>(preFilterStateKey_);
  if (state == nullptr) {
    return Status::error(std::string("error reading \"PreFilter") + kName +
                         "\" from cycleState: not found");
  }
  Status status;
  fitsRequest(state->view(), nodeInfo, true, [&](const Insufficient& r) {
    if (status.ok() || r.unresolvable) {
      status.setCode(r.unresolvable ? SH_UNSCHEDULABLE_AND_UNRESOLVABLE : SH_UNSCHEDULABLE);
    }
    switch (r.resource) {
      case SH_ID_PODS:
        status.addReason("Too many pods");
        break;
      case SH_ID_CPU:
        status.addReason("Insufficient cpu");
        break;
      case SH_ID_MEMORY:
        status.addReason("Insufficient memory");
        break;
      case SH_ID_EPHEMERAL_STORAGE:
        status.addReason("Insufficient ephemeral-storage");
        break;
      default:
        status.addReason("Insufficient " + std::string(host_.str(r.resource)));
        break;
    }
  });
  return status;
}

}  // namespace schedhost::plugins::noderesourcesfit

SCHEDHOST_PLUGIN(schedhost::plugins::noderesourcesfit::Fit,
                 schedhost::plugins::noderesourcesfit::kName, "1.36.0")
