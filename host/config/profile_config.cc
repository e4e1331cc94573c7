#include "host/config/profile_config.h"

#include <algorithm>
#include <cctype>
#include <limits>
#include <map>
#include <utility>

#include "host/config/toml_reader.h"

namespace sh::config {

namespace {

std::string in_quotes(std::string_view s) { return "\"" + std::string(s) + "\""; }

bool is_hex64(std::string_view s) {
  return s.size() == 64 && std::all_of(s.begin(), s.end(), [](char c) {
           return std::isxdigit(static_cast<unsigned char>(c)) != 0;
         });
}

// One { name = "...", weight = N } entry; nullopt when it has no usable name.
std::optional<PluginRef> parse_plugin_ref(const TomlValue& value, const std::string& key,
                                          Diagnostics& diags) {
  if (!value.is_table()) {
    TableReader::wrong_type(diags, value, key, "a table { name = \"...\", weight = N }");
    return std::nullopt;
  }
  TableReader reader(value, key, diags);
  PluginRef ref;
  ref.where = location_of(value);
  ref.key = key;
  const std::optional<std::string> name = reader.string("name");
  const std::optional<int64_t> weight = reader.integer("weight");
  reader.finish();
  if (weight) {
    if (*weight < 0) {
      const TomlValue* w = reader.find("weight");
      diags.error(location_of(*w), reader.path_of("weight"),
                  "weight must not be negative, got " + std::to_string(*weight));
    } else {
      ref.weight = *weight;
    }
  }
  if (!name) {
    if (reader.find("name") == nullptr) {
      diags.error(ref.where, reader.path_of("name"), "required field \"name\" is missing");
    }
    return std::nullopt;
  }
  if (name->empty()) {
    diags.error(location_of(*reader.find("name")), reader.path_of("name"),
                "plugin name must not be empty");
    return std::nullopt;
  }
  ref.name = *name;
  return ref;
}

std::vector<PluginRef> parse_plugin_list(TableReader& set, std::string_view list,
                                         Diagnostics& diags) {
  std::vector<PluginRef> out;
  const TomlValue* value = set.array(list);
  if (value == nullptr) {
    return out;
  }
  const std::string key = set.path_of(list);
  const auto& items = value->as_array();
  for (std::size_t i = 0; i < items.size(); ++i) {
    if (auto ref = parse_plugin_ref(items[i], ArgNode::element_path(key, i), diags)) {
      out.push_back(std::move(*ref));
    }
  }
  return out;
}

PluginSet parse_plugin_set(const TomlValue& value, const std::string& key, Diagnostics& diags) {
  TableReader reader(value, key, diags);
  PluginSet set;
  set.enabled = parse_plugin_list(reader, "enabled", diags);
  set.disabled = parse_plugin_list(reader, "disabled", diags);
  reader.finish();
  return set;
}

Plugins parse_plugins(const TomlValue& value, const std::string& key, Diagnostics& diags) {
  TableReader reader(value, key, diags);
  Plugins plugins;
  for (ExtensionPoint point : kAllExtensionPoints) {
    if (const TomlValue* set = reader.table(config_key(point))) {
      plugins.at(point) = parse_plugin_set(*set, reader.path_of(config_key(point)), diags);
    }
  }
  if (const TomlValue* set = reader.table(kMultiPointKey)) {
    plugins.multi_point = parse_plugin_set(*set, reader.path_of(kMultiPointKey), diags);
  }
  reader.finish();
  return plugins;
}

std::vector<LibraryRef> parse_libraries(TableReader& profile, Diagnostics& diags) {
  std::vector<LibraryRef> out;
  const TomlValue* value = profile.array("libraries");
  if (value == nullptr) {
    return out;
  }
  const auto& items = value->as_array();
  for (std::size_t i = 0; i < items.size(); ++i) {
    const std::string key = ArgNode::element_path(profile.path_of("libraries"), i);
    if (!items[i].is_table()) {
      TableReader::wrong_type(diags, items[i], key, "a table");
      continue;
    }
    TableReader reader(items[i], key, diags);
    LibraryRef library;
    library.where = location_of(items[i]);
    library.key = key;
    const std::optional<std::string> path = reader.string("path");
    const std::optional<std::string> sha256 = reader.string("sha256");
    reader.finish();
    bool ok = true;
    if (!path) {
      if (reader.find("path") == nullptr) {
        diags.error(library.where, reader.path_of("path"), "required field \"path\" is missing");
      }
      ok = false;
    } else if (!std::filesystem::path(*path).is_absolute()) {
      diags.error(location_of(*reader.find("path")), reader.path_of("path"),
                  "library path " + in_quotes(*path) + " must be absolute");
      ok = false;
    } else {
      library.path = *path;
    }
    if (sha256) {
      if (!is_hex64(*sha256)) {
        diags.error(location_of(*reader.find("sha256")), reader.path_of("sha256"),
                    "sha256 " + in_quotes(*sha256) + " must be 64 hexadecimal digits");
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

std::vector<PluginConfigEntry> parse_plugin_config(TableReader& profile, Diagnostics& diags) {
  std::vector<PluginConfigEntry> out;
  const TomlValue* value = profile.array("pluginConfig");
  if (value == nullptr) {
    return out;
  }
  const auto& items = value->as_array();
  for (std::size_t i = 0; i < items.size(); ++i) {
    const std::string key = ArgNode::element_path(profile.path_of("pluginConfig"), i);
    if (!items[i].is_table()) {
      TableReader::wrong_type(diags, items[i], key, "a table");
      continue;
    }
    TableReader reader(items[i], key, diags);
    PluginConfigEntry entry;
    entry.where = location_of(items[i]);
    entry.key = key;
    const std::optional<std::string> name = reader.string("name");
    const TomlValue* args = reader.table("args");
    reader.finish();
    if (args != nullptr) {
      entry.args = std::make_shared<const ArgNode>(*args, reader.path_of("args"));
    }
    if (!name) {
      if (reader.find("name") == nullptr) {
        diags.error(entry.where, reader.path_of("name"), "required field \"name\" is missing");
      }
      continue;
    }
    if (name->empty()) {
      diags.error(location_of(*reader.find("name")), reader.path_of("name"),
                  "plugin name must not be empty");
      continue;
    }
    entry.name = *name;
    entry.where = location_of(*reader.find("name"));
    const auto first = std::find_if(
        out.begin(), out.end(), [&](const PluginConfigEntry& e) { return e.name == entry.name; });
    if (first != out.end()) {
      diags.error(entry.where, reader.path_of("name"),
                  "duplicate pluginConfig for plugin " + in_quotes(entry.name) + " (first at " +
                      first->where.str() + ")");
      continue;
    }
    out.push_back(std::move(entry));
  }
  return out;
}

}  // namespace

std::string ProfileConfig::field_key(std::string_view field) const {
  return ArgNode::member_path(key, field);
}

ProfileConfig parse_profile(const TomlValue& table, const std::string& key, Diagnostics& diags) {
  ProfileConfig profile;
  profile.key = key;
  profile.where = location_of(table);
  if (key.empty()) {
    // A whole file: point at its start rather than at the root table.
    profile.where.line = 1;
    profile.where.column = 1;
  }
  TableReader reader(table, key, diags);
  const std::optional<std::string> name = reader.string("schedulerName");
  if (!name && reader.find("schedulerName") != nullptr) {
    profile.scheduler_name_rejected = true;  // of the wrong type
  }
  if (name) {
    const SourceLocation where = location_of(*reader.find("schedulerName"));
    if (name->empty()) {
      diags.error(where, reader.path_of("schedulerName"), "schedulerName must not be empty");
      profile.where = where;
      profile.scheduler_name_rejected = true;
    } else {
      profile.scheduler_name = *name;
      profile.where = where;
    }
  }
  if (const std::optional<int64_t> pct = reader.integer("percentageOfNodesToScore")) {
    if (*pct < 0 || *pct > 100) {
      diags.error(location_of(*reader.find("percentageOfNodesToScore")),
                  reader.path_of("percentageOfNodesToScore"),
                  "must be in the range [0, 100], got " + std::to_string(*pct));
    } else {
      profile.percentage_of_nodes_to_score = static_cast<int32_t>(*pct);
    }
  }
  profile.libraries = parse_libraries(reader, diags);
  if (const TomlValue* plugins = reader.table("plugins")) {
    profile.plugins = parse_plugins(*plugins, reader.path_of("plugins"), diags);
  }
  profile.plugin_config = parse_plugin_config(reader, diags);
  reader.finish();
  return profile;
}

std::optional<ProfileConfig> load_profile_file(const std::filesystem::path& path,
                                               Diagnostics& diags) {
  std::optional<TomlValue> root = parse_toml_file(path, diags);
  if (!root) {
    return std::nullopt;
  }
  ProfileConfig profile = parse_profile(*root, "", diags);
  profile.where.file = path.string();
  return profile;
}

std::optional<ProfileConfig> parse_profile_text(std::string_view text, const std::string& file_name,
                                                Diagnostics& diags) {
  std::optional<TomlValue> root = parse_toml(text, file_name, diags);
  if (!root) {
    return std::nullopt;
  }
  ProfileConfig profile = parse_profile(*root, "", diags);
  profile.where.file = file_name;
  return profile;
}

void finalize_profiles(std::vector<ProfileConfig>& profiles, const SourceLocation& where,
                       Diagnostics& diags) {
  if (profiles.empty()) {
    ProfileConfig profile;
    profile.scheduler_name = std::string(kDefaultSchedulerName);
    profile.where = where;
    profiles.push_back(std::move(profile));
    return;
  }
  if (profiles.size() == 1 && profiles.front().scheduler_name.empty()) {
    profiles.front().scheduler_name = std::string(kDefaultSchedulerName);
    return;
  }
  std::map<std::string, const ProfileConfig*, std::less<>> seen;
  for (const ProfileConfig& profile : profiles) {
    if (profile.scheduler_name.empty()) {
      if (profile.scheduler_name_rejected) {
        continue;
      }
      diags.error(profile.where, profile.field_key("schedulerName"),
                  "required field \"schedulerName\" is missing; it is required when more than "
                  "one profile is configured");
      continue;
    }
    const auto [it, inserted] = seen.emplace(profile.scheduler_name, &profile);
    if (!inserted) {
      diags.error(profile.where, profile.field_key("schedulerName"),
                  "duplicate schedulerName " + in_quotes(profile.scheduler_name) +
                      " (first defined at " + it->second->where.str() + ")");
    }
  }
}

}  // namespace sh::config
