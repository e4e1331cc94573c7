// Resources as the noderesources plugins read them: quantities by name, a pod's requests for
// scoring, and one resource of a node as resourceAllocationScorer sees it. The syntax of
// resource names (isScalarResourceName, ...) is in names.hpp, included here.
#ifndef SCHEDHOST_HELPERS_RESOURCES_HPP
#define SCHEDHOST_HELPERS_RESOURCES_HPP

#include <schedhost/plugin.h>
#include <schedhost/helpers/labels.hpp>
#include <schedhost/helpers/names.hpp>

#include <cstdint>

namespace schedhost {

// The scalar (extended resource or hugepages) entry with `name`, or nullptr.
inline const sh_quantity* findScalar(const sh_resources& r, sh_id name) noexcept {
  return findById(r.scalars, r.scalar_count, &sh_quantity::name, name);
}

inline int64_t scalarValue(const sh_resources& r, sh_id name) noexcept {
  const sh_quantity* q = findScalar(r, name);
  return q == nullptr ? 0 : q->value;
}

// Any resource by name: cpu (millicores), memory, ephemeral-storage, pods, else a scalar.
inline int64_t resourceValue(const sh_resources& r, sh_id name) noexcept {
  switch (name) {
    case SH_ID_CPU:
      return r.milli_cpu;
    case SH_ID_MEMORY:
      return r.memory;
    case SH_ID_EPHEMERAL_STORAGE:
      return r.ephemeral_storage;
    case SH_ID_PODS:
      return r.allowed_pod_number;
    default:
      return scalarValue(r, name);
  }
}

// Whether a pod requests nothing at all (framework.Resource all zero, no scalar entry).
inline bool requestsNothing(const sh_resources& r) noexcept {
  return r.milli_cpu == 0 && r.memory == 0 && r.ephemeral_storage == 0 && r.scalar_count == 0;
}

// What a pod requests of one resource for scoring. With useRequested false (NodeResourcesFit),
// cpu and memory carry the scoring defaults (100m, 200Mi) for containers that set no request.
inline int64_t podResourceRequest(const sh_pod& pod, sh_id name, bool useRequested) noexcept {
  if (!useRequested && name == SH_ID_CPU) {
    return pod.non_zero_milli_cpu;
  }
  if (!useRequested && name == SH_ID_MEMORY) {
    return pod.non_zero_memory;
  }
  return name == SH_ID_PODS ? 0 : resourceValue(pod.requests, name);
}

// One resource of a node as the noderesources scorers see it: allocatable, what the node's
// pods request (`allocated`), and that plus the pod (`requested`). All zero means "leave this
// resource out of the score": a scalar the pod does not request, or one the node lacks.
struct ResourceAllocation {
  int64_t allocatable;
  int64_t allocated;
  int64_t requested;
};

// resourceAllocationScorer.calculateResourceAllocatableRequest. `scalar` is
// isScalarResourceName(name); with useRequested false the node side of cpu and memory uses
// the sums with scoring defaults (NonZeroRequested), like the pod side.
inline ResourceAllocation resourceAllocation(const sh_node_info& nodeInfo, sh_id name, bool scalar,
                                             int64_t podRequest, bool useRequested) noexcept {
  const sh_resources& allocatable = nodeInfo.node->allocatable;
  if (podRequest == 0 && scalar) {
    return {0, 0, 0};
  }
  int64_t allocated = 0;
  switch (name) {
    case SH_ID_CPU:
      allocated = useRequested ? nodeInfo.requested.milli_cpu : nodeInfo.non_zero_milli_cpu;
      return {allocatable.milli_cpu, allocated, allocated + podRequest};
    case SH_ID_MEMORY:
      allocated = useRequested ? nodeInfo.requested.memory : nodeInfo.non_zero_memory;
      return {allocatable.memory, allocated, allocated + podRequest};
    case SH_ID_EPHEMERAL_STORAGE:
      allocated = nodeInfo.requested.ephemeral_storage;
      return {allocatable.ephemeral_storage, allocated, allocated + podRequest};
    default: {
      const sh_quantity* q = findScalar(allocatable, name);
      if (q == nullptr) {
        return {0, 0, 0};
      }
      allocated = scalarValue(nodeInfo.requested, name);
      return {q->value, allocated, allocated + podRequest};
    }
  }
}

}  // namespace schedhost

#endif  // SCHEDHOST_HELPERS_RESOURCES_HPP
