// kube-scheduler's own configuration file: a KubeSchedulerConfiguration
// (kubescheduler.config.k8s.io/v1) in YAML or JSON, read as kube-scheduler's --config reads it.
//
// schedhost's TOML mirrors the upstream type field for field, so such a file is translated into
// the equivalent TOML and read by the same code that reads schedhost.toml: both formats are
// checked by one reader, with the same field paths in their messages
// ("profiles[0].pluginConfig[0].args.hardPodAffinityWeight"). The translation keeps, for each
// line of the TOML it writes, where the YAML value came from, and the reader reports those
// positions (LineMapScope in toml_reader.h).
//
// Decoding is strict, as upstream's: a field the upstream type does not have is an error
// naming it, so is a field written twice. A field schedhost's TOML has and the upstream type
// has not (pluginDirs, admin, a profile's libraries, ...) is unknown here too; a file that
// needs one is written in TOML.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "host/config/diagnostics.h"
#include "host/config/source_location.h"

namespace sh::config {

inline constexpr std::string_view kKubeSchedulerConfigApiVersion = "kubescheduler.config.k8s.io/v1";
inline constexpr std::string_view kKubeSchedulerConfigKind = "KubeSchedulerConfiguration";

enum class ConfigFormat {
  kToml,                        // schedhost's own format
  kKubeSchedulerConfiguration,  // upstream's, in YAML or JSON
};

// Which format a configuration file is in: by its extension (.toml; .yaml, .yml or .json),
// and for any other name by its text: JSON's opening brace, or a top-level "apiVersion:" or
// "kind:" line, is upstream's; anything else is TOML.
ConfigFormat detectConfigFormat(std::string_view text, std::string_view fileName);

struct TranslatedConfig {
  std::string toml;
  // lines[i]: where line i + 1 of `toml` was written in the original file.
  std::vector<SourceLocation> lines;
};

// Translates a KubeSchedulerConfiguration into schedhost TOML. Problems of the document itself
// (not YAML, not a KubeSchedulerConfiguration of kubescheduler.config.k8s.io/v1, a duplicate or
// unknown field, nesting deeper than the format needs) go to `diags`; nullopt when nothing
// could be translated. The fields' values are checked by the TOML reader afterwards.
//
// With `explicitDefaults`, the fields whose upstream default differs from schedhost's own
// (leaderElection.resourceName, clientConnection.contentType) are written out when the file
// leaves them unset, so that the TOML means the same on its own (`schedhost config convert`).
std::optional<TranslatedConfig> translateKubeSchedulerConfiguration(std::string_view text,
                                                                    const std::string& fileName,
                                                                    Diagnostics& diags,
                                                                    bool explicitDefaults = false);

// The other way: schedhost TOML as a KubeSchedulerConfiguration in YAML. A field upstream's type
// has no place for (pluginDirs, profileDirs, admin, reload, plugins, binding, a profile's
// libraries) is an error naming it; the fields whose defaults differ are written out.
std::optional<std::string> tomlToKubeSchedulerConfiguration(std::string_view text,
                                                            const std::string& fileName,
                                                            Diagnostics& diags);

}  // namespace sh::config
