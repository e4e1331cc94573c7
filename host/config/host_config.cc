#include "host/config/host_config.h"

#include <algorithm>
#include <fstream>
#include <limits>
#include <optional>
#include <sstream>
#include <system_error>
#include <utility>

#include "host/config/toml_reader.h"

namespace sh::config {

namespace {

constexpr int64_t kInt32Max = std::numeric_limits<int32_t>::max();

std::vector<std::filesystem::path> readDirs(TableReader& reader, std::string_view field,
                                            const std::filesystem::path& base) {
  std::vector<std::filesystem::path> out;
  if (const auto dirs = reader.stringArray(field)) {
    for (const std::string& dir : *dirs) {
      const std::filesystem::path p(dir);
      out.push_back(p.is_absolute() || base.empty() ? p : base / p);
    }
  }
  return out;
}

void readTopLevel(TableReader& reader, HostConfig& config, Diagnostics& diags) {
  const auto errorAt = [&](std::string_view field, std::string message) {
    diags.error(locationOf(*reader.find(field)), reader.pathOf(field), std::move(message));
  };
  if (const auto v = reader.integer("parallelism")) {
    if (*v < 0 || *v > kInt32Max) {
      errorAt("parallelism", "must be 0 (one worker per core) or more, got " + std::to_string(*v));
    } else {
      config.parallelism = static_cast<int32_t>(*v);
    }
  }
  if (const auto v = reader.integer("percentageOfNodesToScore")) {
    if (*v < 0 || *v > 100) {
      errorAt("percentageOfNodesToScore",
              "must be in the range [0, 100], got " + std::to_string(*v));
    } else {
      config.percentageOfNodesToScore = static_cast<int32_t>(*v);
    }
  }
  bool initialOk = true;
  if (const auto v = reader.integer("podInitialBackoffSeconds")) {
    if (*v <= 0) {
      errorAt("podInitialBackoffSeconds", "must be greater than 0, got " + std::to_string(*v));
      initialOk = false;
    } else {
      config.podInitialBackoffSeconds = *v;
    }
  }
  if (const auto v = reader.integer("podMaxBackoffSeconds")) {
    config.podMaxBackoffSeconds = *v;
  }
  if (initialOk && config.podMaxBackoffSeconds < config.podInitialBackoffSeconds) {
    const std::string message = "must be greater than or equal to podInitialBackoffSeconds (" +
                                std::to_string(config.podInitialBackoffSeconds) + "), got " +
                                std::to_string(config.podMaxBackoffSeconds);
    if (reader.find("podMaxBackoffSeconds") != nullptr) {
      errorAt("podMaxBackoffSeconds", message);
    } else {
      errorAt("podInitialBackoffSeconds", "must be less than or equal to podMaxBackoffSeconds (" +
                                              std::to_string(config.podMaxBackoffSeconds) +
                                              "), got " +
                                              std::to_string(config.podInitialBackoffSeconds));
    }
  }
}

void readAdmin(TableReader& top, HostConfig& config, Diagnostics& diags) {
  const TomlValue* table = top.table("admin");
  if (table == nullptr) {
    return;
  }
  TableReader reader(*table, top.pathOf("admin"), diags);
  if (auto v = reader.string("address")) {
    config.admin.address = *v;
  }
  if (auto v = reader.string("socket")) {
    config.admin.socket = *v;
  }
  reader.finish();
}

void readReload(TableReader& top, HostConfig& config, Diagnostics& diags) {
  const TomlValue* table = top.table("reload");
  if (table == nullptr) {
    return;
  }
  TableReader reader(*table, top.pathOf("reload"), diags);
  if (const TomlValue* v = reader.find("watch")) {
    if (v->is_boolean()) {
      config.reload.watch = v->as_boolean();
    } else {
      TableReader::wrongType(diags, *v, reader.pathOf("watch"), "a boolean");
    }
  }
  const auto positive = [&](std::string_view field, int64_t max, int64_t& out) {
    if (const auto v = reader.integer(field)) {
      if (*v < 0 || *v > max) {
        diags.error(
            locationOf(*reader.find(field)), reader.pathOf(field),
            "must be in the range [0, " + std::to_string(max) + "], got " + std::to_string(*v));
      } else {
        out = *v;
      }
    }
  };
  positive("debounceMilliseconds", 60'000, config.reload.debounceMilliseconds);
  positive("drainWarningSeconds", 86'400, config.reload.drainWarningSeconds);
  reader.finish();
}

void readBinding(TableReader& top, HostConfig& config, Diagnostics& diags) {
  const TomlValue* table = top.table("binding");
  if (table == nullptr) {
    return;
  }
  TableReader reader(*table, top.pathOf("binding"), diags);
  if (const auto v = reader.integer("maxConcurrent")) {
    if (*v < 1 || *v > 65'536) {
      diags.error(locationOf(*reader.find("maxConcurrent")), reader.pathOf("maxConcurrent"),
                  "must be in the range [1, 65536], got " + std::to_string(*v));
    } else {
      config.binding.maxConcurrent = static_cast<int32_t>(*v);
    }
  }
  reader.finish();
}

}  // namespace

std::vector<std::filesystem::path> listProfileFiles(const std::filesystem::path& dir,
                                                    const SourceLocation& where,
                                                    const std::string& key, Diagnostics& diags) {
  std::vector<std::filesystem::path> files;
  std::error_code ec;
  std::filesystem::directory_iterator it(dir, ec);
  if (ec) {
    diags.error(where, key,
                "cannot read profile directory \"" + dir.string() + "\": " + ec.message());
    return files;
  }
  for (const std::filesystem::directory_entry& entry : it) {
    if (entry.path().extension() == ".toml" && !entry.is_directory(ec)) {
      files.push_back(entry.path());
    }
  }
  std::sort(files.begin(), files.end(), [](const auto& a, const auto& b) {
    return a.filename().string() < b.filename().string();
  });
  return files;
}

HostConfig parseHostConfig(std::string_view text, const std::string& fileName, Diagnostics& diags) {
  HostConfig config;
  config.file = fileName;
  const SourceLocation fileStart{fileName, 1, 1};
  std::optional<TomlValue> root = parseToml(text, fileName, diags);
  if (!root) {
    config.parsed = false;
    return config;
  }
  const std::filesystem::path base = std::filesystem::path(fileName).parent_path();
  TableReader reader(*root, "", diags);
  readTopLevel(reader, config, diags);
  config.pluginDirs = readDirs(reader, "pluginDirs", base);
  config.profileDirs = readDirs(reader, "profileDirs", base);
  readAdmin(reader, config, diags);
  readReload(reader, config, diags);
  readBinding(reader, config, diags);

  if (const TomlValue* profiles = reader.array("profiles")) {
    const auto& items = profiles->as_array();
    for (std::size_t i = 0; i < items.size(); ++i) {
      const std::string key = ArgNode::elementPath("profiles", i);
      if (!items[i].is_table()) {
        TableReader::wrongType(diags, items[i], key, "a table");
        continue;
      }
      config.profiles.push_back(parseProfile(items[i], key, diags));
    }
  }
  if (const TomlValue* dirs = reader.find("profileDirs"); dirs != nullptr && dirs->is_array()) {
    const auto& items = dirs->as_array();
    for (std::size_t i = 0; i < items.size(); ++i) {
      if (!items[i].is_string()) {
        continue;  // reported by read_dirs
      }
      const std::filesystem::path dir(items[i].as_string().str);
      const std::filesystem::path resolved = dir.is_absolute() || base.empty() ? dir : base / dir;
      for (const auto& file : listProfileFiles(resolved, locationOf(items[i]),
                                               ArgNode::elementPath("profileDirs", i), diags)) {
        if (auto profile = loadProfileFile(file, diags)) {
          config.profiles.push_back(std::move(*profile));
        }
      }
    }
  }
  reader.finish();
  finalizeProfiles(config.profiles, fileStart, diags);
  return config;
}

HostConfig loadHostConfig(const std::filesystem::path& path, Diagnostics& diags) {
  std::ifstream in(path, std::ios::binary);
  if (!in) {
    diags.error(SourceLocation{path.string(), 0, 0}, {}, "cannot open file");
    HostConfig config;
    config.file = path.string();
    config.parsed = false;
    return config;
  }
  std::ostringstream buffer;
  buffer << in.rdbuf();
  return parseHostConfig(buffer.str(), path.string(), diags);
}

}  // namespace sh::config
