// schedhost config convert: schedhost TOML to kube-scheduler's KubeSchedulerConfiguration
// (YAML) and back, for an operator moving a configuration between the two schedulers.
#include <iostream>
#include <optional>
#include <string>

#include "host/cli/commands.h"
#include "host/config/diagnostics.h"
#include "host/config/kube_scheduler_configuration.h"
#include "host/config/toml_reader.h"

namespace sh::cli {

int runConfigConvert(const ConfigConvertArgs& args) {
  config::Diagnostics diags;
  std::optional<std::string> text = config::readConfigFile(args.file, diags);
  if (!text) {
    std::cerr << diags.str();
    return 1;
  }
  const config::ConfigFormat from = config::detectConfigFormat(*text, args.file);
  const std::string to =
      !args.to.empty() ? args.to : (from == config::ConfigFormat::kToml ? "yaml" : "toml");
  std::optional<std::string> out;
  if (from == config::ConfigFormat::kToml && to == "yaml") {
    out = config::tomlToKubeSchedulerConfiguration(*text, args.file, diags);
  } else if (from == config::ConfigFormat::kKubeSchedulerConfiguration && to == "toml") {
    if (auto translated = config::translateKubeSchedulerConfiguration(*text, args.file, diags,
                                                                      /*explicitDefaults=*/true)) {
      out = "# schedhost.toml converted from the KubeSchedulerConfiguration " + args.file + "\n" +
            translated->toml;
    }
  } else {
    std::cerr << "schedhost config convert: " << args.file << " is already "
              << (to == "toml" ? "TOML" : "a KubeSchedulerConfiguration") << "\n";
    return 2;
  }
  std::cerr << diags.str();
  if (!out || diags.hasErrors()) {
    return 1;
  }
  std::cout << *out;
  return 0;
}

}  // namespace sh::cli
