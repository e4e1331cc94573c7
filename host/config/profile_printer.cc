#include "host/config/profile_printer.h"

#include <algorithm>
#include <set>

#include <boost/json/parse.hpp>
#include <boost/json/serialize.hpp>

#include "host/config/default_plugins.h"

namespace sh::config {
namespace {

// The plugins with an args type of upstream's (kubescheduler.config.k8s.io/v1
// types_pluginargs.go): defaulting adds their args; the others get none.
constexpr std::string_view kUpstreamArgsPlugins[] = {"DefaultPreemption",
                                                     "DynamicResources",
                                                     "InterPodAffinity",
                                                     "NodeAffinity",
                                                     "NodeResourcesBalancedAllocation",
                                                     "NodeResourcesFit",
                                                     "PodTopologySpread",
                                                     "VolumeBinding"};

bool hasUpstreamArgs(std::string_view name) {
  return std::find(std::begin(kUpstreamArgsPlugins), std::end(kUpstreamArgsPlugins), name) !=
         std::end(kUpstreamArgsPlugins);
}

// Upstream's args types mark every field that can be null or empty `omitempty`
// (addedAffinity, ignoredResources, defaultConstraints, shape, ...): such members are left out,
// at every depth, as upstream's encoder leaves them out.
void dropEmpty(boost::json::value& value) {
  if (boost::json::object* object = value.if_object()) {
    boost::json::object kept;  // in order (object::erase moves the last member)
    for (auto& member : *object) {
      dropEmpty(member.value());
      const boost::json::value& v = member.value();
      if (!v.is_null() && !(v.is_array() && v.as_array().empty())) {
        kept[member.key()] = std::move(member.value());
      }
    }
    *object = std::move(kept);
  } else if (boost::json::array* array = value.if_array()) {
    for (boost::json::value& item : *array) dropEmpty(item);
  }
}

boost::json::object pluginSetJson(const PluginSet& set) {
  boost::json::object out;
  auto list = [](const std::vector<PluginRef>& refs, bool weights) {
    boost::json::array array;
    for (const PluginRef& ref : refs) {
      boost::json::object entry;
      entry["name"] = ref.name;
      if (weights && ref.weight != 0) entry["weight"] = ref.weight;
      array.push_back(std::move(entry));
    }
    return array;
  };
  if (!set.enabled.empty()) out["enabled"] = list(set.enabled, true);
  if (!set.disabled.empty()) out["disabled"] = list(set.disabled, false);
  return out;
}

}  // namespace

std::string describe(const ResolvedProfile& profile) {
  std::size_t width = 0;
  for (ExtensionPoint point : kAllExtensionPoints) {
    width = std::max(width, configKey(point).size());
  }
  std::string out = "profile \"" + profile.schedulerName + "\"\n";
  if (profile.percentageOfNodesToScore) {
    out +=
        "  percentageOfNodesToScore: " + std::to_string(*profile.percentageOfNodesToScore) + "\n";
  }
  for (const LibraryRef& library : profile.libraries) {
    out += "  library: " + library.path;
    if (!library.sha256.empty()) {
      out += " (sha256 " + library.sha256 + ")";
    }
    out += "\n";
  }
  for (ExtensionPoint point : kAllExtensionPoints) {
    const std::string key(configKey(point));
    out += "  " + key + ":" + std::string(width - key.size() + 1, ' ');
    const auto& plugins = profile.at(point);
    if (plugins.empty()) {
      out += "(none)";
    }
    for (std::size_t i = 0; i < plugins.size(); ++i) {
      out += (i == 0 ? "" : ", ") + plugins[i].name;
      if (point == ExtensionPoint::kScore) {
        out += " (weight " + std::to_string(plugins[i].weight) + ")";
      }
    }
    out += "\n";
  }
  bool header = false;
  for (const EnabledPlugin& plugin : profile.plugins) {
    if (plugin.args == nullptr || plugin.args->isNull()) {
      continue;
    }
    if (!header) {
      out += "  args:\n";
      header = true;
    }
    out += "    " + plugin.name + ": " + boost::json::serialize(plugin.args->toJson()) + "\n";
  }
  return out;
}

boost::json::value toJson(const ResolvedProfile& profile) {
  boost::json::object out;
  out["schedulerName"] = profile.schedulerName;
  if (profile.percentageOfNodesToScore) {
    out["percentageOfNodesToScore"] = *profile.percentageOfNodesToScore;
  }
  if (!profile.libraries.empty()) {
    boost::json::array libraries;
    for (const LibraryRef& library : profile.libraries) {
      boost::json::object entry;
      entry["path"] = library.path;
      if (!library.sha256.empty()) {
        entry["sha256"] = library.sha256;
      }
      libraries.push_back(std::move(entry));
    }
    out["libraries"] = std::move(libraries);
  }
  boost::json::object plugins;
  for (ExtensionPoint point : kAllExtensionPoints) {
    boost::json::array list;
    for (const ResolvedPlugin& plugin : profile.at(point)) {
      boost::json::object entry;
      entry["name"] = plugin.name;
      if (point == ExtensionPoint::kScore) {
        entry["weight"] = plugin.weight;
      }
      list.push_back(std::move(entry));
    }
    plugins[configKey(point)] = std::move(list);
  }
  out["plugins"] = std::move(plugins);
  boost::json::array pluginConfig;
  for (const EnabledPlugin& plugin : profile.plugins) {
    if (plugin.args == nullptr || plugin.args->isNull()) {
      continue;
    }
    boost::json::object entry;
    entry["name"] = plugin.name;
    entry["args"] = plugin.args->toJson();
    pluginConfig.push_back(std::move(entry));
  }
  out["pluginConfig"] = std::move(pluginConfig);
  return out;
}

boost::json::value toUpstreamJson(const ProfileConfig& written, const ResolvedProfile& resolved,
                                  const PluginCatalog& catalog) {
  Plugins defaults;
  for (const DefaultPlugin& plugin : defaultMultiPointPlugins()) {
    if (std::find(resolved.notInstalled.begin(), resolved.notInstalled.end(), plugin.name) !=
        resolved.notInstalled.end()) {
      continue;
    }
    defaults.multiPoint.enabled.push_back(
        PluginRef{std::string(plugin.name), plugin.weight, {}, std::string()});
  }
  const Plugins merged = mergePlugins(defaults, written.plugins);

  boost::json::object out;
  out["schedulerName"] = resolved.schedulerName;
  if (resolved.percentageOfNodesToScore) {
    out["percentageOfNodesToScore"] = *resolved.percentageOfNodesToScore;
  }
  boost::json::object plugins;
  for (ExtensionPoint point : kAllExtensionPoints) {
    plugins[configKey(point)] = pluginSetJson(merged.at(point));
  }
  plugins["multiPoint"] = pluginSetJson(merged.multiPoint);
  out["plugins"] = std::move(plugins);

  // Each args object as the plugin gets it: the user's, with the defaults of what it leaves out.
  auto argsJson = [&resolved, &catalog](const std::string& name) -> boost::json::value {
    boost::json::value json;
    if (const ArgNode* args = resolved.args(name); args != nullptr) {
      json = args->toJson();
    } else if (const CatalogEntry* entry = catalog.find(name);
               entry != nullptr && !entry->defaultArgsJson.empty()) {
      boost::system::error_code ec;
      json = boost::json::parse(entry->defaultArgsJson, ec);
    }
    if (json.is_null()) return nullptr;
    dropEmpty(json);
    if (json.is_object() && hasUpstreamArgs(name)) {
      boost::json::object typed;
      typed["apiVersion"] = "kubescheduler.config.k8s.io/v1";
      typed["kind"] = name + "Args";
      for (const auto& member : json.as_object()) typed[member.key()] = member.value();
      return typed;
    }
    return json;
  };
  boost::json::array pluginConfig;
  std::set<std::string, std::less<>> configured;
  for (const PluginConfigEntry& entry : written.pluginConfig) {
    configured.insert(entry.name);
    boost::json::object item;
    item["name"] = entry.name;
    boost::json::value args = argsJson(entry.name);
    // A plugin enabled nowhere keeps what was written (upstream leaves it as it is).
    if (args.is_null() && entry.args != nullptr) args = entry.args->toJson();
    if (!args.is_null()) item["args"] = std::move(args);
    pluginConfig.push_back(std::move(item));
  }
  std::set<std::string, std::less<>> names;  // upstream's pluginsNames: sorted
  for (ExtensionPoint point : kAllExtensionPoints) {
    for (const PluginRef& ref : merged.at(point).enabled) names.insert(ref.name);
  }
  for (const PluginRef& ref : merged.multiPoint.enabled) names.insert(ref.name);
  for (const std::string& name : names) {
    if (configured.count(name) != 0 || !hasUpstreamArgs(name)) continue;
    boost::json::value args = argsJson(name);
    if (args.is_null()) continue;
    boost::json::object item;
    item["name"] = name;
    item["args"] = std::move(args);
    pluginConfig.push_back(std::move(item));
  }
  out["pluginConfig"] = std::move(pluginConfig);
  return out;
}

}  // namespace sh::config
