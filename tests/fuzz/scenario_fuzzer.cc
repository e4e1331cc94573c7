// Scenario documents (evaluate/scenario.cc, docs/scenario-format.md), read as `schedhost
// evaluate` and `schedhost test` read them. A refused scenario has an error message; an
// accepted one has its pending pod, and every node, pod and plugin it names.
#include "host/evaluate/evaluate.h"
#include "tests/fuzz/fuzz_support.h"

// NOLINTNEXTLINE(readability-identifier-naming): libFuzzer's name
extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  sh::fuzz::quietLogs();
  const std::optional<boost::json::value> json = sh::fuzz::parseJson(sh::fuzz::asText(data, size));
  if (!json) {
    return 0;
  }
  std::string error;
  const std::optional<sh::evaluate::Scenario> scenario = sh::evaluate::parseScenario(*json, error);
  if (!scenario) {
    sh::fuzz::check(!error.empty(), "a refused scenario has an error message");
    return 0;
  }
  sh::fuzz::check(scenario->pod != nullptr, "an accepted scenario has its pending pod");
  for (const auto& node : scenario->nodes) {
    sh::fuzz::check(node != nullptr, "no null node");
  }
  for (const auto& pod : scenario->pods) {
    sh::fuzz::check(pod != nullptr, "no null pod");
  }
  for (const auto& plugin : scenario->plugins) {
    sh::fuzz::check(!plugin.name.empty(), "every plugin has a name");
  }
  return 0;
}
