// DefaultPreemptionArgs: minCandidateNodesPercentage (default 10, in [0, 100]) and
// minCandidateNodesAbsolute (default 100, >= 0; the two may not both be 0), validated as
// upstream's ValidateDefaultPreemptionArgs.
#ifndef SCHEDHOST_PLUGINS_DEFAULTPREEMPTION_ARGS_H
#define SCHEDHOST_PLUGINS_DEFAULTPREEMPTION_ARGS_H

#include <schedhost/plugin.hpp>

#include <cstdint>

namespace schedhost::plugins::defaultpreemption {

struct DefaultPreemptionArgs {
  int32_t minCandidateNodesPercentage = 10;
  int32_t minCandidateNodesAbsolute = 100;
};

// Reads and validates the args; problems are reported through `args` (the plugin then fails
// to create) and the result is only meaningful when none were.
DefaultPreemptionArgs parseArgs(const Args& args);

// How many candidates the dry run must produce among `numNodes` potential nodes:
// max(numNodes * percentage / 100, absolute), at most numNodes.
int32_t numCandidates(const DefaultPreemptionArgs& args, int32_t numNodes);

}  // namespace schedhost::plugins::defaultpreemption

#endif  // SCHEDHOST_PLUGINS_DEFAULTPREEMPTION_ARGS_H
