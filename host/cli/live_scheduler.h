// LiveScheduler: what `schedhost run` wires around the scheduling loop, whichever cluster it
// schedules (the embedded cluster or a Kubernetes API server): the first profile generation,
// the reloader with its triggers (SIGHUP, file changes, POST /reload), the admin endpoints,
// the signal watcher, and the summary at the end (docs/operations.md).
//
//   configure()  the host configuration and profiles; diagnostics on stderr
//   start()      the scheduler over a connector, reloads, admin endpoints, signals
//   run()        the loop, until the connector is exhausted or SIGTERM/SIGINT; then tears
//                everything down again
//   finish()     the summary line and text
#pragma once

#include <chrono>
#include <functional>
#include <memory>
#include <string>

#include "host/admin/server.h"
#include "host/cli/commands.h"
#include "host/config/host_config.h"
#include "host/connectors/connector.h"
#include "host/cycle/decision_log.h"
#include "host/cycle/scheduler.h"
#include "host/metrics/registry.h"

namespace sh::cli {

class LiveScheduler {
 public:
  explicit LiveScheduler(const RunArgs& args);
  ~LiveScheduler();
  LiveScheduler(const LiveScheduler&) = delete;
  LiveScheduler& operator=(const LiveScheduler&) = delete;

  // Reads the host configuration and builds the first generation; prints the diagnostics.
  // False (with a message on stderr) when there are errors.
  bool configure();
  // After configure().
  const config::HostConfig& hostConfig() const;

  // Runs on the signal watcher's thread after SIGTERM or SIGINT has stopped the loop.
  void onStop(std::function<void()> callback);
  // One more readiness condition for /readyz: "" when ready, else why not.
  void setReadiness(std::function<std::string()> check);
  // The secure port's leaderElection check (RunAdmin::setLeaderCheck); before start().
  void setLeaderCheck(std::function<std::string()> check);

  // After start(): kube-scheduler's secure port (secure_serving.h) with the admin endpoints'
  // handler, `options.gate` owned by it from now on. False (with a message) when it cannot
  // listen. Stopped by stopSecureServing() or when run() ends.
  bool startSecureServing(admin::ServerOptions options, std::unique_ptr<admin::Gate> gate);
  void stopSecureServing();

  // Creates the scheduler over `connector` (writing decisions to `log`), starts the reloader,
  // the file watcher, the admin endpoints and the signal watcher. `stopGrace` bounds the wait
  // for binding cycles after a stop (SchedulerOptions::stopGrace). False (with a message)
  // when the admin endpoints cannot start.
  bool start(connectors::Connector& connector, cycle::DecisionLog* log,
             std::chrono::milliseconds stopGrace = std::chrono::milliseconds(0));
  // The loop (Scheduler::run), then everything start() started is stopped and the scheduler
  // is destroyed. Without follow it returns once the connector is exhausted and nothing is
  // left to do.
  void run(bool follow);
  // Stops the loop as SIGTERM does (thread-safe).
  void stop();

  // The process's metrics registry (the admin endpoint's /metrics): where a connector adds
  // its own families. Valid as long as this object.
  metrics::Registry& metricsRegistry();

  // The summary: a decision-log line and the text on stderr. Seconds count from start() to
  // the end of run().
  void finish(cycle::DecisionLog& log);

 private:
  void tearDown();

  struct State;
  std::unique_ptr<State> state_;
};

}  // namespace sh::cli
