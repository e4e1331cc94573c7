// Where the host looks for plugins when nothing says otherwise, and the development flag that
// turns the plugin trust rules off.
#pragma once

#include <string>
#include <vector>

namespace sh::cli {

// $SCHEDHOST_PLUGIN_DIRS (colon-separated) when set; otherwise, for a binary that runs from
// its build tree (the marker file SCHEDHOST_BUILD_TREE_MARKER beside it), the plugins built
// beside it, found relative to the binary; for any other binary, the installed plugin
// directory. Where the binary was built plays no part.
std::vector<std::string> defaultPluginDirs();

// The flag of every command that loads plugins (run, evaluate, bench, plugin list, profile
// check): plugin files are loaded without the trust rules of host/plugin/permissions.h.
inline constexpr const char* kInsecurePluginsFlag = "--insecure-plugin-permissions";

// What the flag does: the trust rules off for the rest of the process, and a WARNING line on
// stderr saying so.
void allowInsecurePlugins();

}  // namespace sh::cli
