#include "host/profile/generation.h"

#include <algorithm>
#include <map>
#include <set>

#include <spdlog/spdlog.h>
#include <boost/json.hpp>

#include "host/common/quoted.h"
#include "host/config/default_plugins.h"

namespace sh::profile {
namespace {

// One profile's comparable shape: plugin -> identity (points, weight, args, library digest).
std::map<std::string, std::string> pluginShapes(const config::ResolvedProfile& profile,
                                                const plugin::PluginRegistry& registry) {
  std::map<std::string, std::string> out;
  for (const config::EnabledPlugin& ep : profile.plugins) {
    std::string shape = pluginIdentity(profile, ep.name, registry);
    for (ExtensionPoint point : kAllExtensionPoints) {
      for (const config::ResolvedPlugin& r : profile.at(point)) {
        if (r.name == ep.name) {
          shape += " " + std::string(typeName(point)) + ":" + std::to_string(r.weight);
        }
      }
    }
    out.emplace(ep.name, std::move(shape));
  }
  return out;
}

const config::ResolvedProfile* findProfile(const ProfileSet& set, const std::string& name) {
  for (const config::ResolvedProfile& p : set.resolved) {
    if (p.schedulerName == name) {
      return &p;
    }
  }
  return nullptr;
}

}  // namespace

std::string lackingDefaults(const config::ResolvedProfile& profile) {
  std::string names;
  for (const config::DefaultPlugin& d : config::defaultMultiPointPlugins()) {
    if (profile.plugin(d.name) != nullptr) {
      continue;
    }
    const bool missing = std::find(profile.notInstalled.begin(), profile.notInstalled.end(),
                                   d.name) != profile.notInstalled.end();
    names += (names.empty() ? "" : ", ") + std::string(d.name) +
             (missing ? " (no installed file provides it)" : " (disabled)");
  }
  if (names.empty()) {
    return names;
  }
  return "profile " + sh::quoted(profile.schedulerName) +
         " lacks default plugins of kube-scheduler v1.36: " + names;
}

GenerationPtr buildGeneration(LoadRequest request, uint64_t number, HostServices* services,
                              config::Diagnostics& diags, std::size_t* loadFailures) {
  request.generation = number;
  request.createPlugins = true;
  auto generation = std::make_shared<Generation>();
  generation->number = number;
  generation->set = load(request, services, diags);
  generation->builtAt = std::chrono::system_clock::now();
  if (loadFailures != nullptr) {
    *loadFailures = generation->set.pluginLoadFailures;
  }
  if (diags.hasErrors()) {
    return nullptr;
  }
  for (const config::ResolvedProfile& profile : generation->set.resolved) {
    if (std::string lacking = lackingDefaults(profile); !lacking.empty()) {
      spdlog::warn("{}", lacking);
    }
  }
  return generation;
}

std::vector<std::string> changedBetween(const Generation* before, const Generation& after) {
  std::set<std::string> changed;
  const auto profileNames = [](const ProfileSet& set) {
    std::set<std::string> names;
    for (const config::ResolvedProfile& p : set.resolved) {
      names.insert(p.schedulerName);
    }
    return names;
  };
  const std::set<std::string> now = profileNames(after.set);
  const std::set<std::string> was =
      before == nullptr ? std::set<std::string>{} : profileNames(before->set);
  for (const std::string& name : now) {
    if (was.count(name) == 0) {
      changed.insert(name);
    }
  }
  for (const std::string& name : was) {
    if (now.count(name) == 0) {
      changed.insert(name);
    }
  }
  if (before != nullptr) {
    for (const std::string& name : now) {
      const config::ResolvedProfile* old = findProfile(before->set, name);
      const config::ResolvedProfile* cur = findProfile(after.set, name);
      if (old == nullptr || cur == nullptr) {
        continue;
      }
      if (old->percentageOfNodesToScore != cur->percentageOfNodesToScore) {
        changed.insert(name);
      }
      const auto oldShapes = pluginShapes(*old, *before->set.registry);
      const auto curShapes = pluginShapes(*cur, *after.set.registry);
      for (const auto& [plugin, shape] : curShapes) {
        auto it = oldShapes.find(plugin);
        if (it == oldShapes.end() || it->second != shape) {
          changed.insert(name + "/" + plugin);
        }
      }
      for (const auto& [plugin, shape] : oldShapes) {
        if (curShapes.count(plugin) == 0) {
          changed.insert(name + "/" + plugin);
        }
      }
    }
  }
  return {changed.begin(), changed.end()};
}

std::string configzJson(const Generation& generation) {
  namespace json = boost::json;
  const ProfileSet& set = generation.set;
  json::object root;
  root["generation"] = generation.number;
  json::array profiles;
  for (const config::ResolvedProfile& rp : set.resolved) {
    json::object profile;
    profile["schedulerName"] = rp.schedulerName;
    if (rp.percentageOfNodesToScore) {
      profile["percentageOfNodesToScore"] = *rp.percentageOfNodesToScore;
    } else {
      profile["percentageOfNodesToScore"] = nullptr;
    }
    json::object plugins;
    for (ExtensionPoint point : kAllExtensionPoints) {
      json::array list;
      for (const config::ResolvedPlugin& r : rp.at(point)) {
        if (point == ExtensionPoint::kScore) {
          list.push_back(json::object{{"name", r.name}, {"weight", r.weight}});
        } else {
          list.push_back(json::string(r.name));
        }
      }
      if (!list.empty()) {
        plugins[typeName(point)] = std::move(list);
      }
    }
    profile["plugins"] = std::move(plugins);
    json::array pluginConfig;
    for (const config::EnabledPlugin& ep : rp.plugins) {
      if (ep.args != nullptr && !ep.args->toJson().is_null()) {
        pluginConfig.push_back(json::object{{"name", ep.name}, {"args", ep.args->toJson()}});
      }
    }
    profile["pluginConfig"] = std::move(pluginConfig);
    profiles.push_back(std::move(profile));
  }
  root["profiles"] = std::move(profiles);
  json::array libraries;
  if (set.registry != nullptr) {
    for (const auto& lib : set.registry->all()) {
      libraries.push_back(json::object{
          {"plugin", lib->name},
          {"version", lib->version},
          {"path", lib->path},
          {"sha256", lib->sha256},
          {"abi", std::to_string(lib->abiMajor) + "." + std::to_string(lib->abiMinor)}});
    }
  }
  root["libraries"] = std::move(libraries);
  return json::serialize(root);
}

}  // namespace sh::profile
