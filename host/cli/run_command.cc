// schedhost run: the embedded cluster scheduled by a live scheduler whose profiles can be
// reloaded (SIGHUP, file changes, POST /reload) without a restart (docs/operations.md).
#include <atomic>
#include <chrono>
#include <iostream>
#include <memory>

#include <spdlog/spdlog.h>

#include "host/admin/server.h"
#include "host/cli/commands.h"
#include "host/cli/run_admin.h"
#include "host/connectors/decision_log.h"
#include "host/connectors/embedded_cluster.h"
#include "host/cycle/scheduler.h"
#include "host/cycle/scheduler_services.h"
#include "host/profile/generation.h"
#include "host/reload/file_watcher.h"
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

void watchGeneration(reload::FileWatcher& watcher, const profile::Generation& generation,
                     const profile::LoadRequest& request) {
  const reload::WatchTargets t = reload::watchTargets(generation, request);
  for (const std::string& w : watcher.setTargets(t.files, t.directories)) {
    spdlog::warn("watch: {}", w);
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

  metrics::SchedulerMetrics metrics;  // outlives every framework: they record into it
  cycle::SchedulerServices services;
  profile::LoadRequest request;
  request.hostConfigFile = args.config;
  request.defaultPluginDirs = args.pluginDirs;
  request.metrics = &metrics;
  config::Diagnostics diags;
  profile::GenerationPtr first = profile::buildGeneration(request, 1, &services, diags);
  printDiagnostics(diags);
  if (first == nullptr) {
    std::cerr << "schedhost run: " << diags.errorCount() << " configuration error(s)\n";
    return 1;
  }
  const config::HostConfig host = first->set.host;  // a copy: `first` is released below
  metrics.profileGeneration.only().set(1);
  admin::ServerOptions adminOptions;
  adminOptions.address = args.adminAddress.empty() ? host.admin.address : args.adminAddress;
  adminOptions.socket = args.adminSocket.empty() ? host.admin.socket : args.adminSocket;

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
  so.maxConcurrentBindings = host.binding.maxConcurrent;
  so.seed = args.seed;
  so.queue.initialBackoff = std::chrono::seconds(host.podInitialBackoffSeconds);
  so.queue.maxBackoff = std::chrono::seconds(host.podMaxBackoffSeconds);
  so.metrics = &metrics;
  auto start = std::chrono::steady_clock::now();
  cycle::SchedulerStats stats;
  std::size_t pending = 0;
  std::size_t gated = 0;
  connectors::LatencySummary latency;
  {
    cycle::Scheduler scheduler(first->set.frameworks, cluster, &log, so);
    scheduler.setDrainWarning(std::chrono::seconds(host.reload.drainWarningSeconds));
    services.attach(&cluster, &scheduler.waitingPods());

    // Reloads: the reloader builds and installs generations; SIGHUP, file changes and the
    // admin endpoint ask for them.
    std::atomic<reload::FileWatcher*> watching{nullptr};
    reload::Reloader::Options ro;
    ro.request = request;
    ro.services = &services;
    ro.install = [&scheduler](const profile::GenerationPtr& g) {
      scheduler.installFrameworks(g->set.frameworks, g->number);
    };
    ro.report = [&log, &watching, &request, &metrics](const reload::ReloadResult& r,
                                                      const profile::GenerationPtr& current) {
      metrics.reloads.with({r.applied ? "Applied" : "Rejected"}).inc();
      metrics.pluginLoadFailures.only().inc(r.pluginLoadFailures);
      metrics.profileGeneration.only().set(static_cast<double>(r.generation));
      connectors::ReloadDecision d;
      d.generation = r.generation;
      d.applied = r.applied;
      d.changed = r.changed;
      d.error = r.error;
      log.reload(d);
      logReload(r);
      // A new generation may name other files and directories.
      if (reload::FileWatcher* w = watching.load(); w != nullptr && r.applied) {
        watchGeneration(*w, *current, request);
      }
    };
    reload::Reloader reloader(ro, first);
    reloader.start();

    std::unique_ptr<reload::FileWatcher> watcher;
    if (host.reload.watch) {
      watcher = std::make_unique<reload::FileWatcher>(
          std::chrono::milliseconds(host.reload.debounceMilliseconds),
          [&reloader] { reloader.request("file change"); },
          std::vector<std::string>{".toml", ".so"},
          [](const std::string& message) { spdlog::warn("watch: {}", message); });
      watchGeneration(*watcher, *first, request);
      if (Status ws = watcher->start(); !ws.ok()) {
        spdlog::warn("watch: {}; reload with SIGHUP or POST /reload instead", ws.message());
      }
      watching.store(watcher.get());
    }
    first.reset();  // the reloader holds the current generation; a replaced one must drain
    RunAdmin adminHandler(scheduler, reloader, metrics);
    admin::Server adminServer(adminOptions, adminHandler);
    if (!adminOptions.address.empty() || !adminOptions.socket.empty()) {
      if (Status as = adminServer.start(); !as.ok()) {
        std::cerr << "schedhost run: admin endpoints: " << as.message() << "\n";
        reloader.stop();
        services.attach(nullptr, nullptr);
        return 1;
      }
      if (!adminOptions.address.empty()) {
        std::cerr << "schedhost run: admin endpoints on " << adminOptions.address << " (port "
                  << adminServer.tcpPort() << ")\n";
      }
    }
    reload::SignalWatcher signals([&reloader] { reloader.request("SIGHUP"); },
                                  [&scheduler, &adminHandler](int) {
                                    adminHandler.setStopping();
                                    scheduler.stop();
                                  });
    signals.start();

    stats = scheduler.run(args.follow);

    adminHandler.setStopping();
    signals.stop();
    adminServer.stop();
    reloader.stop();  // no report after this: `watching` may go
    watching.store(nullptr);
    if (watcher != nullptr) {
      watcher->stop();
    }
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
