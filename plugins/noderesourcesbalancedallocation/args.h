// NodeResourcesBalancedAllocationArgs: the resources to balance, defaulted and validated as
// upstream (SetDefaults_NodeResourcesBalancedAllocationArgs,
// ValidateNodeResourcesBalancedAllocationArgs).
#ifndef SCHEDHOST_PLUGINS_NODERESOURCESBALANCEDALLOCATION_ARGS_H
#define SCHEDHOST_PLUGINS_NODERESOURCESBALANCEDALLOCATION_ARGS_H

#include <schedhost/plugin.hpp>

#include <string>
#include <vector>

namespace schedhost::plugins::noderesourcesbalancedallocation {

struct ResourceSpec {
  std::string name;
  sh_id id;
  bool scalar;  // isScalarResourceName(name)
};

struct BalancedAllocationArgs {
  std::vector<ResourceSpec> resources;  // never empty after defaulting
};

// Reads, defaults and validates the args; problems are reported through `args`.
BalancedAllocationArgs parseArgs(const Host& host, const Args& args);

}  // namespace schedhost::plugins::noderesourcesbalancedallocation

#endif  // SCHEDHOST_PLUGINS_NODERESOURCESBALANCEDALLOCATION_ARGS_H
