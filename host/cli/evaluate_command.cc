#include <iostream>

#include <boost/json.hpp>

#include "host/cli/commands.h"
#include "host/cli/json_file.h"
#include "host/cli/json_print.h"
#include "host/evaluate/evaluate.h"

namespace sh::cli {

int runEvaluate(const EvaluateArgs& args) {
  std::string error;
  auto doc = readJsonFile(args.scenario, error);
  if (!doc) {
    std::cerr << "schedhost evaluate: " << error << "\n";
    return 2;
  }
  auto scenario = evaluate::parseScenario(*doc, error);
  if (!scenario) {
    std::cerr << "schedhost evaluate: " << args.scenario << ": " << error << "\n";
    return 2;
  }
  evaluate::Options options;
  options.pluginDirs = args.pluginDirs;
  options.seed = args.seed;
  try {
    evaluate::Result result = evaluate::run(*scenario, options);
    boost::json::value out = evaluate::toJson(result);
    if (args.compact) {
      std::cout << boost::json::serialize(out) << "\n";
    } else {
      printPretty(std::cout, out);
      std::cout << "\n";
    }
  } catch (const std::exception& e) {
    std::cerr << "schedhost evaluate: " << args.scenario << ": " << e.what() << "\n";
    return 2;
  }
  return 0;
}

}  // namespace sh::cli
