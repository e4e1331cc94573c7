#include "host/config/profile_printer.h"

#include <algorithm>

#include <boost/json/serialize.hpp>

namespace sh::config {

std::string describe(const ResolvedProfile& profile) {
  std::size_t width = 0;
  for (ExtensionPoint point : kAllExtensionPoints) {
    width = std::max(width, config_key(point).size());
  }
  std::string out = "profile \"" + profile.scheduler_name + "\"\n";
  if (profile.percentage_of_nodes_to_score) {
    out += "  percentageOfNodesToScore: " + std::to_string(*profile.percentage_of_nodes_to_score) +
           "\n";
  }
  for (const LibraryRef& library : profile.libraries) {
    out += "  library: " + library.path;
    if (!library.sha256.empty()) {
      out += " (sha256 " + library.sha256 + ")";
    }
    out += "\n";
  }
  for (ExtensionPoint point : kAllExtensionPoints) {
    const std::string key(config_key(point));
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
    if (plugin.args == nullptr || plugin.args->is_null()) {
      continue;
    }
    if (!header) {
      out += "  args:\n";
      header = true;
    }
    out += "    " + plugin.name + ": " + boost::json::serialize(plugin.args->to_json()) + "\n";
  }
  return out;
}

boost::json::value to_json(const ResolvedProfile& profile) {
  boost::json::object out;
  out["schedulerName"] = profile.scheduler_name;
  if (profile.percentage_of_nodes_to_score) {
    out["percentageOfNodesToScore"] = *profile.percentage_of_nodes_to_score;
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
    plugins[config_key(point)] = std::move(list);
  }
  out["plugins"] = std::move(plugins);
  boost::json::array plugin_config;
  for (const EnabledPlugin& plugin : profile.plugins) {
    if (plugin.args == nullptr || plugin.args->is_null()) {
      continue;
    }
    boost::json::object entry;
    entry["name"] = plugin.name;
    entry["args"] = plugin.args->to_json();
    plugin_config.push_back(std::move(entry));
  }
  out["pluginConfig"] = std::move(plugin_config);
  return out;
}

}  // namespace sh::config
