// schedhost run: the embedded cluster scheduled by a live scheduler whose profiles can be
// reloaded (SIGHUP, file changes, POST /reload) without a restart (docs/operations.md).
#include <chrono>
#include <iostream>

#include <spdlog/spdlog.h>

#include "host/cli/commands.h"
#include "host/connectors/decision_log.h"
#include "host/connectors/embedded_cluster.h"
#include "host/cycle/scheduler.h"
#include "host/cycle/scheduler_services.h"
#include "host/profile/generation.h"
#include "host/reload/reloader.h"
#include "host/reload/signals.h"

namespace sh::cli {
namespace {

// Every diagnostic on stderr, as `profile check` prints them.
void printDiagnostics(const config::Diagnostics& diags) { std::cerr << diags.str(); }

void logReload(const reload::ReloadResult& r) {
  if (r.applied) {
    std::string changed;
    for (const std::string& c : r.changed) {
      changed += (changed.empty() ? "" : ", ") + c;
    }
    spdlog::info("reload ({}): generation {} applied; changed: {}", r.trigger, r.generation,
                 changed.empty() ? "nothing" : changed);
    if (!r.warnings.empty()) {
      spdlog::warn("reload: {}", r.warnings);
    }
  } else {
    spdlog::error("reload ({}): rejected, generation {} keeps running:\n{}", r.trigger,
                  r.generation, r.error);
  }
}

}  // namespace

int runRun(const RunArgs& args) {
  // Before any thread starts: SIGHUP, SIGINT and SIGTERM go to the signal watcher only.
  const sigset_t previousMask = reload::SignalWatcher::blockSignals();
  struct RestoreMask {
    sigset_t mask;
    ~RestoreMask() { reload::SignalWatcher::restoreSignals(mask); }
  } restoreMask{previousMask};

  cycle::SchedulerServices services;
  profile::LoadRequest request;
  request.hostConfigFile = args.config;
  request.defaultPluginDirs = args.pluginDirs;
  config::Diagnostics diags;
  profile::GenerationPtr first = profile::buildGeneration(request, 1, &services, diags);
  printDiagnostics(diags);
  if (first == nullptr) {
    std::cerr << "schedhost run: " << diags.errorCount() << " configuration error(s)\n";
    return 1;
  }
  const config::HostConfig& host = first->set.host;

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
  so.parallelism = host.parallelism;
  so.percentageOfNodesToScore = host.percentageOfNodesToScore;
  so.seed = args.seed;
  so.queue.initialBackoff = std::chrono::seconds(host.podInitialBackoffSeconds);
  so.queue.maxBackoff = std::chrono::seconds(host.podMaxBackoffSeconds);
  auto start = std::chrono::steady_clock::now();
  cycle::SchedulerStats stats;
  std::size_t pending = 0;
  std::size_t gated = 0;
  connectors::LatencySummary latency;
  {
    cycle::Scheduler scheduler(first->set.frameworks, cluster, &log, so);
    scheduler.setDrainWarning(std::chrono::seconds(host.reload.drainWarningSeconds));
    services.attach(&cluster, &scheduler.waitingPods());

    reload::Reloader::Options ro;
    ro.request = request;
    ro.services = &services;
    ro.install = [&scheduler](const profile::GenerationPtr& g) {
      scheduler.installFrameworks(g->set.frameworks, g->number);
    };
    ro.report = [&log](const reload::ReloadResult& r) {
      connectors::ReloadDecision d;
      d.generation = r.generation;
      d.applied = r.applied;
      d.changed = r.changed;
      d.error = r.error;
      log.reload(d);
      logReload(r);
    };
    reload::Reloader reloader(ro, first);
    reloader.start();
    reload::SignalWatcher signals([&reloader] { reloader.request("SIGHUP"); },
                                  [&scheduler](int) { scheduler.stop(); });
    signals.start();

    stats = scheduler.run(args.follow);

    signals.stop();
    reloader.stop();
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
