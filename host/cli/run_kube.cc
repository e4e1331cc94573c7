// schedhost run against a Kubernetes API server (docs/deploy.md): the informers fill the
// cache, the leader schedules, binds and status go back through the API.
//
// Startup, in kube-scheduler's order (cmd/kube-scheduler/app/server.go Run): the
// configuration and profiles; the API server's address and credentials (a kubeconfig or the
// pod's service account), checked with one request so that a wrong server, CA or token fails
// here with one line; the admin endpoints; the informers, waited on until every kind has been
// listed (/readyz turns ready then); leader election; and the scheduling loop once leading.
//
// Stopping: SIGTERM or SIGINT stops popping pods, lets the binding cycles finish, sends the
// queued status patches and events, releases the Lease and exits 0 — all of it within
// `shutdownGraceSeconds` (default 30, inside the unit's TimeoutStopSec and the Deployment's
// terminationGracePeriodSeconds of 45), however the API server behaves: binding cycles get
// half of the grace less 10 s twice (before and after the pods waiting on Permit are
// rejected), but binds and deletes still waiting on the API server are cancelled 5 s after
// the signal; the writes and events 2.5 s each, the Lease's release 2 s for both requests;
// 3 s before the end every request still in flight is cancelled, and at the end the process
// exits (code 1, saying so) whatever is left. Losing the Lease stops at once with exit code 1,
// as kube-scheduler does: another replica may schedule by then (leader_elector.h: the renew
// deadline is enforced by a watchdog, not by the renewing request's return).
#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdio>
#include <cstdlib>
#include <functional>
#include <iostream>
#include <memory>
#include <mutex>
#include <stop_token>
#include <string>
#include <string_view>
#include <thread>
#include <utility>
#include <vector>

#include <spdlog/spdlog.h>

#include "host/cli/commands.h"
#include "host/cli/kube_metrics.h"
#include "host/cli/live_scheduler.h"
#include "host/cli/secure_serving.h"
#include "host/cli/secure_serving_options.h"
#include "host/config/host_config.h"
#include "host/connectors/kube/event_recorder.h"
#include "host/connectors/kube/https_transport.h"
#include "host/connectors/kube/kube_cluster.h"
#include "host/connectors/kube/leader_elector.h"
#include "host/connectors/kube/proto/transcode.h"
#include "host/connectors/kube/rest_config.h"
#include "host/cycle/decision_log.h"

