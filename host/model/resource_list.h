// v1.ResourceList with exact arithmetic, and its conversion to the scheduler's Resource
// layout (sh_resources).
//
// Values are kept in milli-units as 128-bit integers. The API server rounds every ResourceList
// entry up to milli precision when it defaults an object (SetDefaults_ResourceList), so sums
// and maxima in milli-units are exactly upstream's Quantity arithmetic; whole units are taken
// (rounding up) only at the end, as Quantity.Value() does on the aggregated Quantity.
#ifndef SCHEDHOST_HOST_MODEL_RESOURCE_LIST_H
#define SCHEDHOST_HOST_MODEL_RESOURCE_LIST_H

#include <schedhost/plugin.h>

#include <string_view>
#include <vector>

#include "host/model/quantity.h"

namespace sh::model {

class ResourceList {
 public:
  struct Entry {
    sh_id name;
    int128_t milli;
  };

  bool empty() const { return entries_.empty(); }
  std::size_t size() const { return entries_.size(); }
  auto begin() const { return entries_.begin(); }
  auto end() const { return entries_.end(); }

  bool contains(sh_id name) const { return find(name) != nullptr; }
  const int128_t* find(sh_id name) const;
  void set(sh_id name, int128_t milli);
  void add(sh_id name, int128_t milli);
  // addResourceList: adds every entry of `other`.
  void add(const ResourceList& other);
  // maxResourceList: for every entry of `other`, keeps the larger value.
  void maxWith(const ResourceList& other);

  friend bool operator==(const ResourceList&, const ResourceList&) = default;

 private:
  std::vector<Entry>::iterator lowerBound(sh_id name);
  std::vector<Entry> entries_;  // sorted by name, no duplicates
};

// Resource-name classes of k8s.io/kubernetes/pkg/apis/core/v1/helper.
bool isHugepagesResource(std::string_view name);
bool isNativeResource(std::string_view name);
bool isExtendedResource(std::string_view name);
// IsScalarResourceName: extended, hugepages-*, *kubernetes.io/* or attachable-volumes-*.
bool isScalarResource(std::string_view name);
// PodLevelResources: cpu, memory and hugepages-*.
bool isSupportedPodLevelResource(std::string_view name);
// IsOvercommitAllowed: native and not hugepages.
bool isOvercommitAllowed(std::string_view name);

// framework.Resource filled from a ResourceList: cpu in milli-units, memory, ephemeral storage
// and scalars in whole units (rounded up), "pods" into allowed_pod_number when `with_pods`.
// Names that are not scalar resources are dropped, as Resource.Add does.
struct ResourceValues {
  int64_t milliCpu = 0;
  int64_t memory = 0;
  int64_t ephemeralStorage = 0;
  int64_t allowedPodNumber = 0;
  std::vector<sh_quantity> scalars;  // sorted by name id
};
ResourceValues toResourceValues(const ResourceList& list, bool withPods);

// Whole units, rounded up and saturated, of a milli-unit amount.
int64_t milliToUnits(int128_t milli);

}  // namespace sh::model

#endif  // SCHEDHOST_HOST_MODEL_RESOURCE_LIST_H
