// schedhost run: a live scheduler whose profiles can be reloaded (SIGHUP, file changes,
// POST /reload) without a restart (docs/operations.md), over the embedded cluster
// (`--cluster`) or a Kubernetes API server (run_kube.cc, docs/deploy.md).
#include <iostream>

#include "host/cli/commands.h"
#include "host/cli/live_scheduler.h"
#include "host/connectors/embedded/embedded_cluster.h"
#include "host/cycle/decision_log.h"

namespace sh::cli {

int runRun(const RunArgs& args) {
  if (args.cluster.empty()) {
    return runKube(args);
  }
  if (!args.kube.kubeconfig.empty() || !args.kube.context.empty()) {
    std::cerr << "schedhost run: --cluster (the embedded cluster) and --kubeconfig/--context "
                 "(an API server) exclude each other\n";
    return 1;
  }
  LiveScheduler live(args);
  if (!live.configure()) {
    return 1;
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
