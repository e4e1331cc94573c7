// schedhost.toml (config/host_config.cc), with its inline profiles. The file is named under a
// directory that does not exist, so relative profileDirs find nothing. Whatever the text, the
// reader returns a configuration and diagnostics; a configuration read without errors has
// durations that Go's format writes and reads back unchanged, and profiles with names.
#include <chrono>

#include "host/config/diagnostics.h"
#include "host/config/host_config.h"
#include "tests/fuzz/fuzz_support.h"

namespace {

void checkDuration(std::chrono::milliseconds duration) {
  if (duration.count() < 0) {
    return;
  }
  std::string error;
  const auto again = sh::config::parseGoDuration(sh::config::formatGoDuration(duration), error);
  sh::fuzz::check(again.has_value() && *again == duration, "a duration reads back as written");
}

}  // namespace

// NOLINTNEXTLINE(readability-identifier-naming): libFuzzer's name
extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  sh::fuzz::quietLogs();
  const std::string_view text = sh::fuzz::asText(data, size);
  sh::config::Diagnostics diags;
  const sh::config::HostConfig config =
      sh::config::parseHostConfig(text, "/nonexistent/fuzz/schedhost.toml", diags);
  (void)diags.str();
  if (!config.parsed || diags.hasErrors()) {
    return 0;
  }
  checkDuration(config.leaderElection.leaseDuration);
  checkDuration(config.leaderElection.renewDeadline);
  checkDuration(config.leaderElection.retryPeriod);
  for (const sh::config::ProfileConfig& profile : config.profiles) {
    sh::fuzz::check(!profile.schedulerName.empty(), "every profile has a schedulerName");
  }
  return 0;
}
