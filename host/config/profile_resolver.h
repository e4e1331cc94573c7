// Profile resolution: from a ProfileConfig as written to the plugins each extension point runs.
//
// This is upstream kube-scheduler 1.36's logic, in the order upstream applies it
// (upstream apis/config/v1/default_plugins.go: mergePlugins, mergePluginSet; and
// framework/runtime/framework.go: NewFramework, RunScorePlugins):
//   1. The default set is the MultiPoint list of default_plugins.h, less the plugins the catalog
//      does not have (dropped silently, logged at debug).
//   2. mergePluginSet, for each extension point and for MultiPoint: the default enabled list in
//      order, without disabled names (none at all when "*" is disabled); a default the user
//      enables again is replaced in place, taking the user's weight; the user's other enabled
//      entries are appended in the user's order.
//   3. Each point's own enabled list is checked: the plugin must exist, implement the point, and
//      appear once.
//   4. MultiPoint expansion, per point (skipped when the point disables "*"): a MultiPoint
//      plugin joins a point it implements unless disabled there; listing it at the point too is
//      an override. Final order: overrides in the point's order, then MultiPoint plugins in
//      MultiPoint order, then the point's other plugins.
//   5. Score weights: first from the score point's list, then from MultiPoint; 0 or unset means
//      1; the sum of weight x 100 must fit in int64.
//   6. Exactly one QueueSort plugin, at least one Bind plugin.
//   7. Args: for every enabled plugin, its catalog default args merged under the user's
//      pluginConfig args. pluginConfig for a plugin enabled nowhere is ignored, as upstream does;
//      for a plugin not installed at all it is an error (upstream ignores that too).
#pragma once

#include <array>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "host/common/extension_point.h"
#include "host/config/args_tree.h"
#include "host/config/catalog.h"
#include "host/config/diagnostics.h"
#include "host/config/profile_config.h"

namespace sh::config {

// A plugin at one extension point.
struct ResolvedPlugin {
  std::string name;
  int64_t weight = 0;  // Score: the effective weight (>= 1); 0 at every other point
  // Where it was enabled: the user's entry, or the profile (where/key) for a default.
  SourceLocation where;
  std::string key;
};

// A plugin enabled at one or more points, with its effective args.
struct EnabledPlugin {
  std::string name;
  uint32_t points = 0;  // SH_POINT_* bits of the points it runs at in this profile
  // Never null: the merged args, or a null node when the plugin has no default args and the
  // profile gave none. Its address is stable; hand it to the plugin as sh_args*.
  std::shared_ptr<const ArgNode> args;
};

struct ResolvedProfile {
  std::string schedulerName;
  SourceLocation where;  // of the profile (its schedulerName when written)
  std::string key;       // the profile's path ("" for a profile file)
  std::optional<int32_t> percentageOfNodesToScore;
  std::vector<LibraryRef> libraries;
  std::array<std::vector<ResolvedPlugin>, kExtensionPointCount> points;
  // Every plugin in some point's list, in order of first appearance (points in run order).
  std::vector<EnabledPlugin> plugins;
  // Upstream default plugins this profile does not disable (MultiPoint) but that no installed
  // file provides: the profile runs without them. A reload that would lose one the running
  // profile uses is rejected (host/reload/reloader.h).
  std::vector<std::string> notInstalled;

  const std::vector<ResolvedPlugin>& at(ExtensionPoint point) const {
    return points[indexOf(point)];
  }
  // The names at `point`, in run order.
  std::vector<std::string> names(ExtensionPoint point) const;
  // The Score weight of `name`; 0 when it is not one of this profile's Score plugins.
  int64_t scoreWeight(std::string_view name) const;
  const EnabledPlugin* plugin(std::string_view name) const;
  // The effective args of `name`; nullptr when it is not enabled.
  const ArgNode* args(std::string_view name) const;
};

// Upstream's default Plugins for a profile: the default MultiPoint list less what `catalog`
// lacks. The entries have an empty key and `where` as their location.
Plugins defaultPlugins(const PluginCatalog& catalog, const SourceLocation& where);

// Upstream's mergePluginSet (step 2 above) for one plugin set, and for every set of a profile.
PluginSet mergePluginSet(const PluginSet& defaults, const PluginSet& custom);
Plugins mergePlugins(const Plugins& defaults, const Plugins& custom);

// Resolves one profile against the installed plugins. Every problem goes to `diags`; the
// returned profile holds whatever could be resolved.
ResolvedProfile resolve(const ProfileConfig& profile, const PluginCatalog& catalog,
                        Diagnostics& diags);

// resolve() for every profile, then validate_profiles(): the whole check of a configuration.
std::vector<ResolvedProfile> resolveAll(const std::vector<ProfileConfig>& profiles,
                                        const PluginCatalog& catalog, Diagnostics& diags);

// Checks across profiles: every profile must use the same QueueSort plugin with the same args
// (the error names both schedulerNames).
void validateProfiles(const std::vector<ResolvedProfile>& profiles, Diagnostics& diags);

}  // namespace sh::config
