// The `extenders` of a host configuration (upstream config.Extender, v1 types.go): HTTP
// scheduler extenders, called after the Filter plugins, after the Score plugins and in place of
// the Bind plugins (docs/extenders.md).
#pragma once

#include <chrono>
#include <string>
#include <vector>

#include "host/config/diagnostics.h"
#include "host/config/profile_config.h"
#include "host/config/toml_reader.h"

namespace sh::config {

struct ExtenderConfig {
  // "https://host:port/prefix" or "http://…"; each call is a POST to <urlPrefix>/<verb>.
  std::string urlPrefix;
  std::string filterVerb;      // empty: the extender does not filter
  std::string preemptVerb;     // empty: it does not take part in preemption
  std::string prioritizeVerb;  // empty: it does not score
  std::string bindVerb;        // empty: it does not bind (at most one extender may)
  int64_t weight = 0;          // its scores' multiplier; must be positive with prioritizeVerb
  bool enableHttps = false;    // upstream enableHTTPS: without a CA, the server is not verified
  // tlsConfig (upstream ExtenderTLSConfig): PEM files, or PEM data base64-encoded (upstream's
  // []byte fields), decoded when the extender's client is made.
  struct Tls {
    bool insecure = false;
    std::string serverName;
    std::string certFile, keyFile, caFile;
    std::string certData, keyData, caData;
    bool operator==(const Tls&) const = default;
  } tls;
  std::chrono::milliseconds httpTimeout{5000};  // upstream DefaultExtenderTimeout
  bool nodeCacheCapable = false;                // send node names instead of whole Node objects
  struct ManagedResource {
    std::string name;
    bool ignoredByScheduler = false;  // NodeResourcesFit leaves it to the extender
    bool operator==(const ManagedResource&) const = default;
  };
  std::vector<ManagedResource> managedResources;
  bool ignorable = false;  // an error of this extender is skipped, not the pod's failure
  bool operator==(const ExtenderConfig&) const = default;
};

// Reads `extenders`, an array of tables, from `top`, with upstream's validation
// (ValidateKubeSchedulerConfiguration: validateExtenders) and what upstream's types reject
// (a URL that does not parse, a duration that does not). Relative file paths are taken
// relative to `base`. Problems go to `diags`.
std::vector<ExtenderConfig> readExtenders(TableReader& top, const std::string& base,
                                          Diagnostics& diags);

// The managed resources marked ignoredByScheduler, in configuration order: upstream copies them
// into every profile's NodeResourcesFitArgs.ignoredResources (scheduler.go: buildExtenders).
std::vector<std::string> extenderIgnoredResources(const std::vector<ExtenderConfig>& extenders);

// Sets NodeResourcesFit's ignoredResources to extenderIgnoredResources(extenders) in every
// profile's pluginConfig (adding the entry where there is none), as upstream does: the
// extenders' list replaces one written in the profile. Nothing without such resources.
void applyExtenderIgnoredResources(const std::vector<ExtenderConfig>& extenders,
                                   std::vector<ProfileConfig>& profiles);

}  // namespace sh::config
