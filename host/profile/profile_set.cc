#include "host/profile/profile_set.h"

#include <set>
#include <string>
#include <vector>

#include <boost/json.hpp>

#include "host/config/profile_config.h"
#include "host/profile/registry_catalog.h"

namespace sh::profile {
namespace {

// Loads the plugins the profiles enable, and only those: a library no profile enables is
// never dlopened, so none of its code runs. Resolution needs only what the files' metadata
// tells (names and points), but a loaded plugin brings its default args and the points its
// vtable really implements, which may enable more. So: resolve, load what is enabled, and
// again until nothing new is enabled. The last resolution, by the caller, is the one reported.
void loadEnabledPlugins(ProfileSet& set, config::Diagnostics& diags) {
  std::set<std::string, std::less<>> tried;
  for (;;) {
    config::Diagnostics scratch;
    RegistryCatalog catalog(*set.registry);
    std::vector<std::string> toLoad;
    for (const config::ResolvedProfile& rp :
         config::resolveAll(set.host.profiles, catalog, scratch)) {
      for (const config::EnabledPlugin& ep : rp.plugins) {
        if (tried.insert(ep.name).second) {
          toLoad.push_back(ep.name);
        }
      }
    }
    if (toLoad.empty()) {
      return;
    }
    for (const std::string& name : toLoad) {
      try {
        set.registry->load(name);
      } catch (const plugin::LoadError& e) {
        ++set.pluginLoadFailures;
        diags.error(config::SourceLocation{e.path(), 0, 0}, "", e.what());
      }
    }
  }
}

}  // namespace

std::string pluginIdentity(const config::ResolvedProfile& profile, std::string_view name,
                           const plugin::PluginRegistry& registry) {
  std::string out(name);
  if (auto lib = registry.find(name)) {
    out += "@" + lib->sha256;
  }
  for (const config::EnabledPlugin& ep : profile.plugins) {
    if (ep.name == name && ep.args != nullptr) {
      out += " " + boost::json::serialize(ep.args->toJson());
    }
  }
  return out;
}

Frameworks buildFrameworks(const std::vector<config::ResolvedProfile>& profiles,
                           const plugin::PluginRegistry& registry, HostServices* services,
                           config::Diagnostics& diags, uint64_t generation,
                           metrics::SchedulerMetrics* metrics) {
  Frameworks out;
  for (const config::ResolvedProfile& rp : profiles) {
    // One instance per plugin per profile, as upstream builds one framework per profile.
    std::map<std::string, PluginPtr, std::less<>> instances;
    bool ok = true;
    for (const config::EnabledPlugin& ep : rp.plugins) {
      auto lib = registry.find(ep.name);
      if (lib == nullptr) {
        diags.error(rp.where, rp.key, "plugin \"" + ep.name + "\" does not exist");
        ok = false;
        continue;
      }
      auto inst = PluginInstance::create(lib, *ep.args, services, diags);
      if (inst == nullptr) {
        ok = false;
        continue;
      }
      instances.emplace(ep.name, std::move(inst));
    }
    if (!ok) {
      continue;
    }
    Framework::Config fc;
    fc.profileName = rp.schedulerName;
    for (ExtensionPoint p : kAllExtensionPoints) {
      for (const config::ResolvedPlugin& r : rp.at(p)) {
        fc.plugins[indexOf(p)].push_back(instances.at(r.name));
        if (p == ExtensionPoint::kScore) {
          fc.scoreWeights.push_back(r.weight);
        }
      }
    }
    fc.percentageOfNodesToScore = rp.percentageOfNodesToScore ? *rp.percentageOfNodesToScore : -1;
    fc.generation = generation;
    if (metrics != nullptr) {
      fc.metrics = std::make_shared<metrics::ProfileMetrics>(*metrics, rp.schedulerName);
    }
    for (const config::ResolvedPlugin& r : rp.at(ExtensionPoint::kQueueSort)) {
      fc.queueSortKey = pluginIdentity(rp, r.name, registry);
    }
    out.emplace(rp.schedulerName, std::make_shared<const Framework>(std::move(fc)));
  }
  return out;
}

ProfileSet load(const LoadRequest& request, HostServices* services, config::Diagnostics& diags) {
  ProfileSet set;
  if (!request.hostConfigFile.empty()) {
    set.host = config::loadHostConfig(request.hostConfigFile, diags);
    if (!set.host.parsed) {
      return set;  // nothing to resolve: the errors would only follow from the first
    }
  }
  for (const std::string& f : request.profileFiles) {
    if (auto p = config::loadProfileFile(f, diags)) {
      set.host.profiles.push_back(std::move(*p));
    }
  }
  // What the default profile is named after when no file gave it.
  config::SourceLocation where{
      request.hostConfigFile.empty()
          ? (request.profileFiles.empty() ? std::string(config::kBuiltInDefaults)
                                          : request.profileFiles.front())
          : request.hostConfigFile,
      0, 0};
  config::finalizeProfiles(set.host.profiles, where, diags);

  plugin::LoadOptions loadOptions;
  loadOptions.trust.serviceUser = set.host.plugins.serviceUser;
  set.registry = std::make_shared<plugin::PluginRegistry>(loadOptions);
  std::vector<std::string> dirs;
  for (const auto& d : set.host.pluginDirs) {
    dirs.push_back(d.string());
  }
  if (dirs.empty()) {
    dirs = request.defaultPluginDirs;
  }
  std::vector<plugin::ScanError> scanErrors;
  set.registry->indexDirs(dirs, scanErrors);
  for (const plugin::ScanError& e : scanErrors) {
    diags.error(config::SourceLocation{e.path, 0, 0}, "", e.message);
  }
  set.pluginLoadFailures += scanErrors.size();
  for (const config::ProfileConfig& p : set.host.profiles) {
    for (const config::LibraryRef& lib : p.libraries) {
      try {
        set.registry->indexLibrary(lib.path, lib.sha256);
      } catch (const std::exception& e) {
        ++set.pluginLoadFailures;
        diags.error(lib.where, lib.key, e.what());
      }
    }
  }
  loadEnabledPlugins(set, diags);

  RegistryCatalog catalog(*set.registry);
  set.resolved = config::resolveAll(set.host.profiles, catalog, diags);
  if (request.createPlugins && !diags.hasErrors()) {
    set.frameworks = buildFrameworks(set.resolved, *set.registry, services, diags,
                                     request.generation, request.metrics);
  }
  return set;
}

}  // namespace sh::profile
