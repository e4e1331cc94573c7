// The trust rules: who could swap a plugin file, judged before any of its code runs.
//
// A plugin file is refused unless
//   - it is owned by root, by the user the host runs as, or by the service user (the user the
//     packaged unit runs as, `schedhost` unless [plugins] serviceUser says otherwise; only when
//     that user exists on this system), and is neither group- nor world-writable;
//   - every directory above it, up to /, is owned by one of those users and is neither group-
//     nor world-writable, except a sticky directory owned by root (like /tmp: others may add
//     entries to it but cannot rename or remove ours);
//   - when it was found in a plugin directory (or named in one), the path does not lead out of
//     that directory through a symbolic link.
// This is OpenSSH's safe_path() rule, with the service user added for packaged plugins.
//
// Each refusal names the rule broken and the fix, e.g.
//   refused: the directory /opt/p is world-writable (mode 0777); make it writable by its
//   owner only (chmod o-w /opt/p), or pass --insecure-plugin-permissions for development
//
// The checks are on in every process. Only the command-line flag --insecure-plugin-permissions
// turns them off (disableTrustChecks), and says so loudly.
#pragma once

#include <sys/stat.h>

#include <string>

namespace sh::plugin {

// The service user accepted when the host configuration names none.
inline constexpr const char* kDefaultServiceUser = "schedhost";

// The flag that turns the checks off, quoted in every refusal.
inline constexpr const char* kInsecureFlag = "--insecure-plugin-permissions";

struct TrustRules {
  // Canonical directory the plugin must stay inside; "" when the file was named on its own.
  std::string pluginRoot;
  // Accepted as an owner besides root and the current user; "" for none. A user that does not
  // exist on this system accepts nothing.
  std::string serviceUser = kDefaultServiceUser;
};

// "refused: ..." when `asGiven` (absolute, not resolved) leads through a symbolic link to
// `canonicalPath` outside `pluginRoot`; "" when it does not, or when pluginRoot is "".
std::string linkRefusal(const std::string& asGiven, const std::string& canonicalPath,
                        const std::string& pluginRoot);

// The first owner or mode rule broken, as "refused: <what>; <fix>", or "" when none is.
// `fileStatus` is the fstat of the open file, so the file is judged by what was read.
std::string ownerModeRefusal(const std::string& canonicalPath, const struct stat& fileStatus,
                             const std::string& serviceUser);

// Turns every trust check off for the rest of the process and logs a WARNING saying so (each
// call, on stderr whatever the log level). Only --insecure-plugin-permissions calls it.
void disableTrustChecks();
bool trustChecksDisabled();

}  // namespace sh::plugin
