// kube-scheduler's configuration file (config/kube_scheduler_configuration.cc): YAML or JSON
// translated into schedhost TOML and read as schedhost.toml. Whatever the text, the reader
// returns a configuration and diagnostics; a document that translates does so into TOML that
// parses, and a configuration read without errors converts to TOML (`config convert`) that
// reads without errors too.
#include "host/config/diagnostics.h"
#include "host/config/host_config.h"
#include "host/config/kube_scheduler_configuration.h"
#include "tests/fuzz/fuzz_support.h"

// NOLINTNEXTLINE(readability-identifier-naming): libFuzzer's name
extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  sh::fuzz::quietLogs();
  const std::string_view text = sh::fuzz::asText(data, size);
  const std::string file = "/nonexistent/fuzz/kube-scheduler.yaml";
  sh::config::Diagnostics diags;
  const sh::config::HostConfig config = sh::config::parseHostConfig(text, file, diags);
  (void)diags.str();
  if (!config.parsed || diags.hasErrors()) {
    return 0;
  }
  sh::config::Diagnostics again;
  const auto toml = sh::config::translateKubeSchedulerConfiguration(text, file, again, true);
  sh::fuzz::check(toml.has_value(), "a configuration that reads also converts");
  const sh::config::HostConfig converted =
      sh::config::parseHostConfig(toml->toml, "/nonexistent/fuzz/converted.toml", again);
  sh::fuzz::check(converted.parsed && !again.hasErrors(), "the converted TOML reads");
  sh::fuzz::check(converted.profiles.size() == config.profiles.size(),
                  "the converted TOML has the same profiles");
  return 0;
}
