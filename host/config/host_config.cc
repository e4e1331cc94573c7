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

std::vector<std::filesystem::path> read_dirs(TableReader& reader, std::string_view field,
                                             const std::filesystem::path& base) {
  std::vector<std::filesystem::path> out;
  if (const auto dirs = reader.string_array(field)) {
    for (const std::string& dir : *dirs) {
      const std::filesystem::path p(dir);
      out.push_back(p.is_absolute() || base.empty() ? p : base / p);
    }
  }
  return out;
}

void read_top_level(TableReader& reader, HostConfig& config, Diagnostics& diags) {
  const auto error_at = [&](std::string_view field, std::string message) {
    diags.error(location_of(*reader.find(field)), reader.path_of(field), std::move(message));
  };
  if (const auto v = reader.integer("parallelism")) {
    if (*v < 0 || *v > kInt32Max) {
      error_at("parallelism", "must be 0 (one worker per core) or more, got " + std::to_string(*v));
    } else {
      config.parallelism = static_cast<int32_t>(*v);
    }
  }
  if (const auto v = reader.integer("percentageOfNodesToScore")) {
    if (*v < 0 || *v > 100) {
      error_at("percentageOfNodesToScore",
               "must be in the range [0, 100], got " + std::to_string(*v));
    } else {
      config.percentage_of_nodes_to_score = static_cast<int32_t>(*v);
    }
  }
  bool initial_ok = true;
  if (const auto v = reader.integer("podInitialBackoffSeconds")) {
    if (*v <= 0) {
      error_at("podInitialBackoffSeconds", "must be greater than 0, got " + std::to_string(*v));
      initial_ok = false;
    } else {
      config.pod_initial_backoff_seconds = *v;
    }
  }
  if (const auto v = reader.integer("podMaxBackoffSeconds")) {
    config.pod_max_backoff_seconds = *v;
  }
  if (initial_ok && config.pod_max_backoff_seconds < config.pod_initial_backoff_seconds) {
    const std::string message = "must be greater than or equal to podInitialBackoffSeconds (" +
                                std::to_string(config.pod_initial_backoff_seconds) + "), got " +
                                std::to_string(config.pod_max_backoff_seconds);
    if (reader.find("podMaxBackoffSeconds") != nullptr) {
      error_at("podMaxBackoffSeconds", message);
    } else {
      error_at("podInitialBackoffSeconds", "must be less than or equal to podMaxBackoffSeconds (" +
                                               std::to_string(config.pod_max_backoff_seconds) +
                                               "), got " +
                                               std::to_string(config.pod_initial_backoff_seconds));
    }
  }
}

}  // namespace

std::vector<std::filesystem::path> list_profile_files(const std::filesystem::path& dir,
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

HostConfig parse_host_config(std::string_view text, const std::string& file_name,
                             Diagnostics& diags) {
  HostConfig config;
  config.file = file_name;
  const SourceLocation file_start{file_name, 1, 1};
  std::optional<TomlValue> root = parse_toml(text, file_name, diags);
  if (!root) {
    return config;
  }
  const std::filesystem::path base = std::filesystem::path(file_name).parent_path();
  TableReader reader(*root, "", diags);
  read_top_level(reader, config, diags);
  config.plugin_dirs = read_dirs(reader, "pluginDirs", base);
  config.profile_dirs = read_dirs(reader, "profileDirs", base);

  if (const TomlValue* profiles = reader.array("profiles")) {
    const auto& items = profiles->as_array();
    for (std::size_t i = 0; i < items.size(); ++i) {
      const std::string key = ArgNode::element_path("profiles", i);
      if (!items[i].is_table()) {
        TableReader::wrong_type(diags, items[i], key, "a table");
        continue;
      }
      config.profiles.push_back(parse_profile(items[i], key, diags));
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
      for (const auto& file : list_profile_files(resolved, location_of(items[i]),
                                                 ArgNode::element_path("profileDirs", i), diags)) {
        if (auto profile = load_profile_file(file, diags)) {
          config.profiles.push_back(std::move(*profile));
        }
      }
    }
  }
  reader.finish();
  finalize_profiles(config.profiles, file_start, diags);
  return config;
}

HostConfig load_host_config(const std::filesystem::path& path, Diagnostics& diags) {
  std::ifstream in(path, std::ios::binary);
  if (!in) {
    diags.error(SourceLocation{path.string(), 0, 0}, {}, "cannot open file");
    HostConfig config;
    config.file = path.string();
    return config;
  }
  std::ostringstream buffer;
  buffer << in.rdbuf();
  return parse_host_config(buffer.str(), path.string(), diags);
}

}  // namespace sh::config
