// schedhost run: a live scheduler whose profiles can be reloaded (SIGHUP, file changes,
// POST /reload) without a restart (docs/operations.md), over the embedded cluster
// (`--cluster`) or a Kubernetes API server (run_kube.cc, docs/deploy.md).
#include <iostream>
#include <optional>
#include <utility>

#include <spdlog/spdlog.h>

#include "host/cli/commands.h"
#include "host/cli/live_scheduler.h"
#include "host/cli/secure_serving_options.h"
#include "host/config/feature_gates.h"
#include "host/connectors/embedded/embedded_cluster.h"
#include "host/cycle/decision_log.h"

namespace sh::cli {

namespace {

// kube-scheduler's flags that schedhost takes but whose effect is not schedhost's: each is
// said once at the start, so that nothing an operator wrote is dropped in silence.
bool checkUpstreamFlags(const RunArgs& args) {
  const ServingFlags& serving = args.serving;
  if (!args.cluster.empty() && serving.securePort && *serving.securePort != 0) {
    spdlog::warn(
        "--secure-port {}: the secure port authenticates callers through an API server and is "
        "served with --kubeconfig only; over --cluster, /healthz, /livez, /readyz and /metrics "
        "are served on --admin-address",
        *serving.securePort);
  }
  if (!serving.bindAddress.empty() && !serving.securePort.value_or(1)) {
    spdlog::warn("--bind-address {}: nothing is served on the secure port (--secure-port 0)",
                 serving.bindAddress);
  }
  for (const auto& [flag, value] :
       {std::pair{"--profiling", serving.profiling},
        std::pair{"--contention-profiling", serving.contentionProfiling}}) {
    if (value) {
      spdlog::warn("{}: deprecated upstream, and without effect here (schedhost has no profiler)",
                   flag);
    }
  }
  // As pflag does, a bad value is refused whether or not the secure port is served.
  if (std::string why; !delegatedAuthOptions(serving, why)) {
    std::cerr << "schedhost run: " << why << "\n";
    return false;
  }
  const std::string& contentType = args.kube.contentType;
  if (!contentType.empty() && contentType != "application/json" &&
      contentType != "application/vnd.kubernetes.protobuf") {
    std::cerr << "schedhost run: --kube-api-content-type \"" << contentType
              << "\": must be application/json or application/vnd.kubernetes.protobuf\n";
    return false;
  }
  std::string error;
  std::optional<config::FeatureGates> gates = config::FeatureGates::parse(args.featureGates, error);
  if (!gates) {
    std::cerr << "schedhost run: --feature-gates: " << error << "\n";
    return false;
  }
  config::setProcessFeatureGates(std::move(*gates));
  return true;
}

}  // namespace

int runRun(const RunArgs& args) {
  if (!checkUpstreamFlags(args)) {
    return 1;
  }
  if (args.cluster.empty()) {
    return runKube(args);
  }
  if (!args.kube.kubeconfig.empty() || !args.kube.context.empty() || !args.kube.master.empty()) {
    std::cerr << "schedhost run: --cluster (the embedded cluster) and --kubeconfig/--context/"
                 "--master (an API server) exclude each other\n";
    return 1;
  }
  LiveScheduler live(args);
  if (!live.configure()) {
    return 1;
  }
  const std::vector<config::ExtenderConfig>& extenders = live.hostConfig().extenders;
  for (std::size_t i = 0; i < extenders.size(); ++i) {
    if (!extenders[i].bindVerb.empty()) {
      // The extender would write the binding to an API server the embedded cluster is not.
      std::cerr << "schedhost run: " << live.hostConfig().file << ": extenders[" << i
                << "].bindVerb: an extender binds through the API server, and the embedded "
                   "cluster has none; run it with --kubeconfig\n";
      return 1;
    }
  }
  cycle::DecisionLog log(std::cout);
  connectors::EmbeddedCluster::Options co;
  co.initialState = args.cluster;
  co.changes = args.events;
  co.follow = args.follow;
  connectors::EmbeddedCluster cluster(co);
  Status started = cluster.start();
  if (!started.ok()) {
    std::cerr << "schedhost run: " << started.message() << "\n";
    return 1;
  }
  if (!live.start(cluster, &log)) {
    return 1;
  }
  live.run(args.follow);
  cluster.stop();
  live.finish(log);
  if (cluster.rejectedLines() > 0) {
    std::cerr << "schedhost run: " << cluster.rejectedLines()
              << " input line(s) were rejected (see the warnings above)\n";
  }
  return 0;
}

}  // namespace sh::cli
