#include "host/plugin/registry.h"

#include <algorithm>
#include <filesystem>
#include <system_error>
#include <utility>

namespace sh::plugin {

PluginRegistry::PluginRegistry(LoadOptions options) : options_(std::move(options)) {}

std::size_t PluginRegistry::scanDirs(const std::vector<std::string>& dirs,
                                     std::vector<ScanError>& errors) {
  std::size_t added = 0;
  for (const std::string& dir : dirs) {
    std::error_code ec;
    std::filesystem::path absolute = std::filesystem::absolute(dir, ec).lexically_normal();
    std::string shown = ec ? dir : absolute.string();
    if (!std::filesystem::is_directory(absolute, ec)) {
      errors.push_back({shown, "plugin directory [" + shown + "]: " +
                                   (ec && ec != std::errc::no_such_file_or_directory
                                        ? ec.message()
                                        : std::string("no such directory"))});
      continue;
    }
    std::vector<std::filesystem::path> files;
    std::filesystem::directory_iterator it(absolute, ec);
    for (; !ec && it != std::filesystem::directory_iterator(); it.increment(ec)) {
      const std::filesystem::path& file = it->path();
      if (file.extension() == ".so") {
        files.push_back(file);
      }
    }
    if (ec) {
      errors.push_back({shown, "plugin directory [" + shown + "]: cannot list: " + ec.message()});
      continue;
    }
    std::sort(files.begin(), files.end(),
              [](const auto& a, const auto& b) { return a.filename() < b.filename(); });
    // Every file found here must stay here (permissions.h).
    LoadOptions options = options_;
    options.trust.pluginRoot = std::filesystem::canonical(absolute, ec).string();
    for (const std::filesystem::path& file : files) {
      try {
        auto plugin = loadPlugin(file.string(), options);
        bool isNew = false;
        registerPlugin(std::move(plugin), isNew);
        added += isNew ? 1 : 0;
      } catch (const LoadError& e) {
        errors.push_back({e.path(), e.what()});
      }
    }
  }
  return added;
}

std::shared_ptr<const LoadedPlugin> PluginRegistry::add(const std::string& path,
                                                        const std::string& expectedSha256) {
  LoadOptions options = options_;
  if (!expectedSha256.empty()) {
    options.expectedSha256 = expectedSha256;
  }
  // A file named on its own must stay in the directory it is named in (permissions.h).
  std::error_code ec;
  std::filesystem::path parent = std::filesystem::absolute(path, ec).lexically_normal();
  if (!ec) {
    std::filesystem::path root = std::filesystem::canonical(parent.parent_path(), ec);
    options.trust.pluginRoot = ec ? std::string() : root.string();
  }
  bool isNew = false;
  return registerPlugin(loadPlugin(path, options), isNew);
}

std::shared_ptr<const LoadedPlugin> PluginRegistry::registerPlugin(
    std::shared_ptr<const LoadedPlugin> plugin, bool& added) {
  std::lock_guard<std::mutex> lock(mutex_);
  auto it = byName_.find(plugin->name);
  if (it == byName_.end()) {
    added = true;
    byName_.emplace(plugin->name, plugin);
    return plugin;
  }
  // The same file, by this path or another (a link): both share one resident library.
  if (it->second->library == plugin->library) {
    added = false;
    return it->second;
  }
  throw LoadError(plugin->path, "plugin \"" + plugin->name + "\" from [" + plugin->path +
                                    "] is already loaded from [" + it->second->path + "]");
}

std::shared_ptr<const LoadedPlugin> PluginRegistry::find(std::string_view name) const {
  std::lock_guard<std::mutex> lock(mutex_);
  auto it = byName_.find(name);
  return it == byName_.end() ? nullptr : it->second;
}

std::vector<std::shared_ptr<const LoadedPlugin>> PluginRegistry::all() const {
  std::lock_guard<std::mutex> lock(mutex_);
  std::vector<std::shared_ptr<const LoadedPlugin>> out;
  out.reserve(byName_.size());
  for (const auto& entry : byName_) {
    out.push_back(entry.second);
  }
  return out;
}

}  // namespace sh::plugin
