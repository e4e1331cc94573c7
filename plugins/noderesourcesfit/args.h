// NodeResourcesFitArgs: ignoredResources, ignoredResourceGroups and scoringStrategy, defaulted
// and validated as upstream (SetDefaults_NodeResourcesFitArgs, ValidateNodeResourcesFitArgs).
#ifndef SCHEDHOST_PLUGINS_NODERESOURCESFIT_ARGS_H
#define SCHEDHOST_PLUGINS_NODERESOURCESFIT_ARGS_H

#include <schedhost/helpers/args.hpp>
#include <schedhost/plugin.hpp>

#include <string>
#include <vector>

namespace schedhost::plugins::noderesourcesfit {

enum class StrategyType { kLeastAllocated, kMostAllocated, kRequestedToCapacityRatio };

// A point of the RequestedToCapacityRatio shape, as configured (score in [0, 10]).
struct ShapePoint {
  int64_t utilization;
  int64_t score;
};

struct FitArgs {
  std::vector<sh_id> ignoredResources;  // sorted
  std::vector<std::string> ignoredResourceGroups;
  StrategyType type = StrategyType::kLeastAllocated;
  std::vector<ResourceSpec> resources;  // schedhost::ResourceSpec; never empty after defaulting
  std::vector<ShapePoint> shape;        // RequestedToCapacityRatio only
};

// Reads, defaults and validates the args; problems are reported through `args` (the plugin
// then fails to create) and the result is only meaningful when none were.
FitArgs parseArgs(const Host& host, const Args& args);

}  // namespace schedhost::plugins::noderesourcesfit

#endif  // SCHEDHOST_PLUGINS_NODERESOURCESFIT_ARGS_H
