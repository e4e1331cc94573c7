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

// The profile as upstream's defaulting leaves it (kubescheduler.config.k8s.io/v1
// SetDefaults_KubeSchedulerConfiguration, setDefaults_KubeSchedulerProfile), what
// kube-scheduler prints as its effective configuration:
//   {"schedulerName": "...", "percentageOfNodesToScore": N (only when set),
//    "plugins": {"preEnqueue": {}, ..., "multiPoint": {"enabled": [{"name": "...",
//                "weight": 3}, ...], "disabled": [{"name": "..."}]}},
//    "pluginConfig": [{"name": "...", "args": {"apiVersion": "kubescheduler.config.k8s.io/v1",
//                      "kind": "NodeResourcesFitArgs", ...}}]}
// `plugins` is upstream's mergePlugins of the default set and `written`'s sets (a default
// plugin that is not installed is left out of the default set, as the profile runs without
// it). `pluginConfig` is `written`'s entries in order, then, for every other plugin enabled in
// some set (by name, sorted) with an upstream args type, its default args; every args object
// with the defaults of the fields it leaves out (a plugin in some set but running at no point,
// as a Score plugin of a profile that disables every Score plugin, gets its catalog defaults).
// `resolved` is `written` resolved against `catalog`.
boost::json::value toUpstreamJson(const ProfileConfig& written, const ResolvedProfile& resolved,
                                  const PluginCatalog& catalog);

}  // namespace sh::config
