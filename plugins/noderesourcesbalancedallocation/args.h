// NodeResourcesBalancedAllocationArgs: the resources to balance, defaulted and validated as
// upstream (SetDefaults_NodeResourcesBalancedAllocationArgs,
// ValidateNodeResourcesBalancedAllocationArgs).
#ifndef SCHEDHOST_PLUGINS_NODERESOURCESBALANCEDALLOCATION_ARGS_H
#define SCHEDHOST_PLUGINS_NODERESOURCESBALANCEDALLOCATION_ARGS_H

#include <schedhost/helpers/args.hpp>
#include <schedhost/plugin.hpp>

#include <vector>

namespace schedhost::plugins::noderesourcesbalancedallocation {

struct BalancedAllocationArgs {
  std::vector<ResourceSpec> resources;  // schedhost::ResourceSpec; never empty after defaulting
};

// Reads, defaults and validates the args; problems are reported through `args`.
BalancedAllocationArgs parseArgs(const Host& host, const Args& args);

}  // namespace schedhost::plugins::noderesourcesbalancedallocation

#endif  // SCHEDHOST_PLUGINS_NODERESOURCESBALANCEDALLOCATION_ARGS_H
