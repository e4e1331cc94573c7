#include "host/config/profile_config.h"

#include <algorithm>
#include <cctype>
#include <limits>
#include <map>
#include <utility>

#include "host/common/quoted.h"
#include "host/config/toml_reader.h"

namespace sh::config {

namespace {

bool isHex64(std::string_view s) {
  return s.size() == 64 && std::all_of(s.begin(), s.end(), [](char c) {
           return std::isxdigit(static_cast<unsigned char>(c)) != 0;
         });
}

// One { name = "...", weight = N } entry; nullopt when it has no usable name.
std::optional<PluginRef> parsePluginRef(const TomlValue& value, const std::string& key,
                                        Diagnostics& diags) {
  if (!value.is_table()) {
    TableReader::wrongType(diags, value, key, "a table { name = \"...\", weight = N }");
    return std::nullopt;
  }
  TableReader reader(value, key, diags);
  PluginRef ref;
  ref.where = locationOf(value);
  ref.key = key;
  const std::optional<std::string> name = reader.string("name");
  const std::optional<int64_t> weight = reader.integer("weight");
  reader.finish();
  if (weight) {
    if (*weight < 0) {
      const TomlValue* w = reader.find("weight");
      diags.error(locationOf(*w), reader.pathOf("weight"),
                  "weight must not be negative, got " + std::to_string(*weight));
    } else {
      ref.weight = *weight;
    }
  }
  if (!name) {
    if (reader.find("name") == nullptr) {
      diags.error(ref.where, reader.pathOf("name"), "required field \"name\" is missing");
    }
    return std::nullopt;
  }
  if (name->empty()) {
    diags.error(locationOf(*reader.find("name")), reader.pathOf("name"),
                "plugin name must not be empty");
    return std::nullopt;
  }
  ref.name = *name;
  return ref;
}

std::vector<PluginRef> parsePluginList(TableReader& set, std::string_view list,
                                       Diagnostics& diags) {
  std::vector<PluginRef> out;
  const TomlValue* value = set.array(list);
  if (value == nullptr) {
    return out;
  }
  const std::string key = set.pathOf(list);
  const auto& items = value->as_array();
  for (std::size_t i = 0; i < items.size(); ++i) {
    if (auto ref = parsePluginRef(items[i], ArgNode::elementPath(key, i), diags)) {
      out.push_back(std::move(*ref));
    }
  }
  return out;
}

PluginSet parsePluginSet(const TomlValue& value, const std::string& key, Diagnostics& diags) {
  TableReader reader(value, key, diags);
  PluginSet set;
  set.enabled = parsePluginList(reader, "enabled", diags);
  set.disabled = parsePluginList(reader, "disabled", diags);
  reader.finish();
  return set;
}

Plugins parsePlugins(const TomlValue& value, const std::string& key, Diagnostics& diags) {
  TableReader reader(value, key, diags);
  Plugins plugins;
  for (ExtensionPoint point : kAllExtensionPoints) {
    if (const TomlValue* set = reader.table(configKey(point))) {
      plugins.at(point) = parsePluginSet(*set, reader.pathOf(configKey(point)), diags);
    }
  }
  if (const TomlValue* set = reader.table(kMultiPointKey)) {
    plugins.multiPoint = parsePluginSet(*set, reader.pathOf(kMultiPointKey), diags);
  }
  reader.finish();
  return plugins;
}

std::vector<LibraryRef> parseLibraries(TableReader& profile, Diagnostics& diags) {
  std::vector<LibraryRef> out;
  const TomlValue* value = profile.array("libraries");
  if (value == nullptr) {
    return out;
  }
  const auto& items = value->as_array();
  for (std::size_t i = 0; i < items.size(); ++i) {
    const std::string key = ArgNode::elementPath(profile.pathOf("libraries"), i);
    if (!items[i].is_table()) {
      TableReader::wrongType(diags, items[i], key, "a table");
      continue;
    }
    TableReader reader(items[i], key, diags);
    LibraryRef library;
    library.where = locationOf(items[i]);
    library.key = key;
    const std::optional<std::string> path = reader.string("path");
    const std::optional<std::string> sha256 = reader.string("sha256");
    reader.finish();
    bool ok = true;
    if (!path) {
      if (reader.find("path") == nullptr) {
        diags.error(library.where, reader.pathOf("path"), "required field \"path\" is missing");
      }
      ok = false;
    } else if (!std::filesystem::path(*path).is_absolute()) {
      diags.error(locationOf(*reader.find("path")), reader.pathOf("path"),
                  "library path " + sh::quoted(*path) + " must be absolute");
      ok = false;
    } else {
      library.path = *path;
    }
    if (sha256) {
      if (!isHex64(*sha256)) {
        diags.error(locationOf(*reader.find("sha256")), reader.pathOf("sha256"),
                    "sha256 " + sh::quoted(*sha256) + " must be 64 hexadecimal digits");
        ok = false;
      } else {
        library.sha256 = *sha256;
        std::transform(library.sha256.begin(), library.sha256.end(), library.sha256.begin(),
                       [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
      }
    }
    if (ok) {
      out.push_back(std::move(library));
    }
  }
  return out;
}

std::vector<PluginConfigEntry> parsePluginConfig(TableReader& profile, Diagnostics& diags) {
  std::vector<PluginConfigEntry> out;
  const TomlValue* value = profile.array("pluginConfig");
  if (value == nullptr) {
    return out;
  }
  const auto& items = value->as_array();
  for (std::size_t i = 0; i < items.size(); ++i) {
    const std::string key = ArgNode::elementPath(profile.pathOf("pluginConfig"), i);
    if (!items[i].is_table()) {
      TableReader::wrongType(diags, items[i], key, "a table");
      continue;
    }
    TableReader reader(items[i], key, diags);
    PluginConfigEntry entry;
    entry.where = locationOf(items[i]);
    entry.key = key;
    const std::optional<std::string> name = reader.string("name");
    const TomlValue* args = reader.table("args");
    reader.finish();
    if (args != nullptr) {
      entry.args = std::make_shared<const ArgNode>(*args, reader.pathOf("args"));
    }
    if (!name) {
      if (reader.find("name") == nullptr) {
        diags.error(entry.where, reader.pathOf("name"), "required field \"name\" is missing");
      }
      continue;
    }
    if (name->empty()) {
      diags.error(locationOf(*reader.find("name")), reader.pathOf("name"),
                  "plugin name must not be empty");
      continue;
    }
    entry.name = *name;
    entry.where = locationOf(*reader.find("name"));
    const auto first = std::find_if(
        out.begin(), out.end(), [&](const PluginConfigEntry& e) { return e.name == entry.name; });
    if (first != out.end()) {
      diags.error(entry.where, reader.pathOf("name"),
                  "duplicate pluginConfig for plugin " + sh::quoted(entry.name) + " (first at " +
                      first->where.str() + ")");
      continue;
    }
    out.push_back(std::move(entry));
  }
  return out;
}

}  // namespace

std::string ProfileConfig::fieldKey(std::string_view field) const {
  return ArgNode::memberPath(key, field);
}

ProfileConfig parseProfile(const TomlValue& table, const std::string& key, Diagnostics& diags) {
  ProfileConfig profile;
  profile.key = key;
  profile.where = locationOf(table);
  if (key.empty()) {
    // A whole file: point at its start rather than at the root table.
    profile.where.line = 1;
    profile.where.column = 1;
  }
  TableReader reader(table, key, diags);
  const std::optional<std::string> name = reader.string("schedulerName");
  if (!name && reader.find("schedulerName") != nullptr) {
    profile.schedulerNameRejected = true;  // of the wrong type
  }
  if (name) {
    const SourceLocation where = locationOf(*reader.find("schedulerName"));
    if (name->empty()) {
      diags.error(where, reader.pathOf("schedulerName"), "schedulerName must not be empty");
      profile.where = where;
      profile.schedulerNameRejected = true;
    } else {
      profile.schedulerName = *name;
      profile.where = where;
    }
  }
  if (const std::optional<int64_t> pct = reader.integer("percentageOfNodesToScore")) {
    if (*pct < 0 || *pct > 100) {
      diags.error(locationOf(*reader.find("percentageOfNodesToScore")),
                  reader.pathOf("percentageOfNodesToScore"),
                  "must be in the range [0, 100], got " + std::to_string(*pct));
    } else {
      profile.percentageOfNodesToScore = static_cast<int32_t>(*pct);
    }
  }
  profile.libraries = parseLibraries(reader, diags);
  if (const TomlValue* plugins = reader.table("plugins")) {
    profile.plugins = parsePlugins(*plugins, reader.pathOf("plugins"), diags);
  }
  profile.pluginConfig = parsePluginConfig(reader, diags);
  reader.finish();
  return profile;
}

std::optional<ProfileConfig> loadProfileFile(const std::filesystem::path& path,
                                             Diagnostics& diags) {
  std::optional<TomlValue> root = parseTomlFile(path, diags);
  if (!root) {
    return std::nullopt;
  }
  ProfileConfig profile = parseProfile(*root, "", diags);
  profile.where.file = path.string();
  return profile;
}

std::optional<ProfileConfig> parseProfileText(std::string_view text, const std::string& fileName,
                                              Diagnostics& diags) {
  std::optional<TomlValue> root = parseToml(text, fileName, diags);
  if (!root) {
    return std::nullopt;
  }
  ProfileConfig profile = parseProfile(*root, "", diags);
  profile.where.file = fileName;
  return profile;
}

void finalizeProfiles(std::vector<ProfileConfig>& profiles, const SourceLocation& where,
                      Diagnostics& diags) {
  if (profiles.empty()) {
    ProfileConfig profile;
    profile.schedulerName = std::string(kDefaultSchedulerName);
    profile.where = where;
    profiles.push_back(std::move(profile));
    return;
  }
  if (profiles.size() == 1 && profiles.front().schedulerName.empty()) {
    profiles.front().schedulerName = std::string(kDefaultSchedulerName);
    return;
  }
  std::map<std::string, const ProfileConfig*, std::less<>> seen;
  for (const ProfileConfig& profile : profiles) {
    if (profile.schedulerName.empty()) {
      if (profile.schedulerNameRejected || profile.nameChecked) {
        continue;
      }
      diags.error(profile.where, profile.fieldKey("schedulerName"),
                  "required field \"schedulerName\" is missing; it is required when more than "
                  "one profile is configured");
      continue;
    }
    const auto [it, inserted] = seen.emplace(profile.schedulerName, &profile);
    if (!inserted && !(profile.nameChecked && it->second->nameChecked)) {
      diags.error(profile.where, profile.fieldKey("schedulerName"),
                  "duplicate schedulerName " + sh::quoted(profile.schedulerName) +
                      " (first defined at " + it->second->where.str() + ")");
    }
  }
  for (ProfileConfig& profile : profiles) {
    profile.nameChecked = true;
  }
}

}  // namespace sh::config
