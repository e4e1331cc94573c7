#include "host/config/profile_printer.h"

#include <algorithm>

#include <boost/json/serialize.hpp>

namespace sh::config {

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

}  // namespace sh::config
