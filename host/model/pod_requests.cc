#include "host/model/pod_requests.h"

#include "host/model/interner.h"

namespace sh::model {
namespace {

// Which per-container list an aggregation reads (the getResourceList functions upstream).
enum class Source {
  kSpecRequests,  // containerSpecRequests
  kAllocated,     // containerAllocatedRequests
  kActuated,      // containerActuatedRequests
  kSpecLimits,    // containerSpecLimits
};

// nullptr stands for a nil ResourceList.
const ResourceList* containerList(const ContainerResources& c, Source source, bool infeasible) {
  switch (source) {
    case Source::kSpecRequests:
      return &c.requests;
    case Source::kSpecLimits:
      return &c.limits;
    case Source::kAllocated:
      if (c.allocated) {
        return &*c.allocated;
      }
      return infeasible ? nullptr : &c.requests;
    case Source::kActuated:
      if (c.actuated) {
        return &*c.actuated;
      }
      if (c.allocated) {
        return &*c.allocated;
      }
      return infeasible ? nullptr : &c.requests;
  }
  return nullptr;
}

// applyNonMissing: a copy with the missing entries of `non_missing` added.
ResourceList withNonMissing(const ResourceList* list, const ResourceList& nonMissing) {
  ResourceList out;
  if (list != nullptr) {
    out = *list;
  }
  for (const auto& e : nonMissing) {
    if (list == nullptr || !list->contains(e.name)) {
      out.add(e.name, e.milli);
    }
  }
  return out;
}

// aggregateContainerResourcesByFn.
ResourceList aggregate(const PodResourcesInput& in, Source source, bool infeasible,
                       const ResourceList* nonMissing) {
  auto get = [&](const ContainerResources& c) {
    const ResourceList* list = containerList(c, source, infeasible);
    if (nonMissing != nullptr && !nonMissing->empty()) {
      return withNonMissing(list, *nonMissing);
    }
    return list != nullptr ? *list : ResourceList();
  };

  ResourceList result;
  for (const auto& c : in.containers) {
    result.add(get(c));
  }
  ResourceList sidecars;  // Σ of the restartable init containers so far
  ResourceList init;      // max over the init phases
  for (const auto& c : in.initContainers) {
    ResourceList own = get(c);
    if (c.restartable) {
      result.add(own);
      sidecars.add(own);
      init.maxWith(sidecars);
    } else {
      own.add(sidecars);
      init.maxWith(own);
    }
  }
  result.maxWith(init);
  return result;
}

// max(a, b...) of helpers.go.
ResourceList maxOf(ResourceList a, const ResourceList& b) {
  a.maxWith(b);
  return a;
}

// AggregateContainerRequests with UseStatusResources.
ResourceList containerRequests(const PodResourcesInput& in, const ResourceList* nonMissing) {
  bool infeasible = in.resizeInfeasible;
  ResourceList spec = aggregate(in, Source::kSpecRequests, infeasible, nonMissing);
  ResourceList allocated = aggregate(in, Source::kAllocated, infeasible, nonMissing);
  ResourceList actuated = aggregate(in, Source::kActuated, infeasible, nonMissing);
  if (infeasible) {
    return maxOf(std::move(actuated), allocated);
  }
  return maxOf(maxOf(std::move(spec), actuated), allocated);
}

bool supported(sh_id name) { return isSupportedPodLevelResource(interner().view(name)); }

// IsPodLevelRequestsSet.
bool podLevelRequestsSet(const PodResourcesInput& in) {
  if (!in.hasPodResources) {
    return false;
  }
  for (const auto& e : in.podRequests) {
    if (supported(e.name)) {
      return true;
    }
  }
  return false;
}

}  // namespace

void applyPodLevelDefaults(PodResourcesInput& in) {
  if (!in.hasPodResources) {
    return;
  }
  // defaultHugePagePodLimits.
  if (!in.podLimits.empty() || !in.podRequests.empty()) {
    ResourceList limits = aggregate(in, Source::kSpecLimits, false, nullptr);
    for (const auto& e : limits) {
      if (!isHugepagesResource(interner().view(e.name)) || in.podRequests.contains(e.name)) {
        continue;
      }
      if (!in.podLimits.contains(e.name)) {
        in.podLimits.set(e.name, e.milli);
      }
    }
  }
  // defaultPodRequests.
  if (in.podLimits.empty()) {
    return;
  }
  ResourceList requests = aggregate(in, Source::kSpecRequests, false, nullptr);
  for (const auto& e : requests) {
    std::string_view name = interner().view(e.name);
    if (!in.podRequests.contains(e.name) && isSupportedPodLevelResource(name) &&
        isOvercommitAllowed(name)) {
      in.podRequests.set(e.name, e.milli);
    }
  }
  for (const auto& e : in.podLimits) {
    if (!in.podRequests.contains(e.name) && supported(e.name)) {
      in.podRequests.set(e.name, e.milli);
    }
  }
}

ResourceList podRequests(const PodResourcesInput& in, const ResourceList* nonMissing) {
  ResourceList reqs = containerRequests(in, nonMissing);
  if (podLevelRequestsSet(in)) {
    // applyPodLevelResources.
    for (const auto& e : in.podRequests) {
      if (supported(e.name)) {
        reqs.set(e.name, e.milli);
      }
    }
  }
  reqs.add(in.overhead);
  return reqs;
}

PodRequestSummary computePodRequests(const PodResourcesInput& in) {
  PodRequestSummary out;
  out.requests = podRequests(in, nullptr);
  // getNonMissingContainerRequests.
  ResourceList nonMissing;
  bool podLevel = podLevelRequestsSet(in);
  if (!podLevel || !out.requests.contains(SH_ID_CPU)) {
    nonMissing.set(SH_ID_CPU, kDefaultMilliCpuRequest);
  }
  if (!podLevel || !out.requests.contains(SH_ID_MEMORY)) {
    nonMissing.set(SH_ID_MEMORY, int128_t{kDefaultMemoryRequest} * 1000);
  }
  out.nonZero = nonMissing.empty() ? out.requests : podRequests(in, &nonMissing);
  if (const int128_t* cpu = out.nonZero.find(SH_ID_CPU)) {
    out.nonZeroMilliCpu = saturateInt64(*cpu);
  }
  if (const int128_t* mem = out.nonZero.find(SH_ID_MEMORY)) {
    out.nonZeroMemory = milliToUnits(*mem);
  }
  return out;
}

}  // namespace sh::model
