// Framework: one profile's plugins, ready to run (upstream framework/runtime/framework.go).
//
// A Framework is immutable once built and shared by reference: a scheduling or
// binding cycle holds the framework it started with, so a profile swap never changes
// the plugins under a running cycle. Every run* method applies upstream's rules for
// its extension point (ordering, Skip, short-circuit, error wrapping) and never lets
// a plugin's misbehaviour (an invalid code, a score out of range) past as success:
// that becomes an Error status and counts as a failure of the plugin.
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include <schedhost/plugin.h>

#include "host/common/extension_point.h"
#include "host/common/status.h"
#include "host/framework/cycle_state.h"
#include "host/framework/node_to_status.h"
#include "host/framework/plugin_instance.h"
#include "host/metrics/scheduler_metrics.h"
#include "host/model/node_info.h"
#include "host/model/pod.h"

namespace sh {

using PluginPtr = std::shared_ptr<PluginInstance>;

struct ScoreWeight {
  PluginPtr plugin;
  int64_t weight = 1;
};

// What PreFilter produced for the cycle.
struct PreFilterOutcome {
  bool restricted = false;             // false: all nodes
  std::vector<std::string> nodeNames;  // sorted, when restricted
  // The plugins whose result named nodes, in order; set even when PreFilter rejects the pod
  // (the rejectors of an empty intersection), cleared when one plugin alone rejects it
  // with UnschedulableAndUnresolvable or fails (upstream RunPreFilterPlugins'
  // pluginsWithNodes).
  std::vector<std::string> restrictingPlugins;
};

// Per-plugin observations, for explanations (schedhost evaluate). Optional everywhere.
struct PluginTrace {
  std::string plugin;
  Status status;
  std::vector<std::string> nodeNames;  // PreFilter
};

struct NodeScore {
  const sh_node_info* node = nullptr;
  int64_t total = 0;
};

// Each Score plugin's score for each node, after normalisation and before weight.
struct ScoreTable {
  std::size_t pluginCount = 0;
  std::vector<int64_t> values;  // node-major: values[node * pluginCount + plugin]
  int64_t at(std::size_t node, std::size_t plugin) const {
    return values[node * pluginCount + plugin];
  }
};

class Framework {
 public:
  struct Config {
    std::string profileName;
    PerPoint<std::vector<PluginPtr>> plugins;
    std::vector<int64_t> scoreWeights;  // parallel to plugins[Score]
    int percentageOfNodesToScore = -1;  // -1: use the global value
    uint64_t generation = 0;            // the profile generation it belongs to (0: none)
    // The QueueSort plugin's identity (name, library digest, args); equal keys sort alike.
    std::string queueSortKey;
    // Where the run* methods record their durations; nullptr: nothing is recorded (and
    // nothing is timed).
    std::shared_ptr<metrics::ProfileMetrics> metrics;
    // Whether PreFilter starts with unhonouredDependency. Off for `evaluate`, which runs the
    // plugins a scenario puts under test and binds nothing.
    bool refuseUnhonoured = true;
  };
  explicit Framework(Config config);

  const std::string& profileName() const { return config_.profileName; }
  const std::vector<PluginPtr>& plugins(ExtensionPoint p) const {
    return config_.plugins[static_cast<std::size_t>(p)];
  }
  const std::vector<int64_t>& scoreWeights() const { return config_.scoreWeights; }
  int percentageOfNodesToScore() const { return config_.percentageOfNodesToScore; }
  uint64_t generation() const { return config_.generation; }
  const std::string& queueSortKey() const { return config_.queueSortKey; }
  const std::shared_ptr<metrics::ProfileMetrics>& metrics() const { return config_.metrics; }
  // Records `seconds` as one run of `point` ending in `status` for this profile, in
  // scheduler_framework_extension_point_duration_seconds: how the scheduling loop records
  // Filter, once per cycle across all nodes. No-op without metrics, or for QueueSort.
  void observeExtensionPoint(ExtensionPoint point, const Status& status, double seconds) const;
  // What the pod depends on that no plugin of this profile would honour: claims with no
  // VolumeBinding to bind them, spec.resourceClaims with no DynamicResources to allocate
  // them. UnschedulableAndUnresolvable naming it, or success. PreFilter starts with it, so
  // such a pod is never bound with the dependency ignored.
  Status unhonouredDependency(const sh_pod& pod) const;
  bool hasFilterPlugins() const { return !plugins(ExtensionPoint::kFilter).empty(); }
  bool hasScorePlugins() const { return !plugins(ExtensionPoint::kScore).empty(); }
  bool hasPostFilterPlugins() const { return !plugins(ExtensionPoint::kPostFilter).empty(); }
  // Every distinct plugin of the profile, in first-seen order.
  std::vector<PluginPtr> allPlugins() const;

  Status runPreEnqueue(const sh_pod& pod) const;
  bool queueSortLess(const sh_queued_pod& a, const sh_queued_pod& b) const;

