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
const ResourceList* container_list(const ContainerResources& c, Source source, bool infeasible) {
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
ResourceList with_non_missing(const ResourceList* list, const ResourceList& non_missing) {
  ResourceList out;
  if (list != nullptr) {
    out = *list;
  }
  for (const auto& e : non_missing) {
    if (list == nullptr || !list->contains(e.name)) {
      out.add(e.name, e.milli);
    }
  }
  return out;
}

// aggregateContainerResourcesByFn.
ResourceList aggregate(const PodResourcesInput& in, Source source, bool infeasible,
                       const ResourceList* non_missing) {
  auto get = [&](const ContainerResources& c) {
    const ResourceList* list = container_list(c, source, infeasible);
    if (non_missing != nullptr && !non_missing->empty()) {
      return with_non_missing(list, *non_missing);
    }
    return list != nullptr ? *list : ResourceList();
  };

  ResourceList result;
  for (const auto& c : in.containers) {
    result.add(get(c));
  }
  ResourceList sidecars;  // Σ of the restartable init containers so far
  ResourceList init;      // max over the init phases
  for (const auto& c : in.init_containers) {
    ResourceList own = get(c);
    if (c.restartable) {
      result.add(own);
      sidecars.add(own);
      init.max_with(sidecars);
    } else {
      own.add(sidecars);
      init.max_with(own);
    }
  }
  result.max_with(init);
  return result;
}

// max(a, b...) of helpers.go.
ResourceList max_of(ResourceList a, const ResourceList& b) {
  a.max_with(b);
  return a;
}

// AggregateContainerRequests with UseStatusResources.
ResourceList container_requests(const PodResourcesInput& in, const ResourceList* non_missing) {
  bool infeasible = in.resize_infeasible;
  ResourceList spec = aggregate(in, Source::kSpecRequests, infeasible, non_missing);
  ResourceList allocated = aggregate(in, Source::kAllocated, infeasible, non_missing);
  ResourceList actuated = aggregate(in, Source::kActuated, infeasible, non_missing);
  if (infeasible) {
    return max_of(std::move(actuated), allocated);
  }
  return max_of(max_of(std::move(spec), actuated), allocated);
}

bool supported(sh_id name) { return is_supported_pod_level_resource(interner().view(name)); }

// IsPodLevelRequestsSet.
bool pod_level_requests_set(const PodResourcesInput& in) {
  if (!in.has_pod_resources) {
    return false;
  }
  for (const auto& e : in.pod_requests) {
    if (supported(e.name)) {
      return true;
    }
  }
  return false;
}

}  // namespace

void apply_pod_level_defaults(PodResourcesInput& in) {
  if (!in.has_pod_resources) {
    return;
  }
  // defaultHugePagePodLimits.
  if (!in.pod_limits.empty() || !in.pod_requests.empty()) {
    ResourceList limits = aggregate(in, Source::kSpecLimits, false, nullptr);
    for (const auto& e : limits) {
      if (!is_hugepages_resource(interner().view(e.name)) || in.pod_requests.contains(e.name)) {
        continue;
      }
      if (!in.pod_limits.contains(e.name)) {
        in.pod_limits.set(e.name, e.milli);
      }
    }
  }
  // defaultPodRequests.
  if (in.pod_limits.empty()) {
    return;
  }
  ResourceList requests = aggregate(in, Source::kSpecRequests, false, nullptr);
  for (const auto& e : requests) {
    std::string_view name = interner().view(e.name);
    if (!in.pod_requests.contains(e.name) && is_supported_pod_level_resource(name) &&
        is_overcommit_allowed(name)) {
      in.pod_requests.set(e.name, e.milli);
    }
  }
  for (const auto& e : in.pod_limits) {
    if (!in.pod_requests.contains(e.name) && supported(e.name)) {
      in.pod_requests.set(e.name, e.milli);
    }
  }
}

ResourceList pod_requests(const PodResourcesInput& in, const ResourceList* non_missing) {
  ResourceList reqs = container_requests(in, non_missing);
  if (pod_level_requests_set(in)) {
    // applyPodLevelResources.
    for (const auto& e : in.pod_requests) {
      if (supported(e.name)) {
        reqs.set(e.name, e.milli);
      }
    }
  }
  reqs.add(in.overhead);
  return reqs;
}

PodRequestSummary compute_pod_requests(const PodResourcesInput& in) {
  PodRequestSummary out;
  out.requests = pod_requests(in, nullptr);
  // getNonMissingContainerRequests.
  ResourceList non_missing;
  bool pod_level = pod_level_requests_set(in);
  if (!pod_level || !out.requests.contains(SH_ID_CPU)) {
    non_missing.set(SH_ID_CPU, kDefaultMilliCpuRequest);
  }
  if (!pod_level || !out.requests.contains(SH_ID_MEMORY)) {
    non_missing.set(SH_ID_MEMORY, int128_t{kDefaultMemoryRequest} * 1000);
  }
  out.non_zero = non_missing.empty() ? out.requests : pod_requests(in, &non_missing);
  if (const int128_t* cpu = out.non_zero.find(SH_ID_CPU)) {
    out.non_zero_milli_cpu = saturate_int64(*cpu);
  }
  if (const int128_t* mem = out.non_zero.find(SH_ID_MEMORY)) {
    out.non_zero_memory = milli_to_units(*mem);
  }
  return out;
}

}  // namespace sh::model
