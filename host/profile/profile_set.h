// ProfileSet: everything startup produces from the configuration — the loaded plugins and
// one immutable Framework per schedulerName (upstream's profile.Map).
//
//   load(): read schedhost.toml (or profile files) -> index pluginDirs and each profile's
//   [[libraries]] from their files, running none of them -> load (dlopen) only the plugins
//   the profiles enable -> resolve every profile (defaults, merging, weights) -> create every
//   plugin with its args -> build the frameworks. Every problem found on the way is
//   collected; the set is usable only when none was an error.
#pragma once

#include <map>
#include <memory>
#include <string>
#include <vector>

#include "host/config/diagnostics.h"
#include "host/config/host_config.h"
#include "host/config/profile_resolver.h"
#include "host/framework/framework.h"
#include "host/framework/host_services.h"
#include "host/metrics/scheduler_metrics.h"
#include "host/plugin/registry.h"

namespace sh::profile {

struct ProfileSet {
  config::HostConfig host;
  std::shared_ptr<plugin::PluginRegistry> registry;
  std::vector<config::ResolvedProfile> resolved;
  Frameworks frameworks;
  // Plugin files that could not be loaded (scan or [[libraries]]); each is also an error.
  std::size_t pluginLoadFailures = 0;

  // The framework for a pod's schedulerName, or nullptr when the pod is not ours.
  const Framework* find(std::string_view schedulerName) const {
    auto it = frameworks.find(schedulerName);
    return it == frameworks.end() ? nullptr : it->second.get();
  }
};

struct LoadRequest {
  // A schedhost.toml, or profile files (each one profile), or both.
  std::string hostConfigFile;
  std::vector<std::string> profileFiles;
  // Used when the host configuration names no pluginDirs.
  std::vector<std::string> defaultPluginDirs;
  // When false, plugins are resolved but not created (nothing of theirs runs).
  bool createPlugins = true;
  // The profile generation the frameworks are built for (Framework::generation()).
  uint64_t generation = 0;
  // Where the frameworks record their durations; nullptr: they record nothing.
  metrics::SchedulerMetrics* metrics = nullptr;
};

// Loads and builds everything; errors go to `diags` (check has_errors()).
ProfileSet load(const LoadRequest& request, HostServices* services, config::Diagnostics& diags);

// Builds the frameworks of already-resolved profiles.
Frameworks buildFrameworks(const std::vector<config::ResolvedProfile>& profiles,
                           const plugin::PluginRegistry& registry, HostServices* services,
                           config::Diagnostics& diags, uint64_t generation = 0,
                           metrics::SchedulerMetrics* metrics = nullptr);

// What identifies plugin `name` of `profile` for a reload: its name, the digest of the library
// it comes from and its args as canonical JSON. Equal identities behave alike.
std::string pluginIdentity(const config::ResolvedProfile& profile, std::string_view name,
                           const plugin::PluginRegistry& registry);

}  // namespace sh::profile