  // Runs PreFilter; records Skip into cycle.skipFilterPlugins.
  Status runPreFilter(CycleState& cycle, const sh_pod& pod, PreFilterOutcome& outcome,
                      std::vector<PluginTrace>* trace = nullptr) const;
  Status runPreFilterAddPod(CycleState& cycle, const sh_pod& pod, const sh_pod& other,
                            const sh_node_info& node) const;
  Status runPreFilterRemovePod(CycleState& cycle, const sh_pod& pod, const sh_pod& other,
                               const sh_node_info& node) const;
  // Filter on one node; thread-safe across nodes. The first failure ends it.
  Status runFilter(CycleState& cycle, const sh_pod& pod, const sh_node_info& node,
                   std::vector<PluginTrace>* trace = nullptr) const;
  // Filter on `node` as upstream's RunFilterPluginsWithNominatedPods
  // (framework/runtime/framework.go): with `nominated` (the pods nominated to the node with
  // priority >= the pod's) added to a copy of the node and of the cycle state first, then, if that
  // passed, without them. Without nominated pods it is runFilter. Thread-safe across nodes.
  Status runFilterWithNominatedPods(
      CycleState& cycle, const sh_pod& pod, const model::NodeInfo& node,
      const std::vector<std::shared_ptr<const model::Pod>>& nominated) const;
  // PostFilter after the pod fit nowhere; *nominated is set when a plugin nominated.
  Status runPostFilter(CycleState& cycle, const sh_pod& pod, const NodeToStatus& statuses,
                       std::optional<std::string>* nominated) const;
  // Records Skip into cycle.skipScorePlugins.
  Status runPreScore(CycleState& cycle, const sh_pod& pod,
                     const std::vector<const sh_node_info*>& nodes) const;
  // Score, NormalizeScore, range check and weights. `scores` gets one entry per node;
  // `table`, when given, each plugin's score. `forEach(n, fn)` runs fn(i) for i in [0, n),
  // possibly in parallel.
  Status runScore(CycleState& cycle, const sh_pod& pod,
                  const std::vector<const sh_node_info*>& nodes, std::vector<NodeScore>& scores,
                  ScoreTable* table,
                  const std::function<void(std::size_t, const std::function<void(std::size_t)>&)>&
                      forEach) const;
  Status runReserve(CycleState& cycle, const sh_pod& pod, const std::string& node) const;
  void runUnreserve(CycleState& cycle, const sh_pod& pod, const std::string& node) const;
  // Permit. On Wait, `waits` gets (plugin, timeout ms) for every plugin that asked.
  Status runPermit(CycleState& cycle, const sh_pod& pod, const std::string& node,
                   std::vector<std::pair<std::string, int64_t>>* waits) const;
  Status runPreBind(CycleState& cycle, const sh_pod& pod, const std::string& node) const;
  Status runBind(CycleState& cycle, const sh_pod& pod, const std::string& node) const;
  void runPostBind(CycleState& cycle, const sh_pod& pod, const std::string& node) const;

 private:
  Status preFilterImpl(CycleState& cycle, const sh_pod& pod, PreFilterOutcome& outcome,
                       std::vector<PluginTrace>* trace) const;
  Status preFilterAddPodImpl(CycleState& cycle, const sh_pod& pod, const sh_pod& other,
                             const sh_node_info& node) const;
  Status preFilterRemovePodImpl(CycleState& cycle, const sh_pod& pod, const sh_pod& other,
                                const sh_node_info& node) const;
  Status postFilterImpl(CycleState& cycle, const sh_pod& pod, const NodeToStatus& statuses,
                        std::optional<std::string>* nominated) const;
  Status preScoreImpl(CycleState& cycle, const sh_pod& pod,
                      const std::vector<const sh_node_info*>& nodes) const;
  Status scoreImpl(CycleState& cycle, const sh_pod& pod,
                   const std::vector<const sh_node_info*>& nodes, std::vector<NodeScore>& scores,
                   ScoreTable* table,
                   const std::function<void(std::size_t, const std::function<void(std::size_t)>&)>&
                       forEach) const;
  Status reserveImpl(CycleState& cycle, const sh_pod& pod, const std::string& node) const;
  void unreserveImpl(CycleState& cycle, const sh_pod& pod, const std::string& node) const;
  Status permitImpl(CycleState& cycle, const sh_pod& pod, const std::string& node,
                    std::vector<std::pair<std::string, int64_t>>* waits) const;
  Status preBindImpl(CycleState& cycle, const sh_pod& pod, const std::string& node) const;
  Status bindImpl(CycleState& cycle, const sh_pod& pod, const std::string& node) const;
  void postBindImpl(CycleState& cycle, const sh_pod& pod, const std::string& node) const;

  // Whether this cycle times each plugin call.
  bool timesPlugins(const CycleState& cycle) const {
    return cycle.recordPluginMetrics && config_.metrics != nullptr;
  }
  // The plugin metrics of plugins(point)[i]; only when metrics are set.
  metrics::PluginMetrics& pluginMetrics(ExtensionPoint point, std::size_t i) const {
    return *pluginMetrics_[indexOf(point)][i];
  }

  Config config_;
  // Whether the profile has the plugins unhonouredDependency looks for, at Filter.
  bool bindsVolumes_ = false;
  bool allocatesClaims_ = false;
  // Parallel to config_.plugins, when config_.metrics is set.
  PerPoint<std::vector<metrics::PluginMetrics*>> pluginMetrics_;
  // scheduler_plugin_evaluation_total's counters, parallel to config_.plugins at PreFilter,
  // Filter, PreScore and Score when config_.metrics is set (empty otherwise), resolved here so
  // a call counts with one relaxed add.
  PerPoint<std::vector<metrics::ShardedCounter*>> evaluations_;
};

// The frameworks by schedulerName, one per profile.
using Frameworks = std::map<std::string, std::shared_ptr<const Framework>, std::less<>>;

// A plugin's answer, checked: an out-of-range code becomes an Error naming the plugin.
Status checkedStatus(const PluginInstance& plugin, int code, sh_status& raw);

}  // namespace sh
