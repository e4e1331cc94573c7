// The plugins a host process has loaded, by name.
//
// Plugins come from two places: the plugin directories scanned at startup (every *.so in
// them, not recursive, in name order) and the [[libraries]] a profile lists (one path each,
// optionally pinned by sha256). Both are held to the trust rules (permissions.h), with the
// directory scanned, or the directory a library is named in, as the plugin directory a
// symbolic link must not lead out of. A plugin name belongs to one file: the same name from a
// different file is refused, with both files quoted. Loading the same file twice is fine and
// yields the plugin already registered.
//
// Thread-safe. Plugins are never removed; see loader.h for why libraries stay resident.
#pragma once

#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <string_view>
#include <vector>

#include "host/plugin/loader.h"
#include "host/plugin/points.h"

namespace sh::plugin {

// One file that could not be loaded during a scan.
struct ScanError {
  std::string path;     // the file (or directory) concerned
  std::string message;  // the full message, which quotes `path` itself
};

class PluginRegistry {
 public:
  // `options` apply to every load; add() may add a sha256 pin.
  explicit PluginRegistry(LoadOptions options = {});

  // Loads every *.so directly inside each of `dirs`, sorted by file name, directory by
  // directory. Failures (a missing directory, a refused file, a duplicate name) are appended
  // to `errors`; the scan goes on. Returns the number of plugins newly registered.
  std::size_t scanDirs(const std::vector<std::string>& dirs, std::vector<ScanError>& errors);

  // Loads the plugin at `path`, pinned to `expectedSha256` unless it is "". Throws LoadError,
  // including for a name already registered from another file:
  //   plugin "NodeName" from [/b/libx.so] is already loaded from [/a/liby.so]
  std::shared_ptr<const LoadedPlugin> add(const std::string& path,
                                          const std::string& expectedSha256 = "");

  // The plugin named `name`, or nullptr.
  std::shared_ptr<const LoadedPlugin> find(std::string_view name) const;
  // Every plugin, sorted by name.
  std::vector<std::shared_ptr<const LoadedPlugin>> all() const;

 private:
  std::shared_ptr<const LoadedPlugin> registerPlugin(std::shared_ptr<const LoadedPlugin> plugin,
                                                     bool& added);

  LoadOptions options_;
  mutable std::mutex mutex_;
  std::map<std::string, std::shared_ptr<const LoadedPlugin>, std::less<>> byName_;
};

}  // namespace sh::plugin
