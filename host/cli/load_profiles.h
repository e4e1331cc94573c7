// The profiles a scheduling command (run, bench) schedules with.
#pragma once

#include <string>
#include <vector>

#include "host/config/diagnostics.h"
#include "host/framework/host_services.h"
#include "host/profile/profile_set.h"

namespace sh::cli {

// Loads the host configuration `config` (empty: the default profile) and its profiles, with
// plugins from `pluginDirs` when the configuration names none, and creates the plugins with
// `services`. Every diagnostic is printed on stderr and kept in `diags`; the caller stops when
// diags.hasErrors().
profile::ProfileSet loadSchedulingProfiles(const std::string& config,
                                           const std::vector<std::string>& pluginDirs,
                                           HostServices* services, config::Diagnostics& diags);

}  // namespace sh::cli
