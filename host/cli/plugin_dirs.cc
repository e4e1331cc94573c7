#include "host/cli/plugin_dirs.h"

#include <cstdlib>
#include <filesystem>
#include <sstream>
#include <string_view>

#include "host/plugin/permissions.h"

namespace sh::cli {

std::vector<std::string> defaultPluginDirs() {
  std::vector<std::string> dirs;
  if (const char* env = std::getenv("SCHEDHOST_PLUGIN_DIRS"); env != nullptr && *env != '\0') {
    std::stringstream ss(env);
    std::string item;
    while (std::getline(ss, item, ':')) {
      if (!item.empty()) {
        dirs.push_back(item);
      }
    }
    return dirs;
  }
  // A binary run from its build tree uses the plugins built beside it; an installed one
  // uses the installed plugins, even on the machine it was built on.
  std::error_code ec;
  const std::filesystem::path exe = std::filesystem::read_symlink("/proc/self/exe", ec);
  if (!ec &&
      std::filesystem::is_regular_file(exe.parent_path() / SCHEDHOST_BUILD_TREE_MARKER, ec)) {
    dirs.push_back((exe.parent_path() / SCHEDHOST_BUILD_PLUGIN_RELDIR).lexically_normal().string());
  } else {
    dirs.emplace_back(SCHEDHOST_INSTALL_PLUGIN_DIR);
  }
  return dirs;
}

void allowInsecurePlugins() { plugin::disableTrustChecks(); }

static_assert(std::string_view(kInsecurePluginsFlag) == plugin::kInsecureFlag,
              "the flag the refusals quote is the flag the commands take");

}  // namespace sh::cli
