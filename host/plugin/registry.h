// The plugins a host process knows, by name: first as candidates read from their files, then,
// for the plugins a profile enables, loaded.
//
// Plugins come from two places: the plugin directories scanned at startup (every *.so in
// them, not recursive, in name order) and the [[libraries]] a profile lists (one path each,
// optionally pinned by sha256). Both are held to the trust rules (permissions.h), with the
// directory scanned, or the directory a library is named in, as the plugin directory a
// symbolic link must not lead out of. A plugin name belongs to one file: the same name from a
// different file is refused, with both files quoted. The same file found twice is fine and
// yields the plugin already known.
//
// Indexing (indexDirs, indexLibrary) reads each file's ELF metadata and runs every check that
// needs no plugin code (checkPlugin, loader.h): nothing is dlopened, no constructor runs. A
// plugin's library is dlopened only by load(name), so a process loads exactly the plugins
// it uses; `plugin list` and `plugin inspect` load none.
//
// Thread-safe. Plugins are never removed; see loader.h for why libraries stay resident.
#pragma once

#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "host/plugin/loader.h"
#include "host/plugin/points.h"

namespace sh::plugin {

// One file that could not be indexed or loaded.
struct ScanError {
  std::string path;     // the file (or directory) concerned
  std::string message;  // the full message, which quotes `path` itself
};

class PluginRegistry {
 public:
  // `options` apply to every load; indexLibrary() may add a sha256 pin.
  explicit PluginRegistry(LoadOptions options = {});

  // Indexes every *.so directly inside each of `dirs`, sorted by file name, directory by
  // directory, without running any of them. Failures (a missing directory, a refused file, a
  // duplicate name) are appended to `errors`; the scan goes on. Returns the number of plugin
  // names newly indexed.
  std::size_t indexDirs(const std::vector<std::string>& dirs, std::vector<ScanError>& errors);

  // Indexes the plugin at `path`, pinned to `expectedSha256` unless it is "", without running
  // it. Throws LoadError, including for a name already indexed from another file:
  //   plugin "NodeName" from [/b/libx.so] is already provided by [/a/liby.so]
  PluginCandidate indexLibrary(const std::string& path, const std::string& expectedSha256 = "");

  // The plugin `name`, dlopened on first use from the file that provides it. nullptr when no
  // file provides it; throws LoadError when its file is refused (the refusal is remembered:
  // the file is not tried again).
  std::shared_ptr<const LoadedPlugin> load(std::string_view name);

  // indexDirs, then load every plugin indexed: what a tool that wants them all does.
  std::size_t scanDirs(const std::vector<std::string>& dirs, std::vector<ScanError>& errors);
  // indexLibrary, then load it.
  std::shared_ptr<const LoadedPlugin> add(const std::string& path,
                                          const std::string& expectedSha256 = "");

  // The loaded plugin named `name`, or nullptr (also when it is indexed but not loaded).
  std::shared_ptr<const LoadedPlugin> find(std::string_view name) const;
  // Every loaded plugin, sorted by name.
  std::vector<std::shared_ptr<const LoadedPlugin>> all() const;

  // The indexed plugin named `name`, loaded or not, as its file describes it; nullopt when no
  // file provides it.
  std::optional<PluginCandidate> candidate(std::string_view name) const;
  // Every indexed plugin, sorted by name.
  std::vector<PluginCandidate> candidates() const;
  // Whether load(name) was refused.
  bool loadFailed(std::string_view name) const;

 private:
  struct Indexed {
    PluginCandidate candidate;
    LoadOptions options;  // what it was checked with, and is loaded with
    std::string failure;  // the refusal of its load, once one failed
  };

  // Adds a checked file under its name; throws LoadError for a name of another file.
  PluginCandidate indexCandidate(PluginCandidate candidate, const LoadOptions& options,
                                 bool& added);
  std::shared_ptr<const LoadedPlugin> registerPlugin(std::shared_ptr<const LoadedPlugin> plugin);

  LoadOptions options_;
  mutable std::mutex mutex_;
  std::map<std::string, Indexed, std::less<>> indexed_;
  std::map<std::string, std::shared_ptr<const LoadedPlugin>, std::less<>> byName_;
};

}  // namespace sh::plugin
