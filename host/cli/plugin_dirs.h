// Where the host looks for plugins when nothing says otherwise.
#pragma once

#include <string>
#include <vector>

namespace sh::cli {

// $SCHEDHOST_PLUGIN_DIRS (colon-separated) when set; otherwise the plugin directory of
// the build tree this binary came from when it exists, else the installed one.
std::vector<std::string> defaultPluginDirs();

}  // namespace sh::cli
