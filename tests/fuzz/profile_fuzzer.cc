// A profile file (config/profile_config.cc): a scheduler profile in TOML, read as a profile
// directory's files are read. A file that is not valid TOML gives nullopt with a diagnostic.
#include "host/config/diagnostics.h"
#include "host/config/profile_config.h"
#include "tests/fuzz/fuzz_support.h"

// NOLINTNEXTLINE(readability-identifier-naming): libFuzzer's name
extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  sh::fuzz::quietLogs();
  const std::string_view text = sh::fuzz::asText(data, size);
  sh::config::Diagnostics diags;
  std::optional<sh::config::ProfileConfig> profile =
      sh::config::parseProfileText(text, "fuzz.toml", diags);
  if (!profile) {
    sh::fuzz::check(diags.hasErrors(), "an unreadable profile has a diagnostic");
    return 0;
  }
  std::vector<sh::config::ProfileConfig> profiles;
  profiles.push_back(std::move(*profile));
  sh::config::finalizeProfiles(profiles, {}, diags);
  (void)diags.str();
  if (!diags.hasErrors()) {
    sh::fuzz::check(!profiles[0].schedulerName.empty(), "a finalized profile has a name");
  }
  return 0;
}
