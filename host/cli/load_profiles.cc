#include "host/cli/load_profiles.h"

#include <iostream>

namespace sh::cli {

profile::ProfileSet loadSchedulingProfiles(const std::string& config,
                                           const std::vector<std::string>& pluginDirs,
                                           HostServices* services, config::Diagnostics& diags) {
  profile::LoadRequest req;
  req.hostConfigFile = config;
  req.defaultPluginDirs = pluginDirs;
  profile::ProfileSet set = profile::load(req, services, diags);
  std::cerr << diags.str();
  return set;
}

}  // namespace sh::cli
