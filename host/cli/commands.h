// The schedhost subcommands. Each returns the process exit code.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace sh::cli {

struct EvaluateArgs {
  std::string scenario;
  std::vector<std::string> pluginDirs;
  uint64_t seed = 0;
  bool compact = false;
};
int runEvaluate(const EvaluateArgs& args);

struct TestArgs {
  std::vector<std::string> paths;  // scenario files and directories of them
  std::vector<std::string> pluginDirs;
  uint64_t seed = 0;
  bool json = false;
};
// 0 when every scenario's expectations held, 1 otherwise.
int runTest(const TestArgs& args);

int runPluginInspect(const std::string& file, bool json);
int runPluginList(const std::vector<std::string>& pluginDirs, bool json);

struct ProfileCheckArgs {
  std::vector<std::string> files;
  std::vector<std::string> pluginDirs;
  bool json = false;
  bool expanded = false;     // --json as each point's run order (config::toJson), not upstream's
  std::string featureGates;  // --feature-gates, as for run
};
int runProfileCheck(const ProfileCheckArgs& args);

// How `run` reaches a Kubernetes API server, and its leader election; empty or negative:
// from the host configuration's [clientConnection] and [leaderElection].
struct KubeArgs {
  std::string kubeconfig;  // --kubeconfig
  std::string context;     // --context
  double qps = -1;         // --kube-api-qps
  int burst = -1;          // --kube-api-burst
  std::optional<bool> leaderElect;
  std::string leaseDuration, renewDeadline, retryPeriod;  // Go durations: "15s"
  std::string leaseName, leaseNamespace;
  int shutdownGraceSeconds = 30;  // the whole stop after SIGTERM ends within this (run_kube.cc)
  std::string master;             // --master: the API server's URL, over the kubeconfig's
  std::string contentType;        // --kube-api-content-type (deprecated upstream)
};

// kube-scheduler's serving flags as an upstream manifest writes them.
struct ServingFlags {
  std::optional<int> securePort;         // --secure-port
  std::string bindAddress;               // --bind-address
  std::string authenticationKubeconfig;  // --authentication-kubeconfig
  std::string authorizationKubeconfig;   // --authorization-kubeconfig
  std::string tlsCertFile;               // --tls-cert-file
  std::string tlsPrivateKeyFile;         // --tls-private-key-file
  std::string clientCaFile;              // --client-ca-file
  std::string certDir;                   // --cert-dir
  // --authorization-always-allow-paths, comma-separated; unset: /healthz,/readyz,/livez
  std::optional<std::string> alwaysAllowPaths;
  // Go durations; empty: upstream's 10s.
  std::string tokenCacheTtl;              // --authentication-token-webhook-cache-ttl
  std::string authorizedCacheTtl;         // --authorization-webhook-cache-authorized-ttl
  std::string unauthorizedCacheTtl;       // --authorization-webhook-cache-unauthorized-ttl
  std::string requestheaderClientCaFile;  // --requestheader-client-ca-file
  // pflag string slices, each occurrence as given (comma-separated, the occurrences
  // appended); nullopt: not given (the default).
  std::optional<std::vector<std::string>> requestheaderAllowedNames;
  std::optional<std::vector<std::string>> requestheaderUsernameHeaders;
  std::optional<std::vector<std::string>> requestheaderGroupHeaders;
  std::optional<std::vector<std::string>> requestheaderExtraHeadersPrefix;
  bool authenticationSkipLookup = false;            // --authentication-skip-lookup
  bool authenticationTolerateLookupFailure = true;  // kube-scheduler's default
  std::optional<bool> profiling;                    // --profiling (deprecated upstream)
  std::optional<bool> contentionProfiling;          // --contention-profiling (deprecated upstream)
};

// `schedhost config convert FILE`: TOML to a KubeSchedulerConfiguration (YAML) or back, on
// stdout (config_command.cc). 0; 1 after printing what cannot be converted; 2 for a file already
// in the format asked for.
struct ConfigConvertArgs {
  std::string file;
  std::string to;  // "toml" or "yaml"; empty: the other format
};
int runConfigConvert(const ConfigConvertArgs& args);

