// The schedhost subcommands. Each returns the process exit code.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace sh::cli {

struct EvaluateArgs {
  std::string scenario;
  std::vector<std::string> pluginDirs;
  uint64_t seed = 0;
  bool compact = false;
};
int runEvaluate(const EvaluateArgs& args);

int runPluginInspect(const std::string& file, bool json);
int runPluginList(const std::vector<std::string>& pluginDirs, bool json);

struct ProfileCheckArgs {
  std::vector<std::string> files;
  std::vector<std::string> pluginDirs;
  bool json = false;
};
int runProfileCheck(const ProfileCheckArgs& args);

}  // namespace sh::cli
