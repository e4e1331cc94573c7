// PodTopologySpreadArgs: defaultConstraints and defaultingType, parsed from the args tree in
// upstream's JSON shape and validated as upstream's ValidatePodTopologySpreadArgs does.
#ifndef SCHEDHOST_PLUGINS_PODTOPOLOGYSPREAD_ARGS_H
#define SCHEDHOST_PLUGINS_PODTOPOLOGYSPREAD_ARGS_H

#include <schedhost/plugin.hpp>

#include <string>
#include <vector>

namespace schedhost::plugins::podtopologyspread {

// One default constraint (a v1.TopologySpreadConstraint without a labelSelector).
struct DefaultConstraint {
  int32_t maxSkew = 0;
  sh_id topologyKey = SH_ID_NONE;
  int32_t whenUnsatisfiable = SH_DO_NOT_SCHEDULE;  // sh_when_unsatisfiable
  int32_t minDomains = 0;                          // 0 when unset
  int32_t nodeAffinityPolicy = SH_POLICY_UNSET;    // sh_inclusion_policy
  int32_t nodeTaintsPolicy = SH_POLICY_UNSET;
  std::vector<std::string> matchLabelKeys;
};

struct PodTopologySpreadArgs {
  // The constraints in effect: the System defaults (hostname maxSkew 3, zone maxSkew 5, both
  // ScheduleAnyway) with defaultingType System, else the given list.
  std::vector<DefaultConstraint> defaultConstraints;
  bool systemDefaulted = true;
};

// Reads and validates the args; problems are reported through `args` (the plugin then fails
// to create) and the result is only meaningful when none were.
PodTopologySpreadArgs parseArgs(const Host& host, const Args& args);

}  // namespace schedhost::plugins::podtopologyspread

#endif  // SCHEDHOST_PLUGINS_PODTOPOLOGYSPREAD_ARGS_H
