// NodeAffinityArgs: addedAffinity, the node affinity the scheduler enforces on every pod,
// parsed from the args tree in upstream's JSON shape and validated as upstream's
// ValidateNodeAffinityArgs does (nodeaffinity.NewNodeSelector and NewPreferredSchedulingTerms).
#ifndef SCHEDHOST_PLUGINS_NODEAFFINITY_ARGS_H
#define SCHEDHOST_PLUGINS_NODEAFFINITY_ARGS_H

#include <schedhost/plugin.hpp>

#include <vector>

namespace schedhost::plugins::nodeaffinity {

// The parsed addedAffinity. The sh_* views point into the storage vectors, whose buffers stay
// put when the object is moved; nothing is added after parseArgs returns.
class NodeAffinityArgs {
 public:
  // requiredDuringSchedulingIgnoredDuringExecution was given (possibly with no terms, which
  // then matches no node).
  bool hasRequired() const noexcept { return hasRequired_; }
  const std::vector<sh_node_selector_term>& required() const noexcept { return required_; }
  // preferredDuringSchedulingIgnoredDuringExecution was given with at least one term.
  bool hasPreferred() const noexcept { return hasPreferred_; }
  const std::vector<sh_preferred_term>& preferred() const noexcept { return preferred_; }

 private:
  friend NodeAffinityArgs parseArgs(const Host& host, const Args& args);
  friend class TermBuilder;

  bool hasRequired_ = false;
  bool hasPreferred_ = false;
  std::vector<sh_node_selector_term> required_;
  std::vector<sh_preferred_term> preferred_;
  std::vector<std::vector<sh_requirement>> requirements_;
  std::vector<std::vector<sh_id>> values_;
};

// Reads and validates the args; problems are reported through `args` (the plugin then fails
// to create) and the result is only meaningful when none were.
NodeAffinityArgs parseArgs(const Host& host, const Args& args);

}  // namespace schedhost::plugins::nodeaffinity

#endif  // SCHEDHOST_PLUGINS_NODEAFFINITY_ARGS_H