struct RunArgs {
  std::string config;   // schedhost.toml; empty: the default profile
  std::string cluster;  // initial state; empty: a Kubernetes API server (`kube`)
  std::string events;   // change stream ("-" for stdin); empty: none
  std::vector<std::string> pluginDirs;
  uint64_t seed = 0;
  bool follow = false;
  std::string adminAddress;                  // overrides [admin] address
  std::string adminSocket;                   // overrides [admin] socket
  bool adminRemoteHealthAndMetrics = false;  // or [admin] remoteHealthAndMetrics
  KubeArgs kube;
  ServingFlags serving;
  std::string featureGates;  // --feature-gates
};
int runRun(const RunArgs& args);
// `run` against a Kubernetes API server (run_kube.cc).
int runKube(const RunArgs& args);

// `schedhost rbac`: the profiles as `run` loads them from `config` and `pluginDirs`; the Lease
// as `run` names it, from the flags or the configuration's [leaderElection].
struct RbacArgs {
  std::string config;  // schedhost.toml; empty: the default profile
  std::vector<std::string> pluginDirs;
  std::optional<bool> leaderElect;        // --leader-elect
  std::string leaseName, leaseNamespace;  // --leader-elect-resource-name, -namespace
};
// Prints the ServiceAccount, ClusterRole, Role and bindings (rbac_command.cc). 0, or 1 after
// printing the configuration's errors.
int runRbac(const RbacArgs& args);

struct BenchArgs {
  std::string workload;
  std::string config;
  std::vector<std::string> pluginDirs;
  double scale = 1.0;
  int parallelism = -1;  // -1: from the configuration
  uint64_t seed = 0;
  int timeoutSeconds = 600;
  bool json = false;
  bool metrics = true;    // record the scheduler's metrics, as `run` does
  int reloadEveryMs = 0;  // > 0: a reload every this many ms while the workload runs
  // "reload" or "metrics": run the workload twice in one process, without and with it.
  std::string compare;
  // > 0: instead of measuring throughput, run this many reloads back to back, alternating
  // `config` and `altConfig`, and report resident memory along the way.
  int reloadCycles = 0;
  std::string altConfig;
  // Non-empty: instead of measuring, write the workload's objects (nodes, init pods, measured
  // pods) to this file as a v1.List, one item per line, for `schedhost run --cluster`.
  std::string writeCluster;
};
int runBench(const BenchArgs& args);

// Where `schedhost status` and `schedhost reload` find the admin endpoints: one of an address,
// a socket, or a configuration file whose [admin] table names them.
struct AdminTarget {
  std::string address;  // --admin-address HOST:PORT
  std::string socket;   // --admin-socket PATH
  std::string config;   // --config schedhost.toml
};

struct StatusArgs {
  AdminTarget target;
  bool json = false;
  double timeoutSeconds = 10;
};
// GET /status, printed for people (or the raw JSON). 0 on an answer, 2 when none came.
int runStatus(const StatusArgs& args);

// GET `path` from the running scheduler `target` names. The body of a 200 answer; nullopt
// after printing (with `prefix`) why there is none: no endpoint, no answer, or another status
// (its body said). `httpStatus`, when given, receives the answer's status (0: no answer).
std::optional<std::string> adminGet(const AdminTarget& target, const std::string& path,
                                    double timeoutSeconds, const char* prefix,
                                    int* httpStatus = nullptr);

struct ExplainArgs {
  std::string pod;       // NAMESPACE/NAME, asked of a running scheduler
  AdminTarget target;    // where that scheduler is
  std::string scenario;  // --scenario FILE instead
  std::vector<std::string> pluginDirs;
  uint64_t seed = 0;
  std::string html;  // --html FILE: the page too
  bool json = false;
  bool whatIf = true;  // --no-what-if: skip the what-if evaluations (scenario)
  double timeoutSeconds = 30;
};
// schedhost explain (docs/explaining-decisions.md). 0 when explained, 1 when the pod is not
// known or kept no attempt, 2 for bad input or an unreachable scheduler.
int runExplain(const ExplainArgs& args);

struct ReloadArgs {
  AdminTarget target;
  double timeoutSeconds = 60;
};
// POST /reload. 0 when applied, 1 when rejected, 2 when the endpoint could not be reached or
// answered something unexpected.
int runReload(const ReloadArgs& args);

}  // namespace sh::cli
