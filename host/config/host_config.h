// HostConfig: schedhost.toml, the host's own configuration (profile-format.md). Mirrors the
// top-level fields of upstream's KubeSchedulerConfiguration with the same defaults.
#pragma once

#include <chrono>
#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "host/config/diagnostics.h"
#include "host/config/extender_config.h"
#include "host/config/kube_scheduler_configuration.h"
#include "host/config/profile_config.h"

namespace sh::config {

struct HostConfig {
  std::string file;    // the file it was read from
  bool parsed = true;  // false: the file could not be read or parsed
  // schedhost TOML, or a KubeSchedulerConfiguration in YAML or JSON (upstream's defaults then
  // apply where the two differ: the Lease's name, the content type).
  ConfigFormat format = ConfigFormat::kToml;
  int32_t parallelism = 16;              // 0 = one worker per core
  int32_t percentageOfNodesToScore = 0;  // 0 = adaptive
  int64_t podInitialBackoffSeconds = 1;
  int64_t podMaxBackoffSeconds = 10;
  // Relative directories are taken relative to the directory of the configuration file.
  std::vector<std::filesystem::path> pluginDirs;
  std::vector<std::filesystem::path> profileDirs;
  // Inline [[profiles]] first, then every *.toml of each profileDirs entry (directories in
  // the order given, files in sorted name order); finalize_profiles has been applied.
  std::vector<ProfileConfig> profiles;

  // [admin]: the HTTP endpoints (docs/operations.md). Off unless an address or socket is set.
  struct Admin {
    std::string address;  // "host:port"; a bare ":port" or "port" means 127.0.0.1
    std::string socket;   // a Unix socket path
    // A non-loopback address is refused unless this is set; it then serves only /healthz,
    // /livez, /readyz and /metrics (the endpoints have no authentication).
    bool remoteHealthAndMetrics = false;
  } admin;
  // [reload]: how profile changes are picked up on a running scheduler.
  struct Reload {
    bool watch = true;                   // inotify on the configuration, profile and plugin files
    int64_t debounceMilliseconds = 250;  // a burst of changes within this quiet time is one reload
    int64_t drainWarningSeconds = 60;    // log an old generation still in use after this long
  } reload;
  // [plugins]: who may own plugin files besides root and the user the host runs as
  // (docs/plugin-loading.md). The packaged unit runs as `schedhost`; "" accepts no one else.
  struct Plugins {
    std::string serviceUser = "schedhost";
    // A plugin call running longer than this is reported (a warning and
    // schedhost_plugin_slow_calls_total); 0 turns the watchdog off.
    double callWarningSeconds = 60;
  } plugins;
  // [binding]: the binding cycles, each on a thread of its own as upstream gives each its
  // goroutine.
  struct Binding {
    int32_t maxConcurrent = 1024;  // binding cycles running at once; more wait for a thread
  } binding;
  // [clientConnection]: the connection to a Kubernetes API server (upstream
  // KubeSchedulerConfiguration.clientConnection). Read once, at start.
  struct ClientConnection {
    // A kubeconfig file; relative paths are taken relative to the configuration file's
    // directory. Empty: not set (the command line, $KUBECONFIG or in-cluster configuration).
    std::string kubeconfig;
    double qps = 50;      // requests per second; 0 = no client-side limit
    int32_t burst = 100;  // requests allowed at once above qps
    // What requests and responses are encoded in: JSON, or protobuf for the built-in kinds'
    // lists, watches and whole-object writes (upstream's default; docs/deploy.md).
    std::string contentType = "application/json";
    std::string acceptContentTypes;  // "" = contentType's
  } clientConnection;
  // Upstream's DebuggingConfiguration: kube-scheduler serves Go's profiler when set. schedhost
  // has no such profiler; the fields are accepted for upstream files and change nothing.
  bool enableProfiling = true;
  bool enableContentionProfiling = true;
  // Upstream's delayCacheUntilActive: with leader election, fill the cache only once leading.
  bool delayCacheUntilActive = false;
  // Upstream's extenders: HTTP scheduler extenders, shared by every profile, the ignorable ones
  // last (upstream's order of calls). Read once, at start.
  std::vector<ExtenderConfig> extenders;
  // [leaderElection]: one active scheduler among replicas, through a Lease (upstream
  // KubeSchedulerConfiguration.leaderElection). Read once, at start.
  struct LeaderElection {
    bool leaderElect = true;  // only meaningful when talking to a cluster
    std::chrono::milliseconds leaseDuration{15000};
    std::chrono::milliseconds renewDeadline{10000};
    std::chrono::milliseconds retryPeriod{2000};
    std::string resourceLock = "leases";  // the only lock accepted
    std::string resourceName = "schedhost";
    std::string resourceNamespace = "kube-system";
  } leaderElection;
};

// A Go duration string (time.ParseDuration): an optional sign and one or more decimal numbers,
// each with a unit of ns, us (or µs), ms, s, m or h: "15s", "1m30s", "500ms", "2h", "1.5s";
// "0" alone needs no unit. nullopt with `error` set ("missing unit in \"15\"") otherwise.
std::optional<std::chrono::nanoseconds> parseGoDuration(std::string_view text, std::string& error);
// "15s", "1m30s", "500ms", "2h0m0s": how Go's Duration.String writes a whole number of
// milliseconds.
std::string formatGoDuration(std::chrono::milliseconds duration);

// Reads schedhost.toml and the profile files its profileDirs name. Every problem found goes to
// `diags`; the returned config holds what could be read (check diags.has_errors()).
HostConfig loadHostConfig(const std::filesystem::path& path, Diagnostics& diags);
// The same for text in memory; `file_name` is what diagnostics name and what relative
// directories are resolved against.
// A KubeSchedulerConfiguration (by detectConfigFormat) is translated and read the same way.
HostConfig parseHostConfig(std::string_view text, const std::string& fileName, Diagnostics& diags);

// Every *.toml directly inside `dir`, sorted by file name. A missing or unreadable directory
// is a diagnostic at `where`/`key`; a *.toml that is not a regular file (a FIFO, a socket, a
// device), or a link to one, is a diagnostic naming it, and is not read.
std::vector<std::filesystem::path> listProfileFiles(const std::filesystem::path& dir,
                                                    const SourceLocation& where,
                                                    const std::string& key, Diagnostics& diags);

}  // namespace sh::config
