// Extender: an HTTP scheduler extender as the scheduling and binding cycles call it (upstream
// framework/extender.go: Extender). The cycle runs the filtering extenders in order on the nodes
// the Filter plugins passed, adds the prioritizing extenders' scores after the Score plugins'
// weighted sum, and lets the first interested binder bind in place of the Bind plugins; each is
// called once per pod with every node at once, never per node. HttpExtender (host/extender/) is
// the implementation; tests give their own.
//
// Every call returns an Error status when the extender could not be asked or answered
// something unusable (a refused connection, a timeout, a non-200 answer, JSON that is not the
// expected type, a node it was not given); the cycle decides what that costs the pod
// (upstream's rules: an ignorable extender is skipped, a prioritize error only drops that
// extender's scores). Thread-safe: the prioritizers run at once, and binding cycles run beside
// the scheduling cycle.
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "host/common/status.h"
#include "host/model/node.h"
#include "host/model/pod.h"

namespace sh::cycle {

// upstream extender/v1: MaxExtenderPriority; a score is scaled by MaxNodeScore / this.
inline constexpr int64_t kMaxExtenderPriority = 10;

// The pseudo-plugin recorded among a pod's rejectors when extenders removed nodes: any cluster
// event moves the pod back (upstream framework.ExtenderName with its defaultEnqueueExtension).
inline constexpr const char* kExtenderPluginName = "Extender";

struct ExtenderFilterResult {
  std::vector<std::string> nodes;                  // the nodes that pass, a subset of those given
  std::map<std::string, std::string> failedNodes;  // node -> reason
  std::map<std::string, std::string> failedAndUnresolvableNodes;  // node -> reason
};

struct HostPriority {
  std::string host;
  int64_t score = 0;  // 0..kMaxExtenderPriority as the protocol asks; used as given
};

// One node's victims in a preemption (upstream extender/v1: Victims).
struct ExtenderVictims {
  std::vector<const model::Pod*> pods;
  int64_t numPdbViolations = 0;
};
using NodeVictims = std::map<std::string, ExtenderVictims>;
// The pod of uid `uid` on node `node` in the cycle's snapshot, or nullptr.
using PodOnNode = std::function<const model::Pod*(const std::string& node, const std::string& uid)>;

class Extender {
 public:
  virtual ~Extender() = default;

  // The urlPrefix: what messages and logs name it by.
  virtual const std::string& name() const = 0;
  virtual bool isFilter() const = 0;
  virtual bool isPrioritizer() const = 0;
  virtual bool isBinder() const = 0;
  virtual bool supportsPreemption() const = 0;
  virtual bool isIgnorable() const = 0;
  virtual int64_t weight() const = 0;
  // Whether it takes part in this pod's decisions: it manages no resources, or a container or
  // init container of the pod requests or limits one it manages.
  virtual bool isInterested(const model::Pod& pod) const = 0;

  virtual Status filter(const model::Pod& pod, const std::vector<const model::Node*>& nodes,
                        ExtenderFilterResult& out) const = 0;
  virtual Status prioritize(const model::Pod& pod, const std::vector<const model::Node*>& nodes,
                            std::vector<HostPriority>& out) const = 0;
  virtual Status bind(const model::Pod& pod, const std::string& node) const = 0;
  // `victims` holds the scheduler's candidates; `out` gets the extender's answer, its pods
  // found by uid with `podOnNode` (an unknown one is an Error, as upstream's
  // convertPodUIDToPod).
  virtual Status processPreemption(const model::Pod& pod, const NodeVictims& victims,
                                   const PodOnNode& podOnNode, NodeVictims& out) const = 0;
};

using Extenders = std::vector<std::shared_ptr<const Extender>>;

}  // namespace sh::cycle
