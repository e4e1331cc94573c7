#include "host/cli/live_scheduler.h"

#include <atomic>
#include <iostream>
#include <mutex>
#include <optional>
#include <sstream>
#include <string>

#include <spdlog/spdlog.h>

#include "host/admin/server.h"
#include "host/cli/logging.h"
#include "host/cli/run_admin.h"
#include "host/config/feature_gates.h"
#include "host/cycle/scheduler_services.h"
#include "host/extender/http_extender.h"
#include "host/framework/plugin_call.h"
#include "host/metrics/scheduler_metrics.h"
#include "host/profile/generation.h"
#include "host/reload/file_watcher.h"
#include "host/reload/reloader.h"
#include "host/reload/signals.h"

namespace sh::cli {
namespace {

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

struct LiveScheduler::State {
  explicit State(const RunArgs& a) : args(a) {}

  // Before any thread starts: SIGHUP, SIGINT and SIGTERM go to the signal watcher only.
  sigset_t previousMask = reload::SignalWatcher::blockSignals();
  const RunArgs args;
  std::chrono::steady_clock::time_point started = std::chrono::steady_clock::now();
  std::chrono::steady_clock::time_point finished = started;
  metrics::SchedulerMetrics metrics;  // outlives every framework: they record into it
  cycle::SchedulerServices services;
  profile::LoadRequest request;
  profile::GenerationPtr first;
  config::HostConfig host;
  cycle::Extenders extenders;  // the host configuration's, made once at start
  std::function<void()> onStop;
  std::function<std::string()> readiness;
  std::function<std::string()> leaderCheck;

  cycle::DecisionLog* log = nullptr;
  std::unique_ptr<cycle::Scheduler> scheduler;
  std::atomic<reload::FileWatcher*> watching{nullptr};
  std::unique_ptr<reload::Reloader> reloader;
  std::unique_ptr<reload::FileWatcher> watcher;
  std::unique_ptr<RunAdmin> adminHandler;
  std::unique_ptr<admin::Server> adminServer;
  std::unique_ptr<admin::Gate> secureGate;      // outlives secureServer
  std::unique_ptr<admin::Server> secureServer;  // kube-scheduler's secure port
  std::unique_ptr<reload::SignalWatcher> signals;
  std::unique_ptr<PluginWatchdog> watchdog;  // [plugins] callWarningSeconds; read at start
  std::mutex stopMu;
  bool stopRequested = false;

  cycle::SchedulerStats stats;
  cycle::Scheduler::PendingOutcome outcome;
  cycle::LatencySummary latency;

