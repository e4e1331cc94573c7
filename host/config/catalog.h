// PluginCatalog: what profile resolution needs to know about the installed plugins.
//
// The plugin loader builds the real catalog from the plugins' metadata; StaticCatalog is a
// fixed list, for tests and for tools that check profiles without loading anything.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace sh::config {

struct CatalogEntry {
  std::string name;
  uint32_t points = 0;          // SH_POINT_* bits from schedhost/plugin.h
  std::string defaultArgsJson;  // "" when the plugin takes no args
};

class PluginCatalog {
 public:
  virtual ~PluginCatalog() = default;
  // The plugin called `name`, or nullptr when none is installed.
  virtual const CatalogEntry* find(std::string_view name) const = 0;
};

class StaticCatalog : public PluginCatalog {
 public:
  StaticCatalog() = default;
  explicit StaticCatalog(std::vector<CatalogEntry> entries) : entries_(std::move(entries)) {}

  void add(CatalogEntry entry) { entries_.push_back(std::move(entry)); }
  const std::vector<CatalogEntry>& entries() const { return entries_; }

  const CatalogEntry* find(std::string_view name) const override {
    for (const CatalogEntry& entry : entries_) {
      if (entry.name == name) {
        return &entry;
      }
    }
    return nullptr;
  }

 private:
  std::vector<CatalogEntry> entries_;
};

}  // namespace sh::config
