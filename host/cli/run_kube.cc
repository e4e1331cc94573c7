// schedhost run against a Kubernetes API server (docs/deploy.md): the informers fill the
// cache, the leader schedules, binds and status go back through the API.
//
// Startup, in kube-scheduler's order (cmd/kube-scheduler/app/server.go Run): the
// configuration and profiles; the API server's address and credentials (a kubeconfig or the
// pod's service account), checked with one request so that a wrong server, CA or token fails
// here with one line; the admin endpoints; the informers, waited on until every kind has been
// listed (/readyz turns ready then); leader election; and the scheduling loop once leading.
//
// Stopping: SIGTERM or SIGINT stops popping pods, lets the binding cycles finish (at most
// `shutdownGraceSeconds`), sends the queued status patches and events, releases the Lease and
// exits 0. Losing the Lease stops at once with exit code 1, as kube-scheduler does: another
// replica is scheduling by then.
#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdio>
#include <cstdlib>
#include <iostream>
#include <memory>
#include <mutex>
#include <thread>

#include <spdlog/spdlog.h>

#include "host/cli/commands.h"
#include "host/cli/live_scheduler.h"
#include "host/config/host_config.h"
#include "host/connectors/decision_log.h"
#include "host/kube/event_recorder.h"
#include "host/kube/https_transport.h"
#include "host/kube/kube_cluster.h"
#include "host/kube/leader_elector.h"
#include "host/kube/rest_config.h"

