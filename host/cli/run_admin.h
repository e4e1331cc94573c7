// RunAdmin: what `schedhost run` serves on the admin endpoints (admin::Handler) — health and
// readiness, /configz from the current generation, /metrics from the scheduler's metrics and
// its queue, /status, and POST /reload through the reloader (docs/operations.md).
#pragma once

#include <atomic>
#include <functional>
#include <string>
#include <vector>

#include "host/admin/server.h"
#include "host/config/host_config.h"
#include "host/cycle/scheduler.h"
#include "host/explain/explanation.h"
#include "host/metrics/scheduler_metrics.h"
#include "host/reload/reloader.h"

namespace sh::cli {

class RunAdmin : public admin::Handler {
 public:
  // The queue's metrics are read at each scrape.
  RunAdmin(cycle::Scheduler& scheduler, reload::Reloader& reloader,
           metrics::SchedulerMetrics& metrics)
      : scheduler_(scheduler), reloader_(reloader), metrics_(metrics) {}

  // Shutting down: /readyz answers 503 from now on.
  void setStopping() { stopping_.store(true); }
  // The connector's condition of /readyz, in place of "the loop has applied the initial
  // state": "" when ready, else why not (the informers have not synced). Set before the
  // server starts.
  void setReadiness(std::function<std::string()> check) { readiness_ = std::move(check); }
  // The secure port's "leaderElection" check of /healthz and /readyz, with leader election:
  // "" when passing, else why not. Set before the server starts.
  void setLeaderCheck(std::function<std::string()> check) { leaderCheck_ = std::move(check); }

  admin::Probe health(std::stop_token stop) override;
  admin::Probe readiness(std::stop_token stop) override;
  std::string configJson(std::stop_token stop) override;
  std::string metricsText(std::stop_token stop) override;
  std::string statusJson(std::stop_token stop) override;
  admin::ReloadOutcome reload(std::stop_token stop) override;
  // kube-scheduler's named checks (cmd/kube-scheduler/app/server.go): /healthz
  // leaderElection (ping without leader election), /livez ping, /readyz leaderElection,
  // shutdown, sched-handler-sync.
  std::vector<admin::CheckResult> checks(admin::HealthPath path, std::stop_token stop) override;
  // /debug/pods/NAMESPACE/NAME: the pod's last failed attempt, explained (json, text or html).
  admin::DebugAnswer debugPod(std::string_view podNamespace, std::string_view name,
                              std::string_view format, std::stop_token stop) override;

 private:
  void addWhatIfs(const std::string& key, explain::Explanation& e);

  cycle::Scheduler& scheduler_;
  reload::Reloader& reloader_;
  metrics::SchedulerMetrics& metrics_;
  std::atomic<bool> stopping_{false};
  std::function<std::string()> readiness_;
  std::function<std::string()> leaderCheck_;
};

// The admin server's options for `schedhost run`: the [admin] table (address, socket and the
// remoteHealthAndMetrics opt-in), with --admin-address and --admin-socket, when given,
// overriding their field, and --admin-remote-health-and-metrics (`remoteFlag`) opting in as the
// field does (a KubeSchedulerConfiguration has no [admin] table).
admin::ServerOptions adminServerOptions(const config::HostConfig& host,
                                        const std::string& addressFlag,
                                        const std::string& socketFlag, bool remoteFlag);

// The reload result as the Reload decision line and POST /reload's body write it.
std::string reloadJson(const reload::ReloadResult& result);

}  // namespace sh::cli
