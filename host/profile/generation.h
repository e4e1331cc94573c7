// Generation: one complete, validated set of profiles — the frameworks a running scheduler
// schedules with, numbered from 1 and replaced as a whole on reload (docs/operations.md).
//
// A generation is built off to the side (parse, resolve, load any new library, create every
// plugin with its args, cross-profile rules) and becomes current only when all of it is valid;
// otherwise the running one stays. Cycles pin the framework they started with, so an old
// generation lives on until its last scheduling or binding cycle lets go.
#pragma once

#include <chrono>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "host/config/diagnostics.h"
#include "host/framework/host_services.h"
#include "host/profile/profile_set.h"

namespace sh::profile {

struct Generation {
  uint64_t number = 0;
  ProfileSet set;
  std::chrono::system_clock::time_point builtAt;
};
using GenerationPtr = std::shared_ptr<const Generation>;

// Builds generation `number` from `request`. nullptr when any diagnostic is an error; every
// diagnostic (warnings included) is in `diags`.
// `loadFailures`, when given, gets the number of plugin files that failed to load.
GenerationPtr buildGeneration(LoadRequest request, uint64_t number, HostServices* services,
                              config::Diagnostics& diags, std::size_t* loadFailures = nullptr);

// The default plugins of upstream's profile that `profile` runs without, each with why (not
// installed, or disabled), in one line: "profile \"x\" lacks default plugins of
// kube-scheduler v1.36: A (disabled), B (no installed file provides it)". Empty when none.
// buildGeneration logs it as a warning for every profile, at startup and at each reload.
std::string lackingDefaults(const config::ResolvedProfile& profile);

// What differs from `before` (nullptr: nothing) to `after`, sorted:
//   "<schedulerName>"          a profile added or removed, or its own settings changed
//                              (percentageOfNodesToScore);
//   "<schedulerName>/<Plugin>" a plugin enabled or disabled, or whose extension points, Score
//                              weight, args or library build changed.
std::vector<std::string> changedBetween(const Generation* before, const Generation& after);

// The effective configuration as /configz serves it (JSON): the generation, every profile's
// plugins per extension point (Score with weights) and args, and the libraries loaded.
std::string configzJson(const Generation& generation);

}  // namespace sh::profile
