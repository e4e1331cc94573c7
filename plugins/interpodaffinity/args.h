// InterPodAffinityArgs: hardPodAffinityWeight (default 1, in [0, 100]) and
// ignorePreferredTermsOfExistingPods (default false), validated as upstream's
// ValidateInterPodAffinityArgs.
#ifndef SCHEDHOST_PLUGINS_INTERPODAFFINITY_ARGS_H
#define SCHEDHOST_PLUGINS_INTERPODAFFINITY_ARGS_H

#include <schedhost/plugin.hpp>

#include <cstdint>

namespace schedhost::plugins::interpodaffinity {

struct InterPodAffinityArgs {
  int32_t hardPodAffinityWeight = 1;
  bool ignorePreferredTermsOfExistingPods = false;
};

// Reads and validates the args; problems are reported through `args` (the plugin then fails
// to create) and the result is only meaningful when none were.
InterPodAffinityArgs parseArgs(const Args& args);

}  // namespace schedhost::plugins::interpodaffinity

#endif  // SCHEDHOST_PLUGINS_INTERPODAFFINITY_ARGS_H
