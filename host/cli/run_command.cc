#include <chrono>
#include <csignal>
#include <iostream>

#include <spdlog/spdlog.h>

#include "host/cli/commands.h"
#include "host/cli/load_profiles.h"
#include "host/connectors/decision_log.h"
#include "host/connectors/embedded_cluster.h"
#include "host/cycle/scheduler.h"
#include "host/cycle/scheduler_services.h"
#include "host/profile/profile_set.h"

namespace sh::cli {
namespace {

cycle::Scheduler* gRunning = nullptr;

void onSignal(int) {
  if (gRunning != nullptr) {
    gRunning->stop();
  }
}

}  // namespace

int runRun(const RunArgs& args) {
  cycle::SchedulerServices services;
  config::Diagnostics diags;
  profile::ProfileSet set = loadSchedulingProfiles(args.config, args.pluginDirs, &services, diags);
  if (diags.hasErrors()) {
    std::cerr << "schedhost run: " << diags.errorCount() << " configuration error(s)\n";
    return 1;
  }

  connectors::DecisionLog log(std::cout);
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

  cycle::SchedulerOptions so;
  so.parallelism = set.host.parallelism;
  so.percentageOfNodesToScore = set.host.percentageOfNodesToScore;
  so.seed = args.seed;
  so.queue.initialBackoff = std::chrono::seconds(set.host.podInitialBackoffSeconds);
  so.queue.maxBackoff = std::chrono::seconds(set.host.podMaxBackoffSeconds);
  Frameworks frameworks(set.frameworks.begin(), set.frameworks.end());
  auto start = std::chrono::steady_clock::now();
  cycle::SchedulerStats stats;
  std::size_t pending = 0;
  std::size_t gated = 0;
  connectors::LatencySummary latency;
  {
    cycle::Scheduler scheduler(std::move(frameworks), cluster, &log, so);
    services.attach(&cluster, &scheduler.waitingPods());
    gRunning = &scheduler;
    std::signal(SIGINT, onSignal);
    std::signal(SIGTERM, onSignal);
    stats = scheduler.run(args.follow);
    gRunning = nullptr;
    pending = scheduler.pendingPodCount();
    gated = scheduler.queue().pendingCounts().gated;
    latency = scheduler.latencies().summary();
    services.attach(nullptr, nullptr);
  }
  cluster.stop();
  double elapsed = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  connectors::RunSummary summary;
  summary.scheduled = stats.scheduled;
  // Pending pods that were tried and failed, and those never tried (gated).
  summary.unschedulable = pending - std::min(pending, gated);
  summary.pending = pending;
  summary.preemptions = stats.preemptions;
  summary.preemptionVictims = stats.preemptionVictims;
  summary.elapsedSeconds = elapsed;
  summary.attemptLatency = latency;
  log.summary(summary);
  std::cerr << connectors::summaryText(summary);
  if (cluster.rejectedLines() > 0) {
    std::cerr << "schedhost run: " << cluster.rejectedLines()
              << " input line(s) were rejected (see the warnings above)\n";
  }
  return 0;
}

}  // namespace sh::cli
