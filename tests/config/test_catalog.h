// Plugin catalogs for config tests.
#pragma once

#include <string>
#include <string_view>

#include "host/config/catalog.h"
#include "host/config/diagnostics.h"
#include "host/config/profile_config.h"
#include "host/config/profile_resolver.h"

namespace sh::config::testing {

// The upstream plugins schedhost ships, with their real extension points and upstream's
// default args: PrioritySort, SchedulingGates, NodeUnschedulable, NodeName, TaintToleration,
// NodeAffinity, NodePorts, NodeResourcesFit, NodeResourcesBalancedAllocation, ImageLocality,
// DefaultBinder, PodTopologySpread, InterPodAffinity, DefaultPreemption.
const StaticCatalog& upstreamCatalog();

// upstream_catalog() plus the rest of upstream 1.36's default set (VolumeRestrictions,
// NodeVolumeLimits, VolumeBinding, VolumeZone, DynamicResources, NodeDeclaredFeatures).
const StaticCatalog& fullUpstreamCatalog();

// None of the default plugins, only the fixtures of upstream's framework_test.go:
// TestPlugin (every point), ScorePlugin (Score), FilterPlugin (Filter),
// QueueSortPlugin (QueueSort), BindPlugin (Bind). The default set is therefore empty.
const StaticCatalog& frameworkCatalog();

// Parses `text` as a profile file called `file_name`; fails the test on a parse error.
ProfileConfig profileFrom(std::string_view text, const std::string& fileName = "p.toml");

// Parses and resolves `text` as one profile file; diagnostics go to `diags`.
ResolvedProfile resolveText(std::string_view text, const PluginCatalog& catalog,
                            Diagnostics& diags);

}  // namespace sh::config::testing
