// The installed plugins as the profile resolver sees them: a loaded plugin as its descriptor
// and vtable describe it; a plugin indexed but not loaded as its file's .shmeta does (name and
// points; its default args are unknown until it is loaded). A plugin whose load failed is not
// installed.
#pragma once

#include <deque>
#include <string>
#include <string_view>
#include <unordered_map>

#include "host/config/catalog.h"
#include "host/plugin/registry.h"

namespace sh::profile {

class RegistryCatalog : public config::PluginCatalog {
 public:
  explicit RegistryCatalog(const plugin::PluginRegistry& registry);
  const config::CatalogEntry* find(std::string_view name) const override;

 private:
  const plugin::PluginRegistry& registry_;
  mutable std::unordered_map<std::string, config::CatalogEntry> cache_;
};

}  // namespace sh::profile
