// ProfileConfig: one scheduling profile as written by the operator, before the default plugin
// set is merged in (see profile_resolver.h). The TOML format is docs/spec profile-format.md; it
// mirrors KubeSchedulerProfile (kubescheduler.config.k8s.io/v1) field for field.
#pragma once

#include <array>
#include <cstdint>
#include <filesystem>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "host/common/extension_point.h"
#include "host/config/args_tree.h"
#include "host/config/diagnostics.h"

namespace sh::config {

inline constexpr std::string_view kDefaultSchedulerName = "default-scheduler";

// One { name = "...", weight = N } entry of an enabled or disabled list.
struct PluginRef {
  std::string name;
  int64_t weight = 0;  // 0 when unset; only Score and MultiPoint weights mean anything
  SourceLocation where;
  std::string key;  // e.g. "plugins.score.enabled[1]"
};

struct PluginSet {
  std::vector<PluginRef> enabled;
  std::vector<PluginRef> disabled;
};

struct Plugins {
  std::array<PluginSet, kExtensionPointCount> points;
  PluginSet multiPoint;

  PluginSet& at(ExtensionPoint point) { return points[indexOf(point)]; }
  const PluginSet& at(ExtensionPoint point) const { return points[indexOf(point)]; }
};

// One [[pluginConfig]] entry.
struct PluginConfigEntry {
  std::string name;
  std::shared_ptr<const ArgNode> args;  // nullptr when no args table was written
  SourceLocation where;
  std::string key;  // e.g. "pluginConfig[1]"
};

// One [[libraries]] entry.
struct LibraryRef {
  std::string path;    // absolute
  std::string sha256;  // lowercase hex, or empty when not pinned
  SourceLocation where;
  std::string key;
};

struct ProfileConfig {
  // Empty when not written; finalize_profiles names a lone profile "default-scheduler".
  std::string schedulerName;
  // The schedulerName value, or the profile's table (inline) or file (1:1) when absent.
  SourceLocation where;
  // The profile's own path: "profiles[0]" inline in schedhost.toml, "" for a profile file.
  std::string key;
  std::optional<int32_t> percentageOfNodesToScore;
  std::vector<LibraryRef> libraries;
  Plugins plugins;
  std::vector<PluginConfigEntry> pluginConfig;
  // A schedulerName was written but rejected (already reported); finalize_profiles does not
  // report it missing again.
  bool schedulerNameRejected = false;
  // finalizeProfiles has checked this profile's name; a later call (the host file's profiles
  // and then the --profile files together) reports only what involves a profile new to it.
  bool nameChecked = false;

  // The path of one of the profile's fields, e.g. field_key("schedulerName").
  std::string fieldKey(std::string_view field) const;
};

// Reads one profile from a TOML table. `key` is the profile's path ("" for a profile file,
// "profiles[0]" inline). Problems go to `diags`; what could be read is returned.
ProfileConfig parseProfile(const TomlValue& table, const std::string& key, Diagnostics& diags);

// Reads a standalone profile file. nullopt when the file cannot be read or is not valid TOML.
std::optional<ProfileConfig> loadProfileFile(const std::filesystem::path& path, Diagnostics& diags);
// The same for text in memory; `file_name` is what diagnostics name.
std::optional<ProfileConfig> parseProfileText(std::string_view text, const std::string& fileName,
                                              Diagnostics& diags);

// Upstream's profile defaulting and name checks, over all profiles of a configuration:
//   - no profile at all: one profile named "default-scheduler" (located at `where`);
//   - exactly one profile without schedulerName: it becomes "default-scheduler";
//   - otherwise every profile needs a schedulerName, and names must be unique (the error names
//     both places).
// Calling it again after adding profiles reports each problem once.
void finalizeProfiles(std::vector<ProfileConfig>& profiles, const SourceLocation& where,
                      Diagnostics& diags);

}  // namespace sh::config
