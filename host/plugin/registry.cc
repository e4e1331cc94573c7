#include "host/plugin/registry.h"

#include <algorithm>
#include <filesystem>
#include <system_error>
#include <utility>

namespace sh::plugin {

PluginRegistry::PluginRegistry(LoadOptions options) : options_(std::move(options)) {}

std::size_t PluginRegistry::indexDirs(const std::vector<std::string>& dirs,
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
        bool isNew = false;
        indexCandidate(checkPlugin(file.string(), options), options, isNew);
        added += isNew ? 1 : 0;
      } catch (const LoadError& e) {
        errors.push_back({e.path(), e.what()});
      }
    }
  }
  return added;
}

PluginCandidate PluginRegistry::indexLibrary(const std::string& path,
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
  return indexCandidate(checkPlugin(path, options), options, isNew);
}

PluginCandidate PluginRegistry::indexCandidate(PluginCandidate candidate,
                                               const LoadOptions& options, bool& added) {
  std::lock_guard<std::mutex> lock(mutex_);
  auto it = indexed_.find(candidate.name);
  if (it == indexed_.end()) {
    added = true;
    std::string name = candidate.name;
    Indexed entry{candidate, options, {}};
    indexed_.emplace(std::move(name), std::move(entry));
    return candidate;
  }
  // The same file, by this path or another (a link).
  added = false;
  const PluginCandidate& known = it->second.candidate;
  if (known.device == candidate.device && known.inode == candidate.inode) {
    return known;
  }
  throw LoadError(candidate.path, "plugin \"" + candidate.name + "\" from [" + candidate.path +
                                      "] is already provided by [" + known.path + "]");
}

std::shared_ptr<const LoadedPlugin> PluginRegistry::load(std::string_view name) {
  Indexed entry;
  {
    std::lock_guard<std::mutex> lock(mutex_);
    if (auto loaded = byName_.find(name); loaded != byName_.end()) {
      return loaded->second;
    }
    auto it = indexed_.find(name);
    if (it == indexed_.end()) {
      return nullptr;
    }
    if (!it->second.failure.empty()) {
      throw LoadError(it->second.candidate.path, it->second.failure);
    }
    entry = it->second;
  }
  std::shared_ptr<const LoadedPlugin> plugin;
  try {
    plugin = loadPlugin(entry.candidate.path, entry.options);
    if (plugin->name != name) {
      // Replaced by rename since it was indexed: refused rather than registered under a name
      // no profile resolution saw.
      throw LoadError(entry.candidate.path, "plugin [" + entry.candidate.path + "]: provides \"" +
                                                plugin->name + "\" now, not \"" +
                                                std::string(name) + "\" as when it was scanned");
    }
  } catch (const LoadError& e) {
    std::lock_guard<std::mutex> lock(mutex_);
    if (auto it = indexed_.find(name); it != indexed_.end()) {
      it->second.failure = e.what();
    }
    throw;
  }
  return registerPlugin(std::move(plugin));
}

std::size_t PluginRegistry::scanDirs(const std::vector<std::string>& dirs,
                                     std::vector<ScanError>& errors) {
  indexDirs(dirs, errors);
  std::size_t added = 0;
  for (const PluginCandidate& c : candidates()) {
    if (find(c.name) != nullptr) {
      continue;
    }
    try {
      added += load(c.name) != nullptr ? 1 : 0;
    } catch (const LoadError& e) {
      errors.push_back({e.path(), e.what()});
    }
  }
  return added;
}

std::shared_ptr<const LoadedPlugin> PluginRegistry::add(const std::string& path,
                                                        const std::string& expectedSha256) {
  return load(indexLibrary(path, expectedSha256).name);
}

std::shared_ptr<const LoadedPlugin> PluginRegistry::registerPlugin(
    std::shared_ptr<const LoadedPlugin> plugin) {
  std::lock_guard<std::mutex> lock(mutex_);
  // A concurrent load of the same plugin registered first; both share one resident library.
  return byName_.emplace(plugin->name, plugin).first->second;
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

std::optional<PluginCandidate> PluginRegistry::candidate(std::string_view name) const {
  std::lock_guard<std::mutex> lock(mutex_);
  auto it = indexed_.find(name);
  if (it == indexed_.end()) {
    return std::nullopt;
  }
  return it->second.candidate;
}

std::vector<PluginCandidate> PluginRegistry::candidates() const {
  std::lock_guard<std::mutex> lock(mutex_);
  std::vector<PluginCandidate> out;
  out.reserve(indexed_.size());
  for (const auto& entry : indexed_) {
    out.push_back(entry.second.candidate);
  }
  return out;
}

bool PluginRegistry::loadFailed(std::string_view name) const {
  std::lock_guard<std::mutex> lock(mutex_);
  auto it = indexed_.find(name);
  return it != indexed_.end() && !it->second.failure.empty();
}

}  // namespace sh::plugin
