#include <iostream>
#include <optional>
#include <sstream>

#include <boost/json.hpp>

#include "host/cli/commands.h"
#include "host/cli/json_print.h"
#include "host/common/limits.h"
#include "host/common/regular_file.h"
#include "host/config/feature_gates.h"
#include "host/config/kube_scheduler_configuration.h"
#include "host/config/profile_printer.h"
#include "host/framework/host_services.h"
#include "host/profile/profile_set.h"
#include "host/profile/registry_catalog.h"

namespace sh::cli {
namespace {

// A host configuration names no schedulerName at the top level; a profile file does, or is
// a plain plugin set. Decided by the keys a host configuration alone may have.
// A file that cannot be read says no here; loading it then reports why.
bool looksLikeHostConfig(const std::string& path) {
  std::string error;
  std::optional<std::string> text = readRegularFile(path, limits::kMaxConfigFileBytes, error);
  if (!text) {
    return false;
  }
  if (config::detectConfigFormat(*text, path) ==
      config::ConfigFormat::kKubeSchedulerConfiguration) {
    return true;  // a KubeSchedulerConfiguration is always a whole configuration
  }
  std::istringstream in(*text);
  std::string line;
  while (std::getline(in, line)) {
    std::size_t i = line.find_first_not_of(" \t");
    if (i == std::string::npos || line[i] == '#') {
      continue;
    }
    for (const char* key : {"pluginDirs", "profileDirs", "parallelism", "[[profiles]]",
                            "podInitialBackoffSeconds", "podMaxBackoffSeconds"}) {
      if (line.compare(i, std::string(key).size(), key) == 0) {
        return true;
      }
    }
  }
  return false;
}

}  // namespace

int runProfileCheck(const ProfileCheckArgs& args) {
  std::string gateError;
  std::optional<config::FeatureGates> gates =
      config::FeatureGates::parse(args.featureGates, gateError);
  if (!gates) {
    std::cerr << "schedhost profile check: --feature-gates: " << gateError << "\n";
    return 1;
  }
  config::setProcessFeatureGates(std::move(*gates));
  profile::LoadRequest req;
  for (const std::string& f : args.files) {
    if (req.hostConfigFile.empty() && looksLikeHostConfig(f)) {
      req.hostConfigFile = f;
    } else {
      req.profileFiles.push_back(f);
    }
  }
  req.defaultPluginDirs = args.pluginDirs;
  NullHostServices services;
  config::Diagnostics diags;
  profile::ProfileSet set = profile::load(req, &services, diags);
  std::cerr << diags.str();
  if (diags.hasErrors()) {
    std::cerr << "schedhost profile check: " << diags.errorCount() << " error(s)\n";
    return 1;
  }
  if (args.json) {
    boost::json::array out;
    for (std::size_t i = 0; i < set.resolved.size(); ++i) {
      out.push_back(args.expanded || i >= set.host.profiles.size()
                        ? config::toJson(set.resolved[i])
                        : config::toUpstreamJson(set.host.profiles[i], set.resolved[i],
                                                 profile::RegistryCatalog(*set.registry)));
    }
    printPretty(std::cout, out);
    std::cout << "\n";
  } else {
    for (const auto& rp : set.resolved) {
      std::cout << config::describe(rp) << "\n";
    }
  }
  return 0;
}

}  // namespace sh::cli