namespace sh::cli {
namespace {

// The settings of the API connection and of leader election: the host configuration's
// [clientConnection] and [leaderElection], each overridden by its flag.
struct KubeSettings {
  std::string kubeconfig;
  double qps = 50;
  int burst = 100;
  // The Accept header of lists and watches of the kinds with a protobuf schema; empty: JSON.
  std::string protobufAccept;
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
  // client-go's Accept: acceptContentTypes, else contentType and ", */*" (rest.Request).
  const std::string& contentType =
      !args.kube.contentType.empty() ? args.kube.contentType : host.clientConnection.contentType;
  const std::string accept = !host.clientConnection.acceptContentTypes.empty()
                                 ? host.clientConnection.acceptContentTypes
                                 : contentType + ", */*";
  if (accept.find(kube::proto::kProtobufContentType) != std::string::npos) {
    s.protobufAccept = accept;
  }
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

// How long after the stop signal the binds and deletes still waiting on the API server are
// cancelled: 5 s, or a quarter of the grace when shorter. A bind to a server that answers
// takes milliseconds; one that does not answer would otherwise hold its binding cycle (and
// the stop) for the whole request timeout. kube-scheduler cancels them at once.
std::chrono::milliseconds bindCancelDelay(std::chrono::seconds grace) {
  return std::min<std::chrono::milliseconds>(std::chrono::seconds(5),
                                             std::chrono::milliseconds(grace) / 4);
}

// kube-scheduler's secure port (secure_serving.h, secure_serving_options.h), or a message on
// stderr and false. The reviews, and the lookup of the cluster's authentication configuration,
// go through `transport` unless --authentication-kubeconfig or --authorization-kubeconfig
// names another kubeconfig; its connection is kept in `own`.
bool serveSecurely(LiveScheduler& live, const RunArgs& args, kube::HttpsTransport& transport,
                   const std::string& kubeconfig,
                   std::vector<std::unique_ptr<kube::HttpsTransport>>& own) {
  const ServingFlags& serving = args.serving;
  admin::ServerOptions options;
  const std::string host = serving.bindAddress.empty() ? "0.0.0.0" : serving.bindAddress;
  options.address = (host.find(':') != std::string::npos ? "[" + host + "]" : host) + ":" +
                    std::to_string(serving.securePort.value_or(10259));
  std::string error;
  std::optional<DelegatedAuth::Options> ao = delegatedAuthOptions(serving, error);
  if (!ao) {
    std::cerr << "schedhost run: " << error << "\n";
    return false;
  }
  admin::ServerOptions::Tls tls;
  if (!servingCertificate(serving, tls.certificatePem, tls.privateKeyPem, error)) {
    std::cerr << "schedhost run: secure serving: " << error << "\n";
    return false;
  }

  // The reviews' connections: the scheduler's own, unless a flag names another kubeconfig.
  auto connection = [&](const std::string& flag, const std::string& path) -> kube::Transport* {
    if (path.empty() || path == kubeconfig) return &transport;
    kube::RestConfigOptions ro;
    ro.kubeconfig = path;
    std::optional<kube::RestConfig> rest = kube::loadRestConfig(ro, error);
    kube::HttpsTransport::Options to;
    if (rest) {
      to.config = *rest;
      if (auto t = kube::HttpsTransport::create(to, error)) {
        own.push_back(std::move(t));
        return own.back().get();
      }
    }
    std::cerr << "schedhost run: " << flag << " " << path << ": " << error << "\n";
    return nullptr;
  };
  kube::Transport* authentication =
      connection("--authentication-kubeconfig", serving.authenticationKubeconfig);
  kube::Transport* authorization =
      connection("--authorization-kubeconfig", serving.authorizationKubeconfig);
  if (authentication == nullptr || authorization == nullptr) return false;
  if (!applyClientAuthentication(serving, authentication, *ao, tls.clientCaPem, error)) {
    std::cerr << "schedhost run: secure serving: " << error << "\n";
    return false;
  }
  options.tls = std::move(tls);
  return live.startSecureServing(
      std::move(options),
      std::make_unique<DelegatedAuth>(authentication, authorization, std::move(*ao)));
}

// Runs from the stop signal on: after bindCancelDelay(grace) the binds and deletes in flight
// are cancelled (`cancelBinds`); 3 s before `grace` is over (half of it when shorter), every
// request still in flight is cancelled; when it is over, the process exits with code 1. `done`
// ends the watch: the stop finished in time.
void watchTheStop(kube::HttpsTransport& transport, const std::function<void()>& cancelBinds,
                  std::chrono::seconds grace, const std::stop_token& done) {
  std::mutex waitMu;
  std::condition_variable_any wake;
  std::unique_lock<std::mutex> lock(waitMu);
  const auto start = std::chrono::steady_clock::now();
  wake.wait_until(lock, done, start + bindCancelDelay(grace), [] { return false; });
  if (done.stop_requested()) {
    return;
  }
  cancelBinds();
  const auto cancelAt =
      start + grace - std::min<std::chrono::seconds>(grace / 2, std::chrono::seconds(3));
  wake.wait_until(lock, done, cancelAt, [] { return false; });
  if (done.stop_requested()) {
    return;
  }
  spdlog::warn("stopping: cancelling the requests to the API server still in flight");
  transport.cancelAll();
  wake.wait_until(lock, done, start + grace, [] { return false; });
  if (done.stop_requested()) {
    return;
  }
  spdlog::error("stopping: not done {} s after the signal (--shutdown-grace-seconds); exiting",
                grace.count());
  std::fflush(nullptr);
  std::_Exit(1);
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
  std::optional<kube::RestConfig> rest;
  const std::string& master = args.kube.master;
  if (!master.empty() && master.rfind("https://", 0) != 0 && master.rfind("http://", 0) != 0) {
    std::cerr << "schedhost run: --master \"" << master
              << "\": expected an http:// or https:// URL\n";
    return 1;
  }
  if (!master.empty() && settings->kubeconfig.empty()) {
    // client-go's BuildConfigFromFlags(master, ""): the address alone, no credentials.
    rest.emplace();
    rest->server = master;
    rest->context = "--master";
    rest->source = "--master";
    rest->namespaceName = "default";
  } else {
    rest = kube::loadRestConfig(ro, error);
    if (rest && !master.empty()) {
      rest->server = master;  // the kubeconfig's credentials, this address
    }
  }
  while (rest && !rest->server.empty() && rest->server.back() == '/') {
    rest->server.pop_back();
  }
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
  to.protobufAccept = settings->protobufAccept;
  to.burst = settings->burst;
  to.onRequest = restClientMetrics(live.metricsRegistry(), rest->server);
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

  cycle::DecisionLog log(std::cout);
  kube::EventRecorder::Options eo;
  eo.hostname = kube::hostname();
  kube::EventRecorder recorder(*transport, eo);
  kube::KubeCluster::Options co;
  co.reflector.protobufAccept = settings->protobufAccept;
  co.events = &recorder;
  co.eventLog = &log;
  kube::KubeCluster cluster(*transport, co);
  // Declared after the cluster: destroyed first, so that a late scrape never reads it.
  KubeMetrics clusterMetrics(live.metricsRegistry(), cluster);
  if (host.delayCacheUntilActive && settings->leaderElect) {
    spdlog::warn(
        "{}: delayCacheUntilActive: the cache is filled while waiting to lead, as with false "
        "(a faster takeover, the memory of a full cache on every replica)",
        host.file);
  }
  // The reflectors start listing now; nothing is queued for the loop before activate().
  // Started before the admin endpoints, which ask it whether it has synced.
  cluster.start();

  std::mutex mu;
  std::condition_variable changed;
  bool leading = false;
  std::atomic<bool> stopping{false};
  const std::chrono::seconds grace(std::max(args.kube.shutdownGraceSeconds, 1));
  // Bounds the whole stop, once it begins (see the top of the file).
  std::jthread stopWatch;
  live.onStop([&] {
    stopping.store(true);
    cluster.stop();
    {
      std::lock_guard<std::mutex> lock(mu);
      changed.notify_all();
    }
    std::lock_guard<std::mutex> lock(mu);
    if (!stopWatch.joinable()) {
      stopWatch = std::jthread([&transport, &cluster, grace](std::stop_token done) {
        watchTheStop(
            *transport, [&cluster] { cluster.cancelBinds(); }, grace, done);
      });
    }
  });
  // The scheduler waits this for binding cycles, then rejects the pods waiting on Permit and
  // waits as long again: two of these, the writes and the release fit in the grace.
  const std::chrono::seconds bindGrace = std::max<std::chrono::seconds>(
      std::chrono::seconds(1), (grace - std::chrono::seconds(10)) / 2);
  // The leaderElection check of the secure port's /healthz and /readyz (the elector is made
  // once the informers have synced).
  std::atomic<kube::LeaderElector*> electorForChecks{nullptr};
  if (settings->leaderElect) {
    live.setLeaderCheck([&electorForChecks] {
      const kube::LeaderElector* e = electorForChecks.load();
      return e == nullptr ? std::string() : e->check(std::chrono::seconds(20));
    });
  }
  std::unique_ptr<kube::LeaderElector> elector;
  if (!live.start(cluster, &log, bindGrace)) {
    return 1;
  }
  std::vector<std::unique_ptr<kube::HttpsTransport>> reviewTransports;
  // Stops the secure port before what its requests use goes: the transports, the elector.
  struct StopSecureServing {
    LiveScheduler& live;
    ~StopSecureServing() { live.stopSecureServing(); }
  } stopSecureServing{live};
  if (args.serving.securePort.value_or(10259) != 0 &&
      !serveSecurely(live, args, *transport, settings->kubeconfig, reviewTransports)) {
    return 1;
  }
  spdlog::info("kubernetes: API server {}; listing and watching", where);
  while (!stopping.load() && !cluster.waitForSync(std::chrono::seconds(10))) {
    spdlog::info("kubernetes: waiting for the informers: {}", cluster.syncProblems());
  }

  // Leader election, then the loop. Losing the lease ends the process at once: another
  // replica schedules by now, and every pod this one would still bind could be bound twice.
  std::jthread electing;
  metrics::Gauge* masterStatus = nullptr;  // leader_election_master_status{name=the lease}
  if (settings->leaderElect && !stopping.load()) {
    elector = std::make_unique<kube::LeaderElector>(*transport, settings->election);
    electorForChecks.store(elector.get());
    masterStatus = &leaderElectionStatus(live.metricsRegistry(), settings->election.leaseName);
    kube::LeaderElector::Callbacks cb;
    cb.onStartedLeading = [&] {
      masterStatus->set(1);
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
  cluster.flushWrites(std::chrono::milliseconds(2500));
  recorder.flush(std::chrono::milliseconds(2500));
  if (electing.joinable()) {
    electing.request_stop();
    electing.join();
    masterStatus->set(0);
  }
  // Nothing more to send: whatever is still waiting on the server ends now.
  transport->cancelAll();
  live.finish(log);
  std::jthread watch;
  {
    std::lock_guard<std::mutex> lock(mu);
    watch = std::move(stopWatch);
  }
  if (watch.joinable()) {
    watch.request_stop();
    watch.join();
  }
  return code;
}

}  // namespace sh::cli
