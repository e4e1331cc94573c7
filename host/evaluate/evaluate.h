// schedhost evaluate: one scheduling decision, explained plugin by plugin and node by node.
// The contract of the input and output is docs/scenario-format.md.
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include <boost/json/value.hpp>

#include "host/model/cluster_objects.h"
#include "host/model/node.h"
#include "host/model/pod.h"

namespace sh::plugin {
class PluginRegistry;
}
namespace sh::connectors {
class StoredObject;
}

namespace sh::evaluate {

struct PluginSpec {
  std::string name;
  std::string argsJson;  // "" = defaults
};

struct Scenario {
  std::string name;
  std::vector<std::shared_ptr<const model::Node>> nodes;
  std::vector<std::shared_ptr<const model::Pod>> pods;  // already placed
  std::shared_ptr<const model::Pod> pod;                // the pending pod
  std::vector<PluginSpec> plugins;
  int percentageOfNodesToScore = 100;
  // namespaces, services, replicaSets, statefulSets, replicationControllers,
  // podDisruptionBudgets, priorityClasses
  std::shared_ptr<const model::ClusterObjects> objects;
  // The objects of the kinds plugins declare (ABI 1.2): `objects` and the storage arrays.
  std::vector<std::shared_ptr<const connectors::StoredObject>> kindObjects;
};

struct PluginStatus {
  std::string code;  // "Success", "Skip", "Unschedulable", "UnschedulableAndUnresolvable", "Error"
  std::vector<std::string> reasons;
  std::vector<std::string> nodeNames;  // PreFilter only: the restricted node set, if any
};

struct NodeResult {
  std::map<std::string, PluginStatus> filter;  // Filter plugins that ran (failures always present)
  bool feasible = false;
  std::map<std::string, int64_t> scores;  // after NormalizeScore, before weight
  int64_t total = 0;
};

struct Result {
  std::string pod;  // "namespace/name"
  // The scenario's Filter and Score plugins, in the order they run (not part of the JSON).
  std::vector<std::string> filterPlugins;
  std::vector<std::string> scorePlugins;
  // Every node of the scenario, in its order (`nodes` holds only those Filter ran on).
  std::vector<std::string> nodeNames;
  std::map<std::string, PluginStatus> preFilter;
  std::map<std::string, NodeResult> nodes;
  std::optional<std::string> selected;
  std::optional<std::string> nominatedNodeName;
  std::vector<std::string> victims;
  std::string message;  // the FitError text when nothing fits ("0/3 nodes are available: ...")
  // bindingPlan: what the binding of `selected` would do, run on it (Reserve, Permit, then
  // PreBind when Permit allows) without writing anything.
  struct PermitPlan {
    std::string code;  // "Wait", "Unschedulable", ...
    int64_t timeoutSeconds = 0;
    std::vector<std::string> reasons;
  };
  std::map<std::string, PermitPlan> permit;  // plugins that did not simply allow
  // The writes plugins would make, by point ("reserve", "permit", "preBind", "postFilter")
  // then plugin, one line each (ObjectWrite::describe).
  std::map<std::string, std::map<std::string, std::vector<std::string>>> writes;
  // A binding-cycle point that failed ("reserve", "preBind") and its status.
  std::optional<std::pair<std::string, PluginStatus>> bindingFailure;
};

struct Options {
  std::vector<std::string> pluginDirs;  // where plugin .so files are found
  uint64_t seed = 0;
  // Plugins already indexed (a caller evaluating many scenarios indexes them once, and each
  // is loaded once); when set, pluginDirs is not scanned. Only the plugins a scenario uses are
  // loaded. Must outlive run().
  plugin::PluginRegistry* registry = nullptr;
};

// Parses a scenario document; on failure returns nullopt and sets `error` to a message
// naming the JSON path of the bad field.
std::optional<Scenario> parseScenario(const boost::json::value& doc, std::string& error);

// Runs the scenario. Throws std::runtime_error with a precise message for
// configuration problems (unknown plugin, bad args).
Result run(const Scenario& scenario, const Options& options);

boost::json::value toJson(const Result& result);

}  // namespace sh::evaluate
