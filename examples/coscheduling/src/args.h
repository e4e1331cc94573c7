// CoschedulingArgs: the plugin's pluginConfig args, with the names, defaults and checks of
// scheduler-plugins' apis/config (types.go CoschedulingArgs, v1/defaults.go,
// validation/validation_pluginargs.go ValidateCoschedulingArgs).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace coscheduling {

struct CoschedulingArgs {
  // How long Permit holds a member when its PodGroup sets no scheduleTimeoutSeconds.
  int64_t permitWaitingTimeSeconds = 60;
  // After a member fails with the whole group present, PreFilter turns the group away this
  // long; 0: never.
  int64_t podGroupBackoffSeconds = 0;
  // PostFilter leaves the group's waiting members alone while the members still missing are at
  // most this share of minMember (0-100).
  int64_t podGroupRejectPercentage = 10;
};

// The defaults, as the descriptor's default args (merged under the profile's).
inline constexpr const char* kDefaultArgs =
    R"({"permitWaitingTimeSeconds": 60, "podGroupBackoffSeconds": 0, )"
    R"("podGroupRejectPercentage": 10})";

// One problem with the args: the field and the message after "<field>: ".
struct ArgsError {
  std::string field;
  std::string message;
};

// Upstream's checks, in its order; empty when the args are valid.
std::vector<ArgsError> validate(const CoschedulingArgs& args);

}  // namespace coscheduling
