// VolumeBindingArgs: bindTimeoutSeconds (default 600) and shape, validated as upstream's
// ValidateVolumeBindingArgsWithOptions does with the StorageCapacityScoring gate at its v1.36
// default (alpha, off): shape must then be absent.
#ifndef SCHEDHOST_PLUGINS_VOLUMEBINDING_ARGS_H
#define SCHEDHOST_PLUGINS_VOLUMEBINDING_ARGS_H

#include <schedhost/plugin.hpp>

#include <cstdint>

namespace schedhost::plugins::volumebinding {

inline constexpr const char* kDefaultArgs = R"({"bindTimeoutSeconds":600})";

struct VolumeBindingArgs {
  int64_t bindTimeoutSeconds = 600;
};

// Reads and validates the args; problems are reported through `args` (the plugin then fails
// to create) and the result is only meaningful when none were.
VolumeBindingArgs parseArgs(const Args& args);

}  // namespace schedhost::plugins::volumebinding

#endif  // SCHEDHOST_PLUGINS_VOLUMEBINDING_ARGS_H
