#include "host/profile/registry_catalog.h"

namespace sh::profile {

RegistryCatalog::RegistryCatalog(const plugin::PluginRegistry& registry) : registry_(registry) {}

const config::CatalogEntry* RegistryCatalog::find(std::string_view name) const {
  auto it = cache_.find(std::string(name));
  if (it != cache_.end()) {
    return &it->second;
  }
  config::CatalogEntry e;
  if (auto lib = registry_.find(name)) {
    e.name = lib->name;
    e.points = lib->points;
    const char* defaults = lib->descriptor->default_args_json;
    e.defaultArgsJson = defaults != nullptr ? defaults : "";
  } else if (auto candidate = registry_.candidate(name); candidate && !registry_.loadFailed(name)) {
    // Not loaded: what its file's metadata says. Its default args are known once it is.
    e.name = candidate->name;
    e.points = candidate->points;
  } else {
    return nullptr;
  }
  return &cache_.emplace(e.name, std::move(e)).first->second;
}

}  // namespace sh::profile
