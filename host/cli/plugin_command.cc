#include <iostream>

#include <boost/json.hpp>

#include "host/cli/commands.h"
#include "host/cli/json_print.h"
#include "host/plugin/inspect.h"
#include "host/plugin/points.h"
#include "host/plugin/registry.h"

namespace sh::cli {

int runPluginInspect(const std::string& file, bool json) {
  try {
    plugin::InspectReport report = plugin::inspect(file);
    if (json) {
      printPretty(std::cout, plugin::toJson(report));
      std::cout << "\n";
    } else {
      std::cout << plugin::toText(report);
    }
    return report.loadable() ? 0 : 1;
  } catch (const std::exception& e) {
    std::cerr << "schedhost plugin inspect: " << e.what() << "\n";
    return 2;
  }
}

int runPluginList(const std::vector<std::string>& pluginDirs, bool json) {
  // From the files' metadata alone: nothing is dlopened, none of a plugin's code runs. The
  // points are those .shmeta declares.
  plugin::PluginRegistry registry;
  std::vector<plugin::ScanError> errors;
  registry.indexDirs(pluginDirs, errors);
  std::vector<plugin::PluginCandidate> plugins = registry.candidates();
  if (json) {
    boost::json::array out;
    for (const plugin::PluginCandidate& p : plugins) {
      boost::json::object o;
      o["name"] = p.name;
      o["version"] = p.version;
      o["abi"] = std::to_string(p.abiMajor) + "." + std::to_string(p.abiMinor);
      boost::json::array points;
      for (const std::string& n : plugin::pointNames(p.points)) {
        points.emplace_back(n);
      }
      o["extensionPoints"] = std::move(points);
      o["path"] = p.path;
      out.push_back(std::move(o));
    }
    boost::json::object doc;
    doc["plugins"] = std::move(out);
    boost::json::array errs;
    for (const auto& e : errors) {
      errs.emplace_back(e.message);
    }
    doc["errors"] = std::move(errs);
    printPretty(std::cout, doc);
    std::cout << "\n";
  } else {
    for (const plugin::PluginCandidate& p : plugins) {
      std::cout << p.name << "\t" << p.version << "\t" << plugin::pointsToString(p.points) << "\t"
                << p.path << "\n";
    }
    for (const auto& e : errors) {
      std::cerr << "schedhost plugin list: " << e.message << "\n";
    }
  }
  return errors.empty() ? 0 : 1;
}

}  // namespace sh::cli
