// schedhost explain: why a pod is pending (docs/explaining-decisions.md). Of a running
// scheduler (its admin endpoint's /debug/pods/NAMESPACE/NAME) or of a scenario file (evaluated
// here, with the what-if list); printed as a summary, as JSON, and with --html as a page.
#include <cctype>
#include <fstream>
#include <iostream>

#include <boost/json.hpp>

#include "host/cli/commands.h"
#include "host/cli/json_file.h"
#include "host/cli/json_print.h"
#include "host/evaluate/evaluate.h"
#include "host/explain/explanation.h"
#include "host/explain/html_page.h"
#include "host/explain/summary.h"
#include "host/explain/what_if.h"

namespace sh::cli {
namespace {

constexpr const char* kPrefix = "schedhost explain";
constexpr int kExitNotKnown = 1;
constexpr int kExitBadInput = 2;

std::optional<explain::Explanation> fromScenario(const ExplainArgs& args) {
  std::string error;
  auto doc = readJsonFile(args.scenario, error);
  if (!doc) {
    std::cerr << kPrefix << ": " << error << "\n";
    return std::nullopt;
  }
  auto scenario = evaluate::parseScenario(*doc, error);
  if (!scenario) {
    std::cerr << kPrefix << ": " << args.scenario << ": " << error << "\n";
    return std::nullopt;
  }
  evaluate::Options options;
  options.pluginDirs = args.pluginDirs;
  options.seed = args.seed;
  try {
    evaluate::Result result = evaluate::run(*scenario, options);
    explain::Explanation e = explain::fromEvaluation(result, "scenario " + args.scenario);
    if (args.whatIf) {
      e.whatIfs = explain::whatIfs(*scenario, result, options, {}, &e.whatIfNote);
    }
    return e;
  } catch (const std::exception& ex) {
    std::cerr << kPrefix << ": " << args.scenario << ": " << ex.what() << "\n";
    return std::nullopt;
  }
}

// "ns/name" -> "/debug/pods/ns/name"; nullopt when it is not NAMESPACE/NAME.
std::optional<std::string> debugPath(const std::string& pod) {
  const auto slash = pod.find('/');
  if (slash == std::string::npos || slash == 0 || slash + 1 == pod.size() ||
      pod.find('/', slash + 1) != std::string::npos) {
    return std::nullopt;
  }
  for (char c : pod) {
    // Object names are DNS labels and subdomains: nothing here needs escaping in a path.
    if (!(std::isalnum(static_cast<unsigned char>(c)) || c == '-' || c == '.' || c == '/')) {
      return std::nullopt;
    }
  }
  return "/debug/pods/" + pod;
}

}  // namespace

int runExplain(const ExplainArgs& args) {
  std::optional<explain::Explanation> e;
  if (!args.scenario.empty()) {
    if (!args.pod.empty()) {
      std::cerr << kPrefix << ": give a pod or --scenario, not both\n";
      return kExitBadInput;
    }
    e = fromScenario(args);
    if (!e) {
      return kExitBadInput;
    }
  } else {
    auto path = debugPath(args.pod);
    if (!path) {
      std::cerr << kPrefix << ": \"" << args.pod
                << "\" is not NAMESPACE/NAME (or give --scenario FILE)\n";
      return kExitBadInput;
    }
    int status = 0;
    auto body = adminGet(args.target, *path, args.timeoutSeconds, kPrefix, &status);
    if (!body) {
      return status == 404 ? kExitNotKnown : kExitBadInput;
    }
    boost::system::error_code ec;
    boost::json::value doc = boost::json::parse(*body, ec);
    std::string error;
    if (!ec) {
      e = explain::fromJson(doc, error);
    } else {
      error = ec.message();
    }
    if (!e) {
      std::cerr << kPrefix << ": the scheduler's answer for " << args.pod
                << " is not an explanation: " << error << "\n";
      return kExitBadInput;
    }
  }
  if (args.html == "-") {
    std::cout << explain::htmlPage(*e);  // the page alone (kubectl schedhost explain --html)
    return std::cout ? 0 : kExitBadInput;
  }
  if (!args.html.empty()) {
    std::ofstream out(args.html, std::ios::binary | std::ios::trunc);
    out << explain::htmlPage(*e);
    out.close();
    if (!out) {
      std::cerr << kPrefix << ": cannot write " << args.html << "\n";
      return kExitBadInput;
    }
  }
  if (args.json) {
    printPretty(std::cout, explain::toJson(*e));
    std::cout << "\n";
  } else {
    std::cout << explain::summary(*e);
  }
  return 0;
}

}  // namespace sh::cli