namespace sh::cli {
namespace {

// The settings of the API connection and of leader election: the host configuration's
// [clientConnection] and [leaderElection], each overridden by its flag.
struct KubeSettings {
  std::string kubeconfig;
  double qps = 50;
  int burst = 100;
  kube::LeaderElector::Options election;
  bool leaderElect = true;
};

std::optional<KubeSettings> kubeSettings(const RunArgs& args, const config::HostConfig& host,
                                         std::string& error) {
  KubeSettings s;
  s.kubeconfig =
      !args.kube.kubeconfig.empty() ? args.kube.kubeconfig : host.clientConnection.kubeconfig;
  s.qps = args.kube.qps >= 0 ? args.kube.qps : host.clientConnection.qps;
  s.burst = args.kube.burst > 0 ? args.kube.burst : host.clientConnection.burst;
  const config::HostConfig::LeaderElection& le = host.leaderElection;
  s.leaderElect = args.kube.leaderElect.value_or(le.leaderElect);
  s.election.leaseName = !args.kube.leaseName.empty() ? args.kube.leaseName : le.resourceName;
  s.election.leaseNamespace =
      !args.kube.leaseNamespace.empty() ? args.kube.leaseNamespace : le.resourceNamespace;
  s.election.leaseDuration = le.leaseDuration;
  s.election.renewDeadline = le.renewDeadline;
  s.election.retryPeriod = le.retryPeriod;
  struct Flag {
    const std::string& text;
    const char* name;
    std::chrono::milliseconds& into;
  };
  for (const Flag& f :
       {Flag{args.kube.leaseDuration, "--leader-elect-lease-duration", s.election.leaseDuration},
        Flag{args.kube.renewDeadline, "--leader-elect-renew-deadline", s.election.renewDeadline},
        Flag{args.kube.retryPeriod, "--leader-elect-retry-period", s.election.retryPeriod}}) {
    if (f.text.empty()) {
      continue;
    }
    std::string why;
    std::optional<std::chrono::nanoseconds> d = config::parseGoDuration(f.text, why);
    if (!d || *d < std::chrono::milliseconds(1)) {
      error = std::string(f.name) + " \"" + f.text +
              "\": " + (d ? std::string("must be at least 1ms") : why);
      return std::nullopt;
    }
    f.into = std::chrono::duration_cast<std::chrono::milliseconds>(*d);
  }
  if (s.leaderElect) {
    if (std::string why = kube::LeaderElector::validate(s.election); !why.empty()) {
      error = "leader election: " + why;
      return std::nullopt;
    }
  }
  return s;
}

}  // namespace

int runKube(const RunArgs& args) {
  LiveScheduler live(args);
  if (!live.configure()) {
    return 1;
  }
  const config::HostConfig& host = live.hostConfig();
  std::string error;
  std::optional<KubeSettings> settings = kubeSettings(args, host, error);
  if (!settings) {
    std::cerr << "schedhost run: " << error << "\n";
    return 1;
  }

  // Where the API server is and who we are.
  kube::RestConfigOptions ro;
  ro.kubeconfig = settings->kubeconfig;
  ro.context = args.kube.context;
  std::optional<kube::RestConfig> rest = kube::loadRestConfig(ro, error);
  if (!rest) {
    if (settings->kubeconfig.empty()) {
      error += ", or --cluster FILE for the embedded cluster";
    }
    std::cerr << "schedhost run: " << error << "\n";
    return 1;
  }
  const std::string where = rest->server + " (" +
                            (rest->context == "in-cluster" ? std::string("in-cluster config")
                                                           : "context \"" + rest->context + "\"") +
                            ")";
  if (rest->insecureSkipTlsVerify) {
    spdlog::warn(
        "{}: insecure-skip-tls-verify is set: the API server's certificate is not "
        "checked",
        where);
  }
  kube::HttpsTransport::Options to;
  to.config = *rest;
  to.qps = settings->qps;
  to.burst = settings->burst;
  std::unique_ptr<kube::HttpsTransport> transport = kube::HttpsTransport::create(to, error);
  if (transport == nullptr) {
    std::cerr << "schedhost run: API server " << where << ": " << error << "\n";
    return 1;
  }
  // One request now, so that a wrong address, CA or credential fails at startup.
  kube::Request probe;
  probe.path = "/api";
  if (kube::Response r = transport->send(probe); !r.ok()) {
    std::cerr << "schedhost run: API server " << where << ": " << kube::describeFailure(r) << "\n";
    return 1;
  }

  connectors::DecisionLog log(std::cout);
  kube::EventRecorder::Options eo;
  eo.hostname = kube::hostname();
  kube::EventRecorder recorder(*transport, eo);
  kube::KubeCluster::Options co;
  co.events = &recorder;
  co.eventLog = &log;
  kube::KubeCluster cluster(*transport, co);
  // The reflectors start listing now; nothing is queued for the loop before activate().
  // Started before the admin endpoints, which ask it whether it has synced.
  cluster.start();

  std::mutex mu;
  std::condition_variable changed;
  bool leading = false;
  std::atomic<bool> stopping{false};
  live.onStop([&] {
    stopping.store(true);
    cluster.stop();
    std::lock_guard<std::mutex> lock(mu);
    changed.notify_all();
  });
  live.setReadiness([&cluster]() -> std::string {
    return cluster.synced()
               ? std::string()
               : "the informers have not listed every kind yet: " + cluster.syncProblems();
  });
  if (!live.start(cluster, &log, std::chrono::seconds(args.kube.shutdownGraceSeconds))) {
    return 1;
  }
  spdlog::info("kubernetes: API server {}; listing and watching", where);
  while (!stopping.load() && !cluster.waitForSync(std::chrono::seconds(10))) {
    spdlog::info("kubernetes: waiting for the informers: {}", cluster.syncProblems());
  }

  // Leader election, then the loop. Losing the lease ends the process at once: another
  // replica schedules by now, and every pod this one would still bind could be bound twice.
  std::unique_ptr<kube::LeaderElector> elector;
  std::jthread electing;
  if (settings->leaderElect && !stopping.load()) {
    elector = std::make_unique<kube::LeaderElector>(*transport, settings->election);
    kube::LeaderElector::Callbacks cb;
    cb.onStartedLeading = [&] {
      std::lock_guard<std::mutex> lock(mu);
      leading = true;
      changed.notify_all();
    };
    cb.onStoppedLeading = [&] {
      if (stopping.load()) {
        return;  // we let go: SIGTERM
      }
      spdlog::error("leaderelection lost");
      std::fflush(nullptr);
      std::_Exit(1);
    };
    electing = std::jthread([&elector, cb](std::stop_token stop) { elector->run(stop, cb); });
    spdlog::info("leader election: waiting to lead {}/{} as {}", settings->election.leaseNamespace,
                 settings->election.leaseName, settings->election.identity);
    std::unique_lock<std::mutex> lock(mu);
    changed.wait(lock, [&] { return leading || stopping.load(); });
  }

  int code = 0;
  if (!stopping.load()) {
    cluster.activate();
    live.run(/*follow=*/true);
  }
  // Binding cycles are done (or their grace ran out): what they wrote goes out, then the
  // lease goes back.
  cluster.flushWrites(std::chrono::seconds(5));
  recorder.flush(std::chrono::seconds(5));
  if (electing.joinable()) {
    electing.request_stop();
    electing.join();
  }
  live.finish(log);
  return code;
}

}  // namespace sh::cli