  ~State() { reload::SignalWatcher::restoreSignals(previousMask); }
};

LiveScheduler::LiveScheduler(const RunArgs& args) : state_(std::make_unique<State>(args)) {}

LiveScheduler::~LiveScheduler() {
  // A start() without run() (startup failed): tear down in order.
  if (state_->scheduler != nullptr) {
    stop();
    tearDown();
  }
}

metrics::Registry& LiveScheduler::metricsRegistry() { return state_->metrics.registry(); }

bool LiveScheduler::configure() {
  State& s = *state_;
  s.request.hostConfigFile = s.args.config;
  s.request.defaultPluginDirs = s.args.pluginDirs;
  s.request.metrics = &s.metrics;
  config::Diagnostics diags;
  s.first = profile::buildGeneration(s.request, 1, &s.services, diags);
  std::cerr << diags.str();
  if (s.first == nullptr) {
    std::cerr << "schedhost run: " << diags.errorCount() << " configuration error(s)\n";
    return false;
  }
  s.host = s.first->set.host;
  for (std::size_t i = 0; i < s.host.extenders.size(); ++i) {
    std::string error;
    auto extender = extender::HttpExtender::create(s.host.extenders[i], error);
    if (extender == nullptr) {
      std::cerr << "schedhost run: " << s.host.file << ": extenders[" << i << "] ("
                << s.host.extenders[i].urlPrefix << "): " << error << "\n";
      return false;
    }
    s.extenders.push_back(std::move(extender));
  }
  s.metrics.profileGeneration.only().set(1);
  return true;
}

const config::HostConfig& LiveScheduler::hostConfig() const { return state_->host; }

void LiveScheduler::onStop(std::function<void()> callback) { state_->onStop = std::move(callback); }

void LiveScheduler::setReadiness(std::function<std::string()> check) {
  state_->readiness = std::move(check);
}

void LiveScheduler::setLeaderCheck(std::function<std::string()> check) {
  state_->leaderCheck = std::move(check);
}

bool LiveScheduler::startSecureServing(admin::ServerOptions options,
                                       std::unique_ptr<admin::Gate> gate) {
  State& s = *state_;
  s.secureGate = std::move(gate);
  options.gate = s.secureGate.get();
  s.secureServer = std::make_unique<admin::Server>(options, *s.adminHandler);
  if (Status st = s.secureServer->start(); !st.ok()) {
    std::cerr << "schedhost run: secure serving: " << st.message() << "\n";
    s.secureServer.reset();
    return false;
  }
  spdlog::info("Serving securely on {} (port {})", options.address, s.secureServer->tcpPort());
  return true;
}

void LiveScheduler::stopSecureServing() {
  State& s = *state_;
  if (s.secureServer != nullptr) {
    s.secureServer->stop();
    s.secureServer.reset();
  }
}

bool LiveScheduler::start(connectors::Connector& connector, cycle::DecisionLog* log,
                          std::chrono::milliseconds stopGrace) {
  State& s = *state_;
  s.log = log;
  s.started = std::chrono::steady_clock::now();
  cycle::SchedulerOptions so;
  so.parallelism = s.host.parallelism;
  so.percentageOfNodesToScore = s.host.percentageOfNodesToScore;
  so.maxConcurrentBindings = s.host.binding.maxConcurrent;
  so.seed = s.args.seed;
  so.queue.initialBackoff = std::chrono::seconds(s.host.podInitialBackoffSeconds);
  so.queue.maxBackoff = std::chrono::seconds(s.host.podMaxBackoffSeconds);
  so.metrics = &s.metrics;
  so.stopGrace = stopGrace;
  so.objects = s.services.objectStore();
  so.extenders = s.extenders;
  so.asyncPreemption = config::processFeatureGates().enabled("SchedulerAsyncPreemption");
  s.scheduler = std::make_unique<cycle::Scheduler>(s.first->set.frameworks, connector, log, so);
  s.scheduler->setDrainWarning(std::chrono::seconds(s.host.reload.drainWarningSeconds));
  if (s.host.plugins.callWarningSeconds > 0) {
    s.watchdog = std::make_unique<PluginWatchdog>(
        std::chrono::duration_cast<std::chrono::nanoseconds>(
            std::chrono::duration<double>(s.host.plugins.callWarningSeconds)),
        &s.metrics.pluginSlowCalls);
  }
  s.services.attach(&connector, &s.scheduler->waitingPods(), s.scheduler.get());

  // Reloads: the reloader builds and installs generations; SIGHUP, file changes and the
  // admin endpoint ask for them.
  reload::Reloader::Options ro;
  ro.request = s.request;
  ro.services = &s.services;
  ro.install = [&s](const profile::GenerationPtr& g) {
    s.scheduler->installFrameworks(g->set.frameworks, g->number);
  };
  ro.report = [&s](const reload::ReloadResult& r, const profile::GenerationPtr& current) {
    s.metrics.reloads.with({r.applied ? "Applied" : "Rejected"}).inc();
    s.metrics.pluginLoadFailures.only().inc(r.pluginLoadFailures);
    s.metrics.profileGeneration.only().set(static_cast<double>(r.generation));
    if (s.log != nullptr) {
      cycle::ReloadDecision d;
      d.generation = r.generation;
      d.applied = r.applied;
      d.changed = r.changed;
      d.error = r.error;
      s.log->reload(d);
    }
    logReload(r);
    // A new generation may name other files and directories.
    if (reload::FileWatcher* w = s.watching.load(); w != nullptr && r.applied) {
      watchGeneration(*w, *current, s.request);
    }
  };
  s.reloader = std::make_unique<reload::Reloader>(ro, s.first);
  s.reloader->start();

  if (s.host.reload.watch) {
    s.watcher = std::make_unique<reload::FileWatcher>(
        std::chrono::milliseconds(s.host.reload.debounceMilliseconds),
        [&s] { s.reloader->request("file change"); }, std::vector<std::string>{".toml", ".so"},
        [](const std::string& message) { spdlog::warn("watch: {}", message); });
    watchGeneration(*s.watcher, *s.first, s.request);
    if (Status ws = s.watcher->start(); !ws.ok()) {
      spdlog::warn("watch: {}; reload with SIGHUP or POST /reload instead", ws.message());
    }
    s.watching.store(s.watcher.get());
  }
  s.first.reset();  // the reloader holds the current generation; a replaced one must drain

  s.adminHandler = std::make_unique<RunAdmin>(*s.scheduler, *s.reloader, s.metrics);
  s.adminHandler->setReadiness(s.readiness);
  if (s.leaderCheck) {
    s.adminHandler->setLeaderCheck(s.leaderCheck);
  }
  admin::ServerOptions adminOptions = adminServerOptions(
      s.host, s.args.adminAddress, s.args.adminSocket, s.args.adminRemoteHealthAndMetrics);
  s.adminServer = std::make_unique<admin::Server>(adminOptions, *s.adminHandler);
  if (!adminOptions.address.empty() || !adminOptions.socket.empty()) {
    if (Status as = s.adminServer->start(); !as.ok()) {
      std::cerr << "schedhost run: admin endpoints: " << as.message() << "\n";
      return false;
    }
    if (!adminOptions.address.empty()) {
      std::cerr << "schedhost run: admin endpoints on " << adminOptions.address << " (port "
                << s.adminServer->tcpPort() << ")\n";
    }
  }
  s.signals = std::make_unique<reload::SignalWatcher>([&s] { s.reloader->request("SIGHUP"); },
                                                      [this](int) { stop(); });
  s.signals->start();
  return true;
}

void LiveScheduler::stop() {
  State& s = *state_;
  {
    std::lock_guard<std::mutex> lock(s.stopMu);
    if (s.stopRequested) {
      return;
    }
    s.stopRequested = true;
  }
  if (s.adminHandler != nullptr) {
    s.adminHandler->setStopping();
  }
  if (s.scheduler != nullptr) {
    s.scheduler->stop();
  }
  if (s.onStop) {
    s.onStop();
  }
}

void LiveScheduler::run(bool follow) {
  State& s = *state_;
  if (s.scheduler == nullptr) {
    return;
  }
  bool stopped = false;
  {
    std::lock_guard<std::mutex> lock(s.stopMu);
    stopped = s.stopRequested;
  }
  s.stats = stopped ? s.scheduler->stats() : s.scheduler->run(follow);
  tearDown();
}

void LiveScheduler::tearDown() {
  State& s = *state_;
  if (s.adminHandler != nullptr) {
    s.adminHandler->setStopping();
  }
  if (s.signals != nullptr) {
    s.signals->stop();
  }
  if (s.adminServer != nullptr) {
    s.adminServer->stop();
  }
  stopSecureServing();
  if (s.reloader != nullptr) {
    s.reloader->stop();  // no report after this: `watching` may go
  }
  s.watching.store(nullptr);
  if (s.watcher != nullptr) {
    s.watcher->stop();
  }
  s.finished = std::chrono::steady_clock::now();
  s.outcome = s.scheduler->pendingOutcome();
  s.latency = s.scheduler->latencies().summary();
  s.services.attach(nullptr, nullptr, nullptr);
  s.signals.reset();
  s.adminServer.reset();
  s.adminHandler.reset();
  s.scheduler.reset();
}

void LiveScheduler::finish(cycle::DecisionLog& log) {
  State& s = *state_;
  if (s.scheduler != nullptr) {
    // start() without run(): a standby replica that never led. Torn down now, so the summary
    // counts from start() to now.
    stop();
    tearDown();
  }
  const double elapsed = std::chrono::duration<double>(s.finished - s.started).count();
  cycle::RunSummary summary;
  summary.scheduled = s.stats.scheduled;
  summary.unschedulable = s.outcome.unschedulable;
  summary.failed = s.outcome.failed;
  summary.pending = s.outcome.pending;
  summary.preemptions = s.stats.preemptions;
  summary.preemptionVictims = s.stats.preemptionVictims;
  summary.elapsedSeconds = elapsed;
  summary.attemptLatency = s.latency;
  log.summary(summary);
  const std::string text = cycle::summaryText(summary);
  if (jsonLogging()) {
    // One log line per line of the summary, so that stderr stays JSON lines.
    std::istringstream lines(text);
    for (std::string line; std::getline(lines, line);) {
      spdlog::info("{}", line);
    }
  } else {
    std::cerr << text;
  }
}

}  // namespace sh::cli
