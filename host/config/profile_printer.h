// Printing resolved profiles: what `schedhost profile check FILE...` shows.
#pragma once

#include <string>

#include <boost/json/value.hpp>

#include "host/config/profile_resolver.h"

namespace sh::config {

// Human-readable: one line per extension point with its plugins in run order (Score plugins
// with their weights), then each enabled plugin's effective args as compact JSON. Ends in '\n'.
//
//   profile "default-scheduler"
//     preEnqueue:  SchedulingGates, DefaultPreemption
//     ...
//     score:       TaintToleration (weight 3), NodeAffinity (weight 2), ...
//     permit:      (none)
//     args:
//       NodeResourcesFit: {"scoringStrategy":{"type":"LeastAllocated",...}}
std::string describe(const ResolvedProfile& profile);

// The same as JSON, shaped like upstream's KubeSchedulerProfile:
//   {"schedulerName": "...", "percentageOfNodesToScore": 30 (only when set),
//    "plugins": {"preEnqueue": [{"name": "..."}], "score": [{"name": "...", "weight": 3}], ...},
//    "pluginConfig": [{"name": "...", "args": {...}}]}   (plugins with non-null args only)
// Libraries are listed as "libraries": [{"path": "...", "sha256": "..."}] when there are any.
boost::json::value toJson(const ResolvedProfile& profile);

}  // namespace sh::config
