// A pod's effective resource requests, exactly as kube-scheduler 1.36 computes them:
// component-helpers resource.PodRequests (with UseStatusResources, as InPlacePodVerticalScaling
// is GA) and framework.PodInfo.CalculateResource for the non-zero (scoring) variant, plus the
// API-server defaulting of pod-level requests that a raw manifest has not been through yet.
//
//   per container:  r(c) = requests (limits copied in for resources without a request)
//   containers:     sum = Σ r(c)  +  Σ r(s) over restartable init containers s
//   init phase i:   need(i) = r(i) + Σ r(s) over restartable s before i   (non-restartable i)
//                   need(s) = Σ r(s') over restartable s' up to s          (restartable s)
//   aggregate:      max(sum, need(i) for every init container), per resource
//   in-place resize: max of that over spec, status.allocatedResources and status.resources
//   pod level:      spec.resources.requests (cpu, memory, hugepages-*) replace the aggregate
//   overhead:       spec.overhead is added last
//
// Non-zero requests run the same computation with each container's missing cpu/memory
// request counted as 100m / 200Mi; with pod-level requests set, the default applies only
// when neither the pod level nor any container sets that resource.
#ifndef SCHEDHOST_HOST_MODEL_POD_REQUESTS_H
#define SCHEDHOST_HOST_MODEL_POD_REQUESTS_H

#include <optional>
#include <string>
#include <vector>

#include "host/model/resource_list.h"

namespace sh::model {

// schedutil.DefaultMilliCPURequest and DefaultMemoryRequest.
inline constexpr int64_t kDefaultMilliCpuRequest = 100;
inline constexpr int64_t kDefaultMemoryRequest = 200 * 1024 * 1024;

struct ContainerResources {
  std::string name;
  bool restartable = false;  // init containers with restartPolicy: Always (sidecars)
  ResourceList requests;     // after defaulting requests from limits
  ResourceList limits;
  // From the container's status, when the status has the field at all.
  std::optional<ResourceList> allocated;  // status.allocatedResources
  std::optional<ResourceList> actuated;   // status.resources.requests
};

struct PodResourcesInput {
  std::vector<ContainerResources> containers;
  std::vector<ContainerResources> initContainers;
  bool hasPodResources = false;   // spec.resources present
  ResourceList podRequests;       // spec.resources.requests
  ResourceList podLimits;         // spec.resources.limits
  ResourceList overhead;          // spec.overhead
  bool resizeInfeasible = false;  // condition PodResizePending with reason Infeasible
};

// SetDefaults_Pod for pod-level resources (defaultHugePagePodLimits, defaultPodRequests):
// fills pod_requests (and hugepage pod_limits) the way the API server would on create.
// Container requests must already be defaulted from their limits.
void applyPodLevelDefaults(PodResourcesInput& in);

// resource.PodRequests(pod, {UseStatusResources: true}) with NonMissingContainerRequests set
// to `non_missing` (nullptr for none).
ResourceList podRequests(const PodResourcesInput& in, const ResourceList* nonMissing);

struct PodRequestSummary {
  ResourceList requests;  // PodRequests
  ResourceList nonZero;   // PodRequests with the non-missing defaults
  int64_t nonZeroMilliCpu = 0;
  int64_t nonZeroMemory = 0;
};

// PodInfo.CalculateResource: both variants.
PodRequestSummary computePodRequests(const PodResourcesInput& in);

}  // namespace sh::model

#endif  // SCHEDHOST_HOST_MODEL_POD_REQUESTS_H
