// schedhost: a Kubernetes-compatible pod scheduler whose plugins are shared objects.
#include <cmath>
#include <iostream>
#include <string>

#include <spdlog/spdlog.h>
#include <CLI/CLI.hpp>

#include "host/cli/commands.h"
#include "host/cli/logging.h"
#include "host/cli/plugin_dirs.h"
#include "host/cli/plugin_new.h"
#include "host/cli/upstream_flags.h"
#include "host/framework/plugin_call.h"

namespace {

// A factor in (0, max]: neither zero, negative, infinite nor NaN (which CLI::Range lets pass).
CLI::Validator scaleFactor(double max) {
  return CLI::Validator(
      [max](std::string& text) -> std::string {
        double v = 0;
        if (!CLI::detail::lexical_cast(text, v) || !std::isfinite(v) || v <= 0 || v > max) {
          return "must be a number above 0 and at most " + CLI::detail::to_string(max) + ", got " +
                 text;
        }
        return {};
      },
      "FACTOR in (0, " + CLI::detail::to_string(max) + "]");
}

}  // namespace

int main(int argc, char** argv) {
  // A plugin that kills the process is named on stderr (docs/operations.md).
  sh::installFatalSignalReport();
  CLI::App app{"schedhost: a Kubernetes-compatible pod scheduler with binary plugins"};
  app.require_subcommand(1);
  // Options of the process may also follow the command (kube-scheduler's flags have none).
  app.fallthrough();
  // info, as kube-scheduler logs at its default verbosity: state changes (a reload applied,
  // leadership gained or lost, a watch relisting) are said; nothing is logged per pod.
  sh::cli::LoggingOptions logging;
  app.add_option("--log-level", logging.level, "trace, debug, info, warn, error, off")
      ->capture_default_str()
      ->check(CLI::IsMember({"trace", "debug", "info", "warn", "error", "off"}));
  app.add_option("-v,--verbosity", logging.verbosity,
                 "kube-scheduler's -v/--v: 0-3 info, 4 debug, 5 and more trace (wins over "
                 "--log-level)");
  app.add_option("--vmodule", logging.vmodule, "kube-scheduler's per-file verbosity (checked)");
  app.add_option("--logging-format", logging.format,
                 "text, or json: one JSON object per line with klog's field names")
      ->capture_default_str();

  sh::cli::EvaluateArgs ev;
  auto* evaluate =
      app.add_subcommand("evaluate", "explain one scheduling decision (scenario file)");
  evaluate->add_option("--scenario", ev.scenario, "scenario JSON file ('-' for stdin)")->required();
  evaluate->add_option("--plugin-dir", ev.pluginDirs, "where plugin .so files are found");
  evaluate->add_option("--seed", ev.seed, "seed for tie-breaking")->capture_default_str();
  evaluate->add_flag("--compact", ev.compact, "one-line JSON");

  sh::cli::TestArgs test;
  auto* testCmd =
      app.add_subcommand("test", "run scenario files and check their \"expect\" objects");
  testCmd->add_option("PATH", test.paths, "scenario files, or directories searched for *.json")
      ->required();
  // One directory per --plugin-dir, so that the paths after it stay paths.
  testCmd->add_option("--plugin-dir", test.pluginDirs, "where plugin .so files are found")
      ->allow_extra_args(false);
  testCmd->add_option("--seed", test.seed, "seed for tie-breaking")->capture_default_str();
  testCmd->add_flag("--json", test.json, "JSON output");

  auto* plugin = app.add_subcommand("plugin", "inspect, list and create plugins");
  plugin->require_subcommand(1);
  std::string inspectFile;
  bool inspectJson = false;
  auto* inspect = plugin->add_subcommand("inspect", "print a plugin's metadata without running it");
  inspect->add_option("FILE", inspectFile, "plugin .so")->required();
  inspect->add_flag("--json", inspectJson, "JSON output");
  std::vector<std::string> listDirs;
  bool listJson = false;
  auto* list = plugin->add_subcommand("list", "list the plugins found in the plugin dirs");
  list->add_option("--plugin-dir", listDirs, "where plugin .so files are found");
  list->add_flag("--json", listJson, "JSON output");
  sh::cli::PluginNewArgs pluginNew;
  auto* newCmd =
      plugin->add_subcommand("new", "write a plugin skeleton that builds against the SDK");
  newCmd->add_option("NAME", pluginNew.name, "the plugin's name, CamelCase (MyFilter)")->required();
  newCmd->add_option("--lang", pluginNew.lang, "cpp, c or rust")
      ->capture_default_str()
      ->check(CLI::IsMember({"cpp", "c", "rust"}));
  newCmd->add_option("--dir", pluginNew.dir, "where to write it (default: ./<name-in-kebab-case>)");

  sh::cli::ProfileCheckArgs pc;
  auto* profile = app.add_subcommand("profile", "validate profiles");
  profile->require_subcommand(1);
  auto* check = profile->add_subcommand(
      "check", "validate configuration or profile files and print the effective plugins");
  check
      ->add_option("FILE", pc.files,
                   "schedhost.toml, a KubeSchedulerConfiguration (YAML or JSON), or profile "
                   ".toml files")
      ->required();
  check->add_option("--plugin-dir", pc.pluginDirs, "where plugin .so files are found");
  check->add_flag("--json", pc.json,
                  "JSON: the effective profiles as upstream's defaulting gives them "
                  "(KubeSchedulerProfile)");
  check->add_option("--feature-gates", pc.featureGates,
                    "kube-scheduler's feature gates, as for run (Gate=true|false,...): the "
                    "profiles are checked as run would build them");
  check->add_flag("--expanded", pc.expanded,
                  "with --json: each extension point's plugins in run order, with the effective "
                  "weights and args, instead");

  sh::cli::RunArgs run;
  auto* runCmd = app.add_subcommand(
      "run", "schedule the pods of a cluster: a Kubernetes API server, or the embedded cluster");
  runCmd->add_option("--config", run.config,
                     "schedhost.toml, or kube-scheduler's KubeSchedulerConfiguration (YAML or "
                     "JSON) (default: the default profile)");
  runCmd->add_option("--cluster", run.cluster,
                     "embedded cluster: initial state, v1.List or JSON lines (without it: a "
                     "Kubernetes API server)");
  runCmd->add_option("--events", run.events, "watch-format change stream, '-' for stdin");
  runCmd->add_option("--plugin-dir", run.pluginDirs, "where plugin .so files are found");
  runCmd->add_option("--seed", run.seed, "seed for tie-breaking")->capture_default_str();
  runCmd->add_flag("--follow", run.follow, "keep reading the change stream");
  runCmd->add_option("--admin-address", run.adminAddress,
                     "serve the admin endpoints on HOST:PORT (default: [admin] address; off)");
  runCmd->add_flag("--admin-remote-health-and-metrics", run.adminRemoteHealthAndMetrics,
                   "let --admin-address be a non-loopback address that serves only /healthz, "
                   "/livez, /readyz and /metrics (as [admin] remoteHealthAndMetrics)");
  runCmd->add_option("--admin-socket", run.adminSocket,
                     "serve the admin endpoints on this Unix socket (default: [admin] socket)");
  runCmd->add_option("--kubeconfig", run.kube.kubeconfig,
                     "kubeconfig file (default: [clientConnection] kubeconfig, $KUBECONFIG, "
                     "~/.kube/config, then the pod's service account)");
  runCmd->add_option("--context", run.kube.context, "kubeconfig context (default: current)");
  runCmd->add_option("--master", run.kube.master,
                     "the API server's address, over the kubeconfig's (kube-scheduler's --master)");
  runCmd->add_option("--feature-gates", run.featureGates,
                     "kube-scheduler's feature gates, NAME=true|false,... (docs/migrating-from-"
                     "kube-scheduler.md)");
  // kube-scheduler's secure serving (with --kubeconfig; host/cli/secure_serving.h).
  runCmd
      ->add_option("--secure-port", run.serving.securePort,
                   "HTTPS port of /healthz, /livez, /readyz, /metrics and /configz, with "
                   "--kubeconfig (default 10259; 0: none)")
      ->multi_option_policy(CLI::MultiOptionPolicy::TakeLast);
  runCmd->add_option("--bind-address", run.serving.bindAddress,
                     "address of the secure port (default 0.0.0.0)");
  runCmd->add_option("--tls-cert-file", run.serving.tlsCertFile,
                     "the secure port's certificate (PEM; default: self-signed, see --cert-dir)");
  runCmd->add_option("--tls-private-key-file", run.serving.tlsPrivateKeyFile,
                     "the key of --tls-cert-file (PEM)");
  runCmd->add_option("--cert-dir", run.serving.certDir,
                     "where the self-signed certificate is kept (kube-scheduler.crt and .key, "
                     "made when absent); ignored with --tls-cert-file (default: in memory)");
  runCmd->add_option("--client-ca-file", run.serving.clientCaFile,
                     "CA bundle that client certificates of the secure port are verified with "
                     "(default: client-ca-file of configmap kube-system/extension-apiserver-"
                     "authentication)");
  runCmd->add_option("--requestheader-client-ca-file", run.serving.requestheaderClientCaFile,
                     "CA bundle of the front proxy's client certificate, which vouches for the "
                     "user named in request headers (default: from the configmap)");
  // pflag's string slices: comma-separated, each occurrence appended.
  auto stringSlice = [&](const std::string& name, std::optional<std::vector<std::string>>& into,
                         const std::string& help) {
    runCmd
        ->add_option_function<std::vector<std::string>>(
            name, [&into](const std::vector<std::string>& values) { into = values; }, help)
        ->allow_extra_args(false);
  };
  stringSlice("--requestheader-allowed-names", run.serving.requestheaderAllowedNames,
              "common names the front proxy's certificate may have, comma-separated (default: "
              "any of --requestheader-client-ca-file)");
  stringSlice("--requestheader-username-headers", run.serving.requestheaderUsernameHeaders,
              "request headers naming the user, comma-separated (default X-Remote-User)");
  stringSlice("--requestheader-group-headers", run.serving.requestheaderGroupHeaders,
              "request headers naming the groups, comma-separated (default X-Remote-Group)");
  stringSlice("--requestheader-extra-headers-prefix", run.serving.requestheaderExtraHeadersPrefix,
              "prefixes of request headers of the user's extra, comma-separated (default "
              "X-Remote-Extra-)");
  runCmd->add_flag("--authentication-skip-lookup", run.serving.authenticationSkipLookup,
                   "do not read the client CA and the front proxy's settings from configmap "
                   "kube-system/extension-apiserver-authentication");
  runCmd->add_flag("--authentication-tolerate-lookup-failure",
                   run.serving.authenticationTolerateLookupFailure,
                   "a failed read of that configmap is a warning, not a startup error "
                   "(default true; --authentication-tolerate-lookup-failure=false)");
  runCmd->add_option("--authentication-token-webhook-cache-ttl", run.serving.tokenCacheTtl,
                     "how long TokenReview answers are cached, e.g. 10s (default 10s)");
  runCmd->add_option("--authorization-webhook-cache-authorized-ttl", run.serving.authorizedCacheTtl,
                     "how long allowing SubjectAccessReview answers are cached (default 10s)");
  runCmd->add_option("--authorization-webhook-cache-unauthorized-ttl",
                     run.serving.unauthorizedCacheTtl,
                     "how long denying SubjectAccessReview answers are cached (default 10s)");
  runCmd->add_option("--authentication-kubeconfig", run.serving.authenticationKubeconfig,
                     "kubeconfig for TokenReviews (default: the scheduler's own connection)");
  runCmd->add_option("--authorization-kubeconfig", run.serving.authorizationKubeconfig,
                     "kubeconfig for SubjectAccessReviews (default: the scheduler's own "
                     "connection)");
  runCmd->add_option("--authorization-always-allow-paths", run.serving.alwaysAllowPaths,
                     "paths served without authorization, comma-separated; PREFIX* matches a "
                     "prefix (default /healthz,/readyz,/livez)");
  // Deprecated upstream, still accepted by kube-scheduler v1.36.
  runCmd->add_option("--kube-api-content-type", run.kube.contentType,
                     "deprecated upstream: clientConnection.contentType");
  runCmd->add_option("--profiling", run.serving.profiling,
                     "deprecated upstream: enableProfiling (schedhost has no profiler)");
  runCmd->add_option("--contention-profiling", run.serving.contentionProfiling,
                     "deprecated upstream: enableContentionProfiling (no effect)");
  runCmd->add_option("--kube-api-qps", run.kube.qps,
                     "requests per second to the API server (default: [clientConnection] qps, "
                     "50; 0: no limit)");
  runCmd->add_option("--kube-api-burst", run.kube.burst,
                     "requests in a burst (default: [clientConnection] burst, 100)");
  bool leaderElect = true;
  auto* leaderElectOption = runCmd->add_flag(
      "--leader-elect", leaderElect,
      "only the holder of the Lease schedules (default: [leaderElection] leaderElect, true); "
      "--leader-elect=false turns it off");
  runCmd->add_option("--leader-elect-lease-duration", run.kube.leaseDuration,
                     "Lease duration, e.g. 15s");
  runCmd->add_option("--leader-elect-renew-deadline", run.kube.renewDeadline,
                     "how long the leader retries renewing before it gives up, e.g. 10s");
  runCmd->add_option("--leader-elect-retry-period", run.kube.retryPeriod,
                     "how often to try to acquire or renew, e.g. 2s");
  runCmd->add_option("--leader-elect-resource-name", run.kube.leaseName,
                     "the Lease's name (default: schedhost)");
  runCmd->add_option("--leader-elect-resource-namespace", run.kube.leaseNamespace,
                     "the Lease's namespace (default: kube-system)");
  runCmd
      ->add_option("--shutdown-grace-seconds", run.kube.shutdownGraceSeconds,
                   "after SIGTERM, how long stopping may take in all (binding cycles, writes, "
                   "the Lease)")
      ->capture_default_str()
      ->check(CLI::Range(1, 3600));

  sh::cli::ConfigConvertArgs convert;
  auto* configCmd = app.add_subcommand("config", "work with configuration files");
  configCmd->require_subcommand(1);
  auto* convertCmd = configCmd->add_subcommand(
      "convert",
      "schedhost TOML to kube-scheduler's KubeSchedulerConfiguration (YAML) or back, on stdout");
  convertCmd->add_option("FILE", convert.file, "the configuration to convert")->required();
  convertCmd->add_option("--to", convert.to, "toml or yaml (default: the other format)")
      ->check(CLI::IsMember({"toml", "yaml"}));

  sh::cli::RbacArgs rbac;
  auto* rbacCmd = app.add_subcommand(
      "rbac", "print the RBAC manifests (ClusterRole, Lease Role, bindings) the profiles need");
  rbacCmd->add_option("--config", rbac.config, "schedhost.toml (default: the default profile)");
  rbacCmd->add_option("--plugin-dir", rbac.pluginDirs, "where plugin .so files are found");
  bool rbacLeaderElect = true;
  auto* rbacLeaderElectOption = rbacCmd->add_flag(
      "--leader-elect", rbacLeaderElect,
      "as run's: the Lease's Role is printed unless false (default: [leaderElection])");
  rbacCmd->add_option("--leader-elect-resource-name", rbac.leaseName,
                      "as run's: the Lease's name (default: schedhost)");
  rbacCmd->add_option("--leader-elect-resource-namespace", rbac.leaseNamespace,
                      "as run's: the Lease's namespace (default: kube-system)");

  sh::cli::BenchArgs bench;
  auto* benchCmd = app.add_subcommand("bench", "measure scheduling throughput on a workload");
  benchCmd->add_option("--workload", bench.workload, "workload JSON (bench/workloads/)")
      ->required();
  benchCmd->add_option("--config", bench.config, "schedhost.toml (default: the default profile)");
  benchCmd->add_option("--plugin-dir", bench.pluginDirs, "where plugin .so files are found");
  // Bounded, so that a typo cannot ask for more objects than memory holds.
  benchCmd->add_option("--scale", bench.scale, "multiply every count (at most 100)")
      ->capture_default_str()
      ->check(scaleFactor(100));
  benchCmd->add_option("--parallelism", bench.parallelism, "override the configuration's")
      ->check(CLI::Range(0, 1024));
  benchCmd->add_option("--seed", bench.seed, "seed for tie-breaking")->capture_default_str();
  benchCmd->add_option("--timeout", bench.timeoutSeconds, "give up after this many seconds")
      ->capture_default_str()
      ->check(CLI::Range(1, 86400));
  benchCmd->add_flag("--json", bench.json, "JSON output");
  benchCmd->add_flag("!--no-metrics", bench.metrics, "do not record the scheduler's metrics");
  benchCmd
      ->add_option("--reload-every-ms", bench.reloadEveryMs,
                   "reload the profiles every this many ms during the run")
      ->check(CLI::Range(0, 3'600'000));
  benchCmd
      ->add_option("--compare", bench.compare,
                   "run twice in one process: without and with 'reload' (every "
                   "--reload-every-ms, default 100) or 'metrics'")
      ->check(CLI::IsMember({"reload", "metrics"}));
  benchCmd
      ->add_option("--reload-cycles", bench.reloadCycles,
                   "run this many reloads alternating --config and --alt-config and report "
                   "resident memory")
      ->check(CLI::Range(0, 1'000'000));
  benchCmd->add_option("--alt-config", bench.altConfig,
                       "the second configuration of --reload-cycles");
  benchCmd->add_option("--write-cluster", bench.writeCluster,
                       "write the workload's nodes and pods to this file (a v1.List, one item "
                       "per line) for `schedhost run --cluster`, and exit without measuring");

  // Every command that loads plugins; the trust rules are on unless this flag is given.
  bool insecurePlugins = false;
  for (CLI::App* cmd : {evaluate, testCmd, list, check, runCmd, rbacCmd, benchCmd}) {
    cmd->add_flag(sh::cli::kInsecurePluginsFlag, insecurePlugins,
                  "development only: load plugin files whoever owns them, whatever their mode "
                  "and wherever their links lead (docs/plugin-loading.md)");
  }

  auto addTarget = [](CLI::App* cmd, sh::cli::AdminTarget& target) {
    cmd->add_option("--admin-address", target.address, "the admin endpoint, HOST:PORT");
    cmd->add_option("--admin-socket", target.socket, "the admin endpoint, a Unix socket");
    cmd->add_option("--config", target.config, "schedhost.toml whose [admin] names the endpoint");
  };
  sh::cli::StatusArgs status;
  auto* statusCmd = app.add_subcommand("status", "show a running scheduler's state");
  addTarget(statusCmd, status.target);
  statusCmd->add_flag("--json", status.json, "print the raw JSON");
  statusCmd->add_option("--timeout", status.timeoutSeconds, "give up after this many seconds")
      ->capture_default_str();
  sh::cli::ExplainArgs explainArgs;
  auto* explainCmd = app.add_subcommand(
      "explain", "why a pod is pending: ask a running scheduler, or evaluate a scenario file");
  explainCmd->add_option("pod", explainArgs.pod, "NAMESPACE/NAME of a pod the scheduler knows");
  addTarget(explainCmd, explainArgs.target);
  explainCmd->add_option("--scenario", explainArgs.scenario,
                         "explain a scenario file's pod instead ('-' for stdin)");
  explainCmd->add_option("--plugin-dir", explainArgs.pluginDirs,
                         "where plugin .so files are found (--scenario)");
  explainCmd->add_option("--seed", explainArgs.seed, "seed for tie-breaking (--scenario)")
      ->capture_default_str();
  explainCmd->add_option("--html", explainArgs.html,
                         "also write the explanation as a self-contained HTML page to this file "
                         "('-': the page alone, to stdout)");
  explainCmd->add_flag("--json", explainArgs.json, "print the explanation as JSON");
  explainCmd->add_flag("!--no-what-if", explainArgs.whatIf,
                       "skip the changes that would make the pod fit (--scenario)");
  explainCmd->add_option("--timeout", explainArgs.timeoutSeconds, "give up after this many seconds")
      ->capture_default_str();
  explainCmd->add_flag(sh::cli::kInsecurePluginsFlag, insecurePlugins,
                       "development only: load plugin files whoever owns them (--scenario; "
                       "docs/plugin-loading.md)");
  sh::cli::ReloadArgs reload;
  auto* reloadCmd = app.add_subcommand("reload", "reload a running scheduler's profiles");
  addTarget(reloadCmd, reload.target);
  reloadCmd->add_option("--timeout", reload.timeoutSeconds, "give up after this many seconds")
      ->capture_default_str();

  // kube-scheduler's command line: no command (it is `run`), pflag's -v=2, removed flags.
  std::vector<std::string> commands;
  for (const CLI::App* sub : app.get_subcommands([](CLI::App*) { return true; })) {
    commands.push_back(sub->get_name());
  }
  sh::cli::AdaptedCommandLine adapted =
      sh::cli::adaptUpstreamCommandLine(std::vector<std::string>(argv + 1, argv + argc), commands);
  if (!adapted.error.empty()) {
    std::cerr << "schedhost: " << adapted.error << "\n";
    return 1;
  }
  std::vector<char*> adaptedArgv{argv[0]};
  for (std::string& arg : adapted.args) {
    adaptedArgv.push_back(arg.data());
  }
  try {
    app.parse(static_cast<int>(adaptedArgv.size()), adaptedArgv.data());
  } catch (const CLI::ParseError& e) {
    return app.exit(e);
  }
  if (std::string error; !sh::cli::setUpLogging(logging, error)) {
    std::cerr << "schedhost: " << error << "\n";
    return 1;
  }
  if (insecurePlugins) {
    sh::cli::allowInsecurePlugins();  // logs a WARNING, every time
  }

  auto dirsOr = [](std::vector<std::string> dirs) {
    return dirs.empty() ? sh::cli::defaultPluginDirs() : dirs;
  };
  if (convertCmd->parsed()) {
    return sh::cli::runConfigConvert(convert);
  }
  if (statusCmd->parsed()) {
    return sh::cli::runStatus(status);
  }
  if (explainCmd->parsed()) {
    explainArgs.pluginDirs = dirsOr(explainArgs.pluginDirs);
    return sh::cli::runExplain(explainArgs);
  }
  if (reloadCmd->parsed()) {
    return sh::cli::runReload(reload);
  }
  if (benchCmd->parsed()) {
    bench.pluginDirs = dirsOr(bench.pluginDirs);
    return sh::cli::runBench(bench);
  }
  if (runCmd->parsed()) {
    run.pluginDirs = dirsOr(run.pluginDirs);
    if (leaderElectOption->count() > 0) {
      run.kube.leaderElect = leaderElect;
    }
    return sh::cli::runRun(run);
  }
  if (rbacCmd->parsed()) {
    rbac.pluginDirs = dirsOr(rbac.pluginDirs);
    if (rbacLeaderElectOption->count() > 0) {
      rbac.leaderElect = rbacLeaderElect;
    }
    return sh::cli::runRbac(rbac);
  }
  if (evaluate->parsed()) {
    ev.pluginDirs = dirsOr(ev.pluginDirs);
    return sh::cli::runEvaluate(ev);
  }
  if (testCmd->parsed()) {
    test.pluginDirs = dirsOr(test.pluginDirs);
    return sh::cli::runTest(test);
  }
  if (inspect->parsed()) {
    return sh::cli::runPluginInspect(inspectFile, inspectJson);
  }
  if (newCmd->parsed()) {
    return sh::cli::runPluginNew(pluginNew);
  }
  if (list->parsed()) {
    return sh::cli::runPluginList(dirsOr(listDirs), listJson);
  }
  if (check->parsed()) {
    pc.pluginDirs = dirsOr(pc.pluginDirs);
    return sh::cli::runProfileCheck(pc);
  }
  return 1;
}
