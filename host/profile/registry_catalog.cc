#include "host/profile/registry_catalog.h"

namespace sh::profile {

RegistryCatalog::RegistryCatalog(const plugin::PluginRegistry& registry) : registry_(registry) {}

const config::CatalogEntry* RegistryCatalog::find(std::string_view name) const {
  auto it = cache_.find(std::string(name));
  if (it != cache_.end()) {
    return &it->second;
  }
  auto lib = registry_.find(name);
  if (lib == nullptr) {
    return nullptr;
  }
  config::CatalogEntry e;
  e.name = lib->name;
  e.points = lib->points;
  const char* defaults = lib->descriptor->default_args_json;
  e.defaultArgsJson = defaults != nullptr ? defaults : "";
  return &cache_.emplace(e.name, std::move(e)).first->second;
}

}  // namespace sh::profile
