// `schedhost run --kubeconfig` as an operator runs it, against the test API server over
// loopback HTTPS: initial sync then scheduling, status and events written back, watches that
// drop and expire, churn, leader election between two processes, SIGTERM, rate limiting, token
// rotation, the secure port (its certificate, its callers, the cluster's authentication
// configuration), and the startup errors. Every test ends by checking the cluster's invariants: no
// pod bound twice, no node given more cpu than it has.
#include <signal.h>

#include <chrono>
#include <fstream>
#include <map>
#include <optional>
#include <set>
#include <sstream>
#include <string>
#include <thread>
#include <tuple>
#include <vector>

#include <gtest/gtest.h>
#include <boost/json.hpp>

#include "host/admin/client.h"
#include "host/connectors/kube/https_transport.h"
#include "tests/kube/support/fake_apiserver.h"
#include "tests/kube/support/https_client.h"
#include "tests/kube/support/kube_fixture.h"
#include "tests/kube/support/schedhost_process.h"
#include "tests/kube/support/test_certs.h"
#include "tests/metrics/prometheus_text_parser.h"

namespace sh::kubetest::run_kube_test {
namespace {

namespace json = boost::json;
using namespace std::chrono_literals;

constexpr auto kDeadline = 60s;

// The pod's PodScheduled condition, or null.
std::optional<json::object> podScheduled(const FakeApiServer& server, const std::string& ns,
                                         const std::string& name) {
  auto pod = server.get("pods", ns, name);
  if (!pod) {
    return std::nullopt;
  }
  const json::value* conditions = nullptr;
  if (const json::value* status = pod->if_contains("status"); status && status->is_object()) {
    conditions = status->as_object().if_contains("conditions");
  }
  if (conditions == nullptr || !conditions->is_array()) {
    return std::nullopt;
  }
  for (const json::value& c : conditions->as_array()) {
    if (c.is_object() && stringAt(c.as_object(), {"type"}) == "PodScheduled") {
      return c.as_object();
    }
  }
  return std::nullopt;
}

class RunKubeTest : public ::testing::Test {
 protected:
  void SetUp() override {
    tls_ = makeTlsMaterial("schedhost");
    FakeApiServer::Options o;
    o.tls = tls_;
    o.tokens = {"token-a", "token-b"};
    o.watchChunkMax = 13;  // every watch body cut at odd places
    o.bookmarkInterval = 500ms;
    // For the secure port's delegated authentication and authorization.
    o.reviewTokens = {{"scrape-token",
                       {"system:serviceaccount:monitoring:prometheus", {"system:serviceaccounts"}}},
                      {"nobody-token", {"system:serviceaccount:default:nobody", {}}}};
    o.allowedAccess = {"system:serviceaccount:monitoring:prometheus get /metrics"};
    server_ = std::make_unique<FakeApiServer>(o);
    server_->start();
    writeConfig("");
  }

  void writeConfig(const std::string& extra) {
    std::ofstream out(dir_.path() / "schedhost.toml", std::ios::trunc);
    out << "parallelism = 2\npodInitialBackoffSeconds = 1\npodMaxBackoffSeconds = 1\n"
           "[reload]\nwatch = false\n"
        << extra << "[[profiles]]\nschedulerName = \"default-scheduler\"\n";
  }

  // The secure port is off unless `extra` sets one (a later --secure-port wins).
  std::vector<std::string> args(const std::filesystem::path& kubeconfig,
                                std::vector<std::string> extra = {"--leader-elect=false"}) {
    std::vector<std::string> a = {"run",
                                  "--config",
                                  (dir_.path() / "schedhost.toml").string(),
                                  "--kubeconfig",
                                  kubeconfig.string(),
                                  "--plugin-dir",
                                  SCHEDHOST_PLUGIN_DIR,
                                  "--seed",
                                  "1",
                                  "--secure-port=0"};
    a.insert(a.end(), extra.begin(), extra.end());
    return a;
  }

  std::unique_ptr<SchedhostProcess> start(const std::vector<std::string>& a,
                                          const std::string& name = "schedhost") {
    auto p = std::make_unique<SchedhostProcess>(SCHEDHOST_BIN, a, dir_.path(), name);
    EXPECT_TRUE(p->started());
    return p;
  }

  void createPods(int from, int to, const std::string& cpu = "100m") {
    for (int i = from; i < to; ++i) {
      server_->create("pods", podJson("default", "p" + std::to_string(i), cpu));
    }
  }

  std::size_t requestsWith(const std::string& verb, const std::string& resource) {
    std::size_t n = 0;
    for (const auto& r : server_->requests()) {
      n += r.verb == verb && r.resource == resource ? 1 : 0;
    }
    return n;
  }

  void expectSound() {
    const std::vector<std::string> problems = invariantViolations(*server_);
    EXPECT_TRUE(problems.empty()) << problems.front();
  }

  TempDir dir_;
  TlsMaterial tls_;
  std::unique_ptr<FakeApiServer> server_;
};

TEST_F(RunKubeTest, SchedulesAfterTheInitialSyncAndWritesStatusAndEventsBack) {
  for (int i = 0; i < 3; ++i) {
    server_->create("nodes", nodeJson("node-" + std::to_string(i), "2"));
  }
  createPods(0, 6, "500m");
  server_->create("pods", podJson("default", "other", "100m", "other-scheduler"));
  server_->create("pods", podJson("default", "too-big", "8"));
  auto kubeconfig = writeKubeconfig(dir_.path(), server_->url(), tls_);
  auto run = start(args(kubeconfig));

  ASSERT_TRUE(eventually([&] { return boundPods(*server_) == 6; }, kDeadline)) << run->err();
  // Not ours: never touched.
  EXPECT_EQ(stringAt(*server_->get("pods", "default", "other"), {"spec", "nodeName"}), "");
  // too-big: PodScheduled=False with the upstream message, and a FailedScheduling event.
  ASSERT_TRUE(eventually(
      [&] {
        auto c = podScheduled(*server_, "default", "too-big");
        return c && stringAt(*c, {"status"}) == "False";
      },
      kDeadline));
  auto c = podScheduled(*server_, "default", "too-big");
  EXPECT_EQ(stringAt(*c, {"reason"}), "Unschedulable");
  EXPECT_EQ(stringAt(*c, {"message"}).rfind("0/3 nodes are available: 3 Insufficient cpu.", 0), 0u)
      << stringAt(*c, {"message"});
  ASSERT_TRUE(eventually(
      [&] {
        std::set<std::string> reasons;
        for (const json::object& e : server_->list("events")) {
          reasons.insert(stringAt(e, {"reason"}));
        }
        return reasons.count("Scheduled") > 0 && reasons.count("FailedScheduling") > 0;
      },
      kDeadline));
  for (const json::object& e : server_->list("events")) {
    if (stringAt(e, {"reason"}) == "Scheduled") {
      EXPECT_EQ(stringAt(e, {"reportingController"}), "default-scheduler");
      EXPECT_EQ(stringAt(e, {"action"}), "Binding");
      EXPECT_EQ(stringAt(e, {"note"}).rfind("Successfully assigned default/p", 0), 0u);
    }
  }
  // A node with room arrives through the watch: too-big goes there.
  server_->create("nodes", nodeJson("big", "16"));
  ASSERT_TRUE(eventually(
      [&] {
        return stringAt(*server_->get("pods", "default", "too-big"), {"spec", "nodeName"}) == "big";
      },
      kDeadline))
      << run->err();
  expectSound();
  // Binds go through pods/binding, status through pods/status, one per decision.
  EXPECT_EQ(requestsWith("create", "pods/binding"), 7u);
  run->signal(SIGTERM);
  EXPECT_EQ(run->waitExit(30s), 0) << run->err();
}

TEST_F(RunKubeTest, WatchDropsAndExpiriesLoseNothingAndBindNothingTwice) {
  for (int i = 0; i < 4; ++i) {
    server_->create("nodes", nodeJson("node-" + std::to_string(i), "8"));
  }
  auto kubeconfig = writeKubeconfig(dir_.path(), server_->url(), tls_);
  auto run = start(args(kubeconfig));
  // Every kind watched, the pods' watch among them (more kinds than pods and nodes are
  // watched, so a count of open watches alone may be reached before it opens): each fault
  // below hits open watches, the pods' included, so each replaces it.
  auto watching = [&] { return server_->openWatches() >= 9 && requestsWith("watch", "pods") >= 1; };
  ASSERT_TRUE(eventually(watching, kDeadline)) << run->err();
  int created = 0;
  for (int round = 0; round < 6; ++round) {
    createPods(created, created + 20);
    created += 20;
    const std::size_t podWatches = requestsWith("watch", "pods");
    if (round % 2 == 0) {
      server_->dropWatches();
    } else {
      server_->compact();  // the watches' versions are gone: 410, relist
    }
    // A pod deleted while the watch is down: the relist must not leave it behind.
    server_->remove("pods", "default", "p" + std::to_string(created - 1));
    // The pod watch was replaced before the next fault.
    ASSERT_TRUE(eventually([&] { return requestsWith("watch", "pods") > podWatches; }, kDeadline))
        << "round " << round << "\n"
        << run->err();
  }
  const std::size_t expected = created - 6;
  ASSERT_TRUE(eventually([&] { return boundPods(*server_) == expected; }, kDeadline))
      << boundPods(*server_) << " of " << expected << "\n"
      << run->err();
  expectSound();
  // Each fault replaced the pod watch; each compaction forced a relist.
  EXPECT_GE(requestsWith("watch", "pods"), 7u);
  EXPECT_GE(requestsWith("list", "pods"), 4u);
}

TEST_F(RunKubeTest, NodesAndPodsChurnWhileScheduling) {
  for (int i = 0; i < 6; ++i) {
    server_->create("nodes", nodeJson("node-" + std::to_string(i), "2"));
  }
  auto kubeconfig = writeKubeconfig(dir_.path(), server_->url(), tls_);
  auto run = start(args(kubeconfig));
  std::set<std::string> live;
  for (int i = 0; i < 120; ++i) {
    const std::string name = "p" + std::to_string(i);
    server_->create("pods", podJson("default", name, "250m"));
    live.insert(name);
    if (i % 10 == 9 && i < 60) {
      // A pod goes, a node goes, a node comes.
      const std::string gone = "p" + std::to_string(i - 5);
      server_->remove("pods", "default", gone);
      live.erase(gone);
      server_->remove("nodes", "", "node-" + std::to_string(i / 10 % 6));
      server_->create("nodes", nodeJson("extra-" + std::to_string(i), "8"));
    }
  }
  ASSERT_TRUE(eventually(
      [&] {
        for (const std::string& name : live) {
          auto pod = server_->get("pods", "default", name);
          if (!pod || stringAt(*pod, {"spec", "nodeName"}).empty()) {
            return false;
          }
        }
        return true;
      },
      kDeadline))
      << run->err() << run->out();
  expectSound();
}

TEST_F(RunKubeTest, TwoReplicasOneLeaderAndFailover) {
  for (int i = 0; i < 3; ++i) {
    server_->create("nodes", nodeJson("node-" + std::to_string(i), "8"));
  }
  TempDir a, b;
  auto kubeA = writeKubeconfig(a.path(), server_->url(), tls_, {false, "token-a", "", false});
  auto kubeB = writeKubeconfig(b.path(), server_->url(), tls_, {false, "token-b", "", false});
  const std::vector<std::string> election = {
      "--leader-elect-lease-duration=3s", "--leader-elect-renew-deadline=2s",
      "--leader-elect-retry-period=500ms", "--leader-elect-resource-namespace=kube-system"};
  auto runA = start(args(kubeA, election), "a");
  ASSERT_TRUE(eventually(
      [&] {
        auto lease = server_->get("leases", "kube-system", "schedhost");
        return lease && !stringAt(*lease, {"spec", "holderIdentity"}).empty();
      },
      kDeadline))
      << runA->err();
  auto runB = start(args(kubeB, election), "b");
  createPods(0, 20);
  ASSERT_TRUE(eventually([&] { return boundPods(*server_) == 20; }, kDeadline)) << runA->err();
  // Only the leader bound anything.
  std::set<std::string> binders;
  for (const auto& r : server_->requests()) {
    if (r.resource == "pods/binding") {
      binders.insert(r.user);
    }
  }
  ASSERT_EQ(binders.size(), 1u);
  const std::string leader = *binders.begin();
  SchedhostProcess& leaderRun = leader == "token-a" ? *runA : *runB;
  const std::string standby = leader == "token-a" ? "token-b" : "token-a";
  // The leader dies without releasing the Lease: the standby takes over once it expires.
  leaderRun.signal(SIGKILL);
  createPods(20, 40);
  ASSERT_TRUE(eventually([&] { return boundPods(*server_) == 40; }, kDeadline))
      << runA->err() << runB->err();
  std::size_t byStandby = 0;
  for (const auto& r : server_->requests()) {
    byStandby += r.resource == "pods/binding" && r.user == standby ? 1 : 0;
  }
  EXPECT_EQ(byStandby, 20u);
  expectSound();
}

TEST_F(RunKubeTest, ALeaderThatCannotRenewStopsAtOnceWithExitCode1) {
  server_->create("nodes", nodeJson("node-0", "8"));
  auto kubeconfig = writeKubeconfig(dir_.path(), server_->url(), tls_);
  auto run = start(
      args(kubeconfig, {"--leader-elect-lease-duration=2s", "--leader-elect-renew-deadline=1s",
                        "--leader-elect-retry-period=300ms"}));
  createPods(0, 3);
  ASSERT_TRUE(eventually([&] { return boundPods(*server_) == 3; }, kDeadline)) << run->err();
  // The Lease can no longer be read or written: after the renew deadline the leader gives up.
  server_->failNext("GET /apis/coordination.k8s.io/", 500, 1000000);
  server_->failNext("PUT /apis/coordination.k8s.io/", 500, 1000000);
  EXPECT_EQ(run->waitExit(30s), 1) << run->err();
  EXPECT_NE(run->err().find("leaderelection lost"), std::string::npos) << run->err();
}

// The API server stops answering Lease requests while every other request still works. The
// leader's renew used to wait 30 s (the request timeout) on a request that never returned and
// keep binding meanwhile, while another replica took the expired Lease: two schedulers at
// once. Each try now runs under the renew deadline and a watchdog ends the leadership at the
// deadline itself: the process stops before the Lease could expire for anyone else.
TEST_F(RunKubeTest, ALeaderWhoseLeaseRequestsHangStopsBeforeTheLeaseCouldExpire) {
  server_->create("nodes", nodeJson("node-0", "8"));
  auto kubeconfig = writeKubeconfig(dir_.path(), server_->url(), tls_);
  auto run = start(
      args(kubeconfig, {"--leader-elect-lease-duration=6s", "--leader-elect-renew-deadline=2s",
                        "--leader-elect-retry-period=500ms"}));
  createPods(0, 3);
  ASSERT_TRUE(eventually([&] { return boundPods(*server_) == 3; }, kDeadline)) << run->err();
  server_->stall("GET /apis/coordination.k8s.io/");
  server_->stall("PUT /apis/coordination.k8s.io/");
  const auto stalled = std::chrono::steady_clock::now();
  EXPECT_EQ(run->waitExit(30s), 1) << run->err();
  // At most the renew deadline after the last renew, which came before the stall; the bound
  // that matters is the lease duration, after which another replica may take the Lease.
  EXPECT_LT(std::chrono::steady_clock::now() - stalled, 6s) << run->err();
  EXPECT_NE(run->err().find("could not renew it within 2000 ms"), std::string::npos) << run->err();
  EXPECT_NE(run->err().find("leaderelection lost"), std::string::npos) << run->err();
  expectSound();
}

// Asynchronous preemption, from the outside: the victim's deletion hangs on the API server, and
// the scheduler goes on binding other pods meanwhile (the eviction runs off the scheduling
// loop). The preemptor waits, unbound; SIGTERM still ends the run within its grace.
TEST_F(RunKubeTest, AVictimWhoseDeletionHangsHoldsUpNoOtherPod) {
  server_->create("nodes", nodeJson("node-0", "4"));
  server_->create("nodes", nodeJson("node-1", "4"));
  // node-0: the victim (priority 0); node-1: a pod too important to preempt. Each has 1 cpu
  // left, so the 2-cpu urgent pod fits only where the victim is.
  for (const auto& [name, node, priority] : std::vector<std::tuple<std::string, std::string, int>>{
           {"victim", "node-0", 0}, {"important", "node-1", 1000}}) {
    json::object pod = podJson("default", name, "3");
    pod["spec"].as_object()["nodeName"] = node;
    pod["spec"].as_object()["priority"] = priority;
    server_->create("pods", std::move(pod));
  }
  server_->stall("DELETE /api/v1/namespaces/default/pods/victim");
  auto kubeconfig = writeKubeconfig(dir_.path(), server_->url(), tls_);
  auto run = start(args(kubeconfig));
  json::object urgent = podJson("default", "urgent", "2");
  urgent["spec"].as_object()["priority"] = 100;
  server_->create("pods", std::move(urgent));
  ASSERT_TRUE(eventually(
      [&] {
        for (const std::string& key : server_->stalledRequests()) {
          if (key.find("DELETE /api/v1/namespaces/default/pods/victim") == 0) return true;
        }
        return false;
      },
      kDeadline))
      << run->err();

  // The eviction hangs; a pod that fits beside it is bound all the same (on node-1: node-0's
  // free cpu is promised to the nominated urgent pod).
  server_->create("pods", podJson("default", "small", "500m"));
  ASSERT_TRUE(eventually(
      [&] {
        auto small = server_->get("pods", "default", "small");
        return small && stringAt(*small, {"spec", "nodeName"}) == "node-1";
      },
      kDeadline))
      << run->err();
  auto victim = server_->get("pods", "default", "victim");
  ASSERT_TRUE(victim.has_value());
  // Marked before the deletion was asked for, as upstream does.
  EXPECT_NE(json::serialize((*victim)["status"]).find("PreemptionByScheduler"), std::string::npos)
      << json::serialize(*victim);
  auto held = server_->get("pods", "default", "urgent");
  ASSERT_TRUE(held.has_value());
  EXPECT_EQ(stringAt(*held, {"spec", "nodeName"}), "");
  EXPECT_EQ(stringAt(*held, {"status", "nominatedNodeName"}), "node-0");

  run->signal(SIGTERM);
  const std::optional<int> code = run->waitExit(60s);
  ASSERT_TRUE(code.has_value()) << run->err();
  expectSound();
}

// SIGTERM while the API server accepts connections but answers nothing: every step of the stop
// is bounded and the requests still waiting are cancelled, so the process ends well inside the
// grace the unit and the Deployment give it (45 s), with the default --shutdown-grace-seconds.
TEST_F(RunKubeTest, SigtermWithAnApiServerThatAnswersNothingEndsWithinTheGrace) {
  server_->create("nodes", nodeJson("node-0", "8"));
  createPods(0, 3);
  auto kubeconfig = writeKubeconfig(dir_.path(), server_->url(), tls_);
  auto run = start(args(kubeconfig, {}));  // leader election on, its defaults
  ASSERT_TRUE(eventually([&] { return boundPods(*server_) == 3; }, kDeadline)) << run->err();
  // The pods' watch is open before the server goes silent: one asked for after would never be
  // answered, and the new pods never seen (the informers list every kind before they watch).
  ASSERT_TRUE(eventually(
      [&] {
        for (const auto& r : server_->requests()) {
          if (r.verb == "watch" && r.resource == "pods") return true;
        }
        return false;
      },
      kDeadline))
      << run->err();
  server_->stall("");
  createPods(3, 6);  // their binds and status patches will wait on the silent server
  ASSERT_TRUE(eventually(
      [&] {
        for (const std::string& key : server_->stalledRequests()) {
          if (key.find("/binding") != std::string::npos) return true;
        }
        return false;
      },
      kDeadline))
      << run->err();
  run->signal(SIGTERM);
  const auto signalled = std::chrono::steady_clock::now();
  const std::optional<int> code = run->waitExit(60s);
  ASSERT_TRUE(code.has_value()) << run->err();
  // The binds waiting on the server are cancelled 5 s after the signal, then the writes and
  // events get 2.5 s each and the Lease's release 2 s: about 12 s, well inside
  // --shutdown-grace-seconds (30 s), Kubernetes' default terminationGracePeriodSeconds (30 s)
  // and the unit's TimeoutStopSec (45 s); a generous margin for a loaded machine. Exit code 0:
  // every step ended in its time, nothing was cut short by the last resort.
  EXPECT_LT(std::chrono::steady_clock::now() - signalled, 22s) << run->err();
  EXPECT_EQ(*code, 0) << run->err();
  // The binds that got no answer were cancelled, not waited on (the decision log says why).
  EXPECT_NE(run->out().find("/binding: cancelled"), std::string::npos) << run->out();
  EXPECT_EQ(run->err().find("not done 30 s after the signal"), std::string::npos) << run->err();
}

// The same with a server that is gone (connections refused): nothing waits at all.
TEST_F(RunKubeTest, SigtermWithAnApiServerThatIsGoneEndsPromptly) {
  server_->create("nodes", nodeJson("node-0", "8"));
  auto kubeconfig = writeKubeconfig(dir_.path(), server_->url(), tls_);
  auto run = start(args(kubeconfig, {}));
  createPods(0, 3);
  ASSERT_TRUE(eventually([&] { return boundPods(*server_) == 3; }, kDeadline)) << run->err();
  server_->stop();
  run->signal(SIGTERM);
  const auto signalled = std::chrono::steady_clock::now();
  const std::optional<int> code = run->waitExit(60s);
  ASSERT_TRUE(code.has_value()) << run->err();
  EXPECT_LT(std::chrono::steady_clock::now() - signalled, 30s) << run->err();
}

// A standby replica (never led) stopped by SIGTERM: its summary counts from its start, never a
// negative time.
TEST_F(RunKubeTest, AStandbysSummaryNeverShowsANegativeTime) {
  server_->create("nodes", nodeJson("node-0", "8"));
  TempDir a, b;
  auto kubeA = writeKubeconfig(a.path(), server_->url(), tls_, {false, "token-a", "", false});
  auto kubeB = writeKubeconfig(b.path(), server_->url(), tls_, {false, "token-b", "", false});
  auto runA = start(args(kubeA, {}), "a");
  ASSERT_TRUE(eventually(
      [&] {
        auto lease = server_->get("leases", "kube-system", "schedhost");
        return lease && !stringAt(*lease, {"spec", "holderIdentity"}).empty();
      },
      kDeadline))
      << runA->err();
  auto runB = start(args(kubeB, {}), "b");
  ASSERT_TRUE(eventually([&] { return runB->err().find("waiting to lead") != std::string::npos; },
                         kDeadline))
      << runB->err();
  std::this_thread::sleep_for(1s);
  runB->signal(SIGTERM);
  EXPECT_EQ(runB->waitExit(30s), 0) << runB->err();
  const std::string err = runB->err();
  const auto summary = err.find("scheduled 0, unschedulable 0, failed 0, pending ");
  ASSERT_NE(summary, std::string::npos) << err;
  const auto in = err.find(" in ", summary);
  ASSERT_NE(in, std::string::npos) << err;
  EXPECT_NE(err[in + 4], '-') << err.substr(summary, 120);
  EXPECT_GE(std::stod(err.substr(in + 4)), 0.5) << err.substr(summary, 120);
  runA->signal(SIGTERM);
  EXPECT_EQ(runA->waitExit(30s), 0) << runA->err();
}

TEST_F(RunKubeTest, SigtermFinishesAndReleasesTheLease) {
  server_->create("nodes", nodeJson("node-0", "8"));
  createPods(0, 5);
  auto kubeconfig = writeKubeconfig(dir_.path(), server_->url(), tls_);
  auto run = start(args(kubeconfig, {}));  // leader election on, its defaults
  ASSERT_TRUE(eventually([&] { return boundPods(*server_) == 5; }, kDeadline)) << run->err();
  run->signal(SIGTERM);
  EXPECT_EQ(run->waitExit(30s), 0) << run->err();
  auto lease = server_->get("leases", "kube-system", "schedhost");
  ASSERT_TRUE(lease);
  EXPECT_EQ(stringAt(*lease, {"spec", "holderIdentity"}), "");
}

// What a dashboard built for kube-scheduler reads about its client and its lease, scraped from
// a leader: client-go's rest_client_* families by the answers the API server gave, and
// leader_election_master_status.
TEST_F(RunKubeTest, ClientAndLeaderElectionMetricsCountWhatTheServerSaw) {
  const std::string socket = (dir_.path() / "admin.sock").string();
  writeConfig("[admin]\nsocket = \"" + socket + "\"\n");
  server_->create("nodes", nodeJson("node-0", "8"));
  createPods(0, 3);
  auto kubeconfig = writeKubeconfig(dir_.path(), server_->url(), tls_);
  auto run = start(args(kubeconfig, {}));  // leader election on: the Lease kube-system/schedhost
  ASSERT_TRUE(eventually([&] { return boundPods(*server_) == 3; }, kDeadline)) << run->err();
  admin::Endpoint endpoint;
  endpoint.socket = socket;
  const admin::ClientResponse r = admin::request(endpoint, "GET", "/metrics", 10s);
  ASSERT_TRUE(r.ok() && r.status == 200) << r.error << r.body;
  using metrics::testing::findSample;
  std::vector<metrics::testing::ParsedFamily> families;
  ASSERT_NO_THROW(families = metrics::testing::parsePrometheusText(r.body)) << r.body;
  // The host label is the server URL's host and port, as client-go's URL.Host.
  const std::string host = server_->url().substr(std::string("https://").size());
  // Three binds were created (201) with POST; the server's own count is the truth.
  const std::size_t binds = requestsWith("create", "pods/binding");
  const auto* created = findSample(families, "rest_client_requests_total",
                                   {{"code", "201"}, {"method", "POST"}, {"host", host}});
  ASSERT_NE(created, nullptr) << r.body;
  EXPECT_GE(created->value, static_cast<double>(binds));
  const auto* gets = findSample(families, "rest_client_requests_total",
                                {{"code", "200"}, {"method", "GET"}, {"host", host}});
  ASSERT_NE(gets, nullptr) << r.body;
  EXPECT_GE(gets->value, 1);  // the startup probe of /api at least
  const auto* latency = findSample(families, "rest_client_request_duration_seconds_count",
                                   {{"verb", "POST"}, {"host", host}});
  ASSERT_NE(latency, nullptr) << r.body;
  EXPECT_GE(latency->value, static_cast<double>(binds));
  const auto* leading =
      findSample(families, "leader_election_master_status", {{"name", "schedhost"}});
  ASSERT_NE(leading, nullptr) << r.body;
  EXPECT_EQ(leading->value, 1);
  const std::map<std::string, std::string> expectedTypes = {
      {"leader_election_master_status", "gauge"},
      {"rest_client_request_duration_seconds", "histogram"},
      {"rest_client_requests_total", "counter"}};
  for (const auto& family : families) {
    if (auto it = expectedTypes.find(family.name); it != expectedTypes.end()) {
      EXPECT_EQ(family.type, it->second) << family.name;
    }
  }
  run->signal(SIGTERM);
  EXPECT_EQ(run->waitExit(30s), 0) << run->err();
  expectSound();
}

// A caller of the secure port: HTTPS verified against `caPem`, with a token or a client
// certificate or neither.
kube::Response securePortGet(int port, const std::string& caPem, const std::string& path,
                             const std::string& token = "", const std::string& certPem = "",
                             const std::string& keyPem = "") {
  kube::HttpsTransport::Options o;
  o.config.server = "https://127.0.0.1:" + std::to_string(port);
  o.config.caPem = caPem;
  o.config.token = token;
  o.config.clientCertPem = certPem;
  o.config.clientKeyPem = keyPem;
  std::string error;
  auto transport = kube::HttpsTransport::create(o, error);
  EXPECT_NE(transport, nullptr) << error;
  if (transport == nullptr) return {};
  kube::Request request;
  request.path = path;
  request.accept = "*/*";
  return transport->send(request);
}

// kube-scheduler's secure port as Prometheus and the kubelet use it: HTTPS with the given
// certificate, the health paths open to anyone, /metrics only to whom the API server's
// SubjectAccessReview allows, after a TokenReview of the bearer token; client certificates
// of the client CA, system:masters let in without a review.
TEST_F(RunKubeTest, TheSecurePortAuthenticatesAndAuthorizesThroughTheApiServer) {
  server_->create("nodes", nodeJson("node-0", "8"));
  createPods(0, 2);
  auto kubeconfig = writeKubeconfig(dir_.path(), server_->url(), tls_);
  const std::filesystem::path cert = dir_.path() / "serving.crt";
  const std::filesystem::path key = dir_.path() / "serving.key";
  const std::filesystem::path clientCa = dir_.path() / "client-ca.crt";
  std::ofstream(cert) << tls_.serverCert;
  std::ofstream(key) << tls_.serverKey;
  std::ofstream(clientCa) << tls_.caCert;
  const int port = freePort();
  auto run =
      start(args(kubeconfig, {"--leader-elect=false", "--secure-port=" + std::to_string(port),
                              "--bind-address=127.0.0.1", "--tls-cert-file=" + cert.string(),
                              "--tls-private-key-file=" + key.string(),
                              "--client-ca-file=" + clientCa.string()}));
  ASSERT_TRUE(eventually([&] { return boundPods(*server_) == 2; }, kDeadline)) << run->err();
  const std::string& ca = tls_.caCert;

  // The health paths: always allowed, anonymous, no review asked; upstream's named checks.
  kube::Response r = securePortGet(port, ca, "/healthz");
  EXPECT_EQ(r.status, 200) << r.error << r.body;
  EXPECT_EQ(r.body, "ok");
  r = securePortGet(port, ca, "/healthz?verbose");
  EXPECT_EQ(r.body, "[+]ping ok\nhealthz check passed\n");
  ASSERT_TRUE(
      eventually([&] { return securePortGet(port, ca, "/readyz").status == 200; }, kDeadline));
  r = securePortGet(port, ca, "/readyz?verbose&exclude=shutdown");
  EXPECT_EQ(r.body, "[+]shutdown excluded: ok\n[+]sched-handler-sync ok\nreadyz check passed\n");
  // A single check's path is not among the always-allowed (exact paths): the client
  // certificate (CN schedhost, O system:masters) is let in without a review.
  r = securePortGet(port, ca, "/readyz/sched-handler-sync");
  EXPECT_EQ(r.status, 403) << r.body;
  r = securePortGet(port, ca, "/readyz/sched-handler-sync", "", tls_.clientCert, tls_.clientKey);
  EXPECT_EQ(r.body, "ok");
  EXPECT_EQ(securePortGet(port, ca, "/livez/nope", "", tls_.clientCert, tls_.clientKey).status,
            404);
  const std::size_t reviews = requestsWith("create", "subjectaccessreviews");
  EXPECT_EQ(reviews, 1u);  // the anonymous /readyz/sched-handler-sync
  EXPECT_EQ(requestsWith("create", "tokenreviews"), 0u);

  // Anonymous on /metrics: the SubjectAccessReview denies it.
  r = securePortGet(port, ca, "/metrics");
  EXPECT_EQ(r.status, 403) << r.body;
  EXPECT_NE(r.body.find("forbidden: User \\\"system:anonymous\\\" cannot get path "
                        "\\\"/metrics\\\": no RBAC policy matched"),
            std::string::npos)
      << r.body;
  // A token the TokenReview does not know: 401.
  r = securePortGet(port, ca, "/metrics", "stolen-token");
  EXPECT_EQ(r.status, 401) << r.body;
  EXPECT_NE(r.body.find("\"reason\":\"Unauthorized\""), std::string::npos) << r.body;
  // A known user without the permission: 403 naming them.
  r = securePortGet(port, ca, "/metrics", "nobody-token");
  EXPECT_EQ(r.status, 403) << r.body;
  EXPECT_NE(r.body.find("system:serviceaccount:default:nobody"), std::string::npos) << r.body;
  // Prometheus' service account: the scrape, twice; the second from the caches.
  const std::size_t reviewsBefore = requestsWith("create", "tokenreviews");
  r = securePortGet(port, ca, "/metrics", "scrape-token");
  EXPECT_EQ(r.status, 200) << r.body;
  EXPECT_NE(r.body.find("scheduler_schedule_attempts_total"), std::string::npos);
  EXPECT_EQ(r.contentType, "text/plain; version=0.0.4; charset=utf-8");
  EXPECT_EQ(securePortGet(port, ca, "/metrics", "scrape-token").status, 200);
  EXPECT_EQ(requestsWith("create", "tokenreviews"), reviewsBefore + 1);
  // Allowed /metrics only: /configz is refused, and an unknown path before it is looked up.
  EXPECT_EQ(securePortGet(port, ca, "/configz", "scrape-token").status, 403);
  EXPECT_EQ(securePortGet(port, ca, "/nope", "scrape-token").status, 403);
  // The client certificate (CN schedhost, O system:masters): no review, everything.
  r = securePortGet(port, ca, "/configz", "", tls_.clientCert, tls_.clientKey);
  EXPECT_EQ(r.status, 200) << r.body;
  EXPECT_EQ(r.contentType, "application/json");
  // A certificate of another CA does not authenticate anyone: 401.
  const TlsMaterial other = makeTlsMaterial("intruder");
  r = securePortGet(port, ca, "/metrics", "", other.clientCert, other.clientKey);
  EXPECT_EQ(r.status, 401) << r.error << r.body;
  // The reviews went to the API server as the scheduler's own user.
  for (const auto& request : server_->requests()) {
    if (request.resource == "tokenreviews" || request.resource == "subjectaccessreviews") {
      EXPECT_EQ(request.status, 201) << request.body;
    }
  }
  run->signal(SIGTERM);
  EXPECT_EQ(run->waitExit(30s), 0) << run->err();
}

// Started with no certificate, the secure port makes its own, for localhost.
TEST_F(RunKubeTest, TheSecurePortServesASelfSignedCertificateWhenGivenNone) {
  auto kubeconfig = writeKubeconfig(dir_.path(), server_->url(), tls_);
  const int port = freePort();
  auto run =
      start(args(kubeconfig, {"--leader-elect=false", "--secure-port=" + std::to_string(port),
                              "--bind-address=127.0.0.1"}));
  kube::Response r;
  ASSERT_TRUE(eventually(
      [&] {
        kube::HttpsTransport::Options o;
        o.config.server = "https://127.0.0.1:" + std::to_string(port);
        o.config.insecureSkipTlsVerify = true;
        std::string error;
        auto transport = kube::HttpsTransport::create(o, error);
        kube::Request request;
        request.path = "/livez";
        r = transport->send(request);
        return r.status == 200;
      },
      kDeadline))
      << r.error << run->err();
  EXPECT_EQ(r.body, "ok");
  // Verified against our CA, it is refused: it is not ours.
  EXPECT_EQ(securePortGet(port, tls_.caCert, "/livez").status, 0);
  run->signal(SIGTERM);
  EXPECT_EQ(run->waitExit(30s), 0) << run->err();
}

// The first certificate of a PEM chain.
std::string firstCertificate(const std::string& pem) {
  const std::string end = "-----END CERTIFICATE-----\n";
  const std::size_t at = pem.find(end);
  return at == std::string::npos ? std::string() : pem.substr(0, at + end.size());
}

// Without --client-ca-file and --requestheader-client-ca-file, the secure port takes both from
// the ConfigMap kube-system/extension-apiserver-authentication, read once at startup: the
// front proxy's certificate vouches for the user its headers name, the cluster's client
// certificates are users of their own.
TEST_F(RunKubeTest, TheSecurePortTakesTheClientCaAndTheFrontProxyFromTheCluster) {
  server_->create("nodes", nodeJson("node-0", "8"));
  createPods(0, 1);
  const TlsMaterial proxy = makeTlsMaterial("front-proxy-client");
  server_->create(
      "configmaps",
      json::object{{"apiVersion", "v1"},
                   {"kind", "ConfigMap"},
                   {"metadata",
                    {{"name", "extension-apiserver-authentication"}, {"namespace", "kube-system"}}},
                   {"data",
                    {{"client-ca-file", tls_.caCert},
                     {"requestheader-client-ca-file", proxy.caCert},
                     {"requestheader-allowed-names", "[\"front-proxy-client\"]"},
                     {"requestheader-username-headers", "[\"X-Remote-User\"]"},
                     {"requestheader-group-headers", "[\"X-Remote-Group\"]"},
                     {"requestheader-extra-headers-prefix", "[\"X-Remote-Extra-\"]"}}}});
  auto kubeconfig = writeKubeconfig(dir_.path(), server_->url(), tls_);
  const std::filesystem::path cert = dir_.path() / "serving.crt";
  const std::filesystem::path key = dir_.path() / "serving.key";
  std::ofstream(cert) << tls_.serverCert;
  std::ofstream(key) << tls_.serverKey;
  const int port = freePort();
  auto run =
      start(args(kubeconfig, {"--leader-elect=false", "--secure-port=" + std::to_string(port),
                              "--bind-address=127.0.0.1", "--tls-cert-file=" + cert.string(),
                              "--tls-private-key-file=" + key.string()}));
  HttpsCall call;
  call.port = port;
  call.caPem = tls_.caCert;
  call.path = "/livez";
  ASSERT_TRUE(eventually([&] { return httpsGet(call).status == 200; }, kDeadline)) << run->err();
  ASSERT_TRUE(eventually([&] { return boundPods(*server_) == 1; }, kDeadline)) << run->err();

  // Prometheus behind the front proxy: its service account, allowed /metrics.
  call.path = "/metrics";
  call.headers = {{"X-Remote-User", "system:serviceaccount:monitoring:prometheus"},
                  {"X-Remote-Group", "system:serviceaccounts"}};
  call.certificatePem = proxy.clientCert;
  call.keyPem = proxy.clientKey;
  HttpsAnswer r = httpsGet(call);
  EXPECT_EQ(r.status, 200) << r.error << r.body;
  EXPECT_NE(r.body.find("scheduler_schedule_attempts_total"), std::string::npos);
  // The same headers from anyone else: anonymous, denied.
  call.certificatePem.clear();
  call.keyPem.clear();
  r = httpsGet(call);
  EXPECT_EQ(r.status, 403) << r.error << r.body;
  EXPECT_NE(r.body.find("system:anonymous"), std::string::npos) << r.body;
  // A client certificate of the cluster's client CA (CN schedhost, O system:masters).
  call.headers.clear();
  call.path = "/configz";
  call.certificatePem = tls_.clientCert;
  call.keyPem = tls_.clientKey;
  r = httpsGet(call);
  EXPECT_EQ(r.status, 200) << r.error << r.body;
  // Read once, by name; allowed by the scheduler's own credentials.
  std::size_t lookups = 0;
  for (const auto& request : server_->requests()) {
    if (request.resource != "configmaps") continue;
    ++lookups;
    EXPECT_EQ(request.verb, "get");
    EXPECT_EQ(request.path,
              "/api/v1/namespaces/kube-system/configmaps/extension-apiserver-authentication");
    EXPECT_EQ(request.status, 200);
  }
  EXPECT_EQ(lookups, 1u);
  run->signal(SIGTERM);
  EXPECT_EQ(run->waitExit(30s), 0) << run->err();
}

// --cert-dir: the self-signed pair is written there as kube-scheduler.crt and .key (the
// serving certificate, then its CA), served, and served again by the next start.
TEST_F(RunKubeTest, TheSelfSignedPairIsKeptInTheCertDir) {
  auto kubeconfig = writeKubeconfig(dir_.path(), server_->url(), tls_);
  const std::filesystem::path certDir = dir_.path() / "certs";
  const int port = freePort();
  std::string first;
  for (int round = 0; round < 2; ++round) {
    auto run =
        start(args(kubeconfig, {"--leader-elect=false", "--secure-port=" + std::to_string(port),
                                "--bind-address=127.0.0.1", "--cert-dir", certDir.string()}),
              "schedhost-" + std::to_string(round));
    HttpsCall call;
    call.port = port;
    call.path = "/livez";
    HttpsAnswer r;
    ASSERT_TRUE(eventually(
        [&] {
          r = httpsGet(call);
          return r.status == 200;
        },
        kDeadline))
        << r.error << run->err();
    std::ifstream in(certDir / "kube-scheduler.crt");
    std::stringstream file;
    file << in.rdbuf();
    ASSERT_TRUE(std::filesystem::exists(certDir / "kube-scheduler.key"));
    ASSERT_EQ(r.servedChain.size(), 2u);  // the CA goes with it
    EXPECT_EQ(r.servedChain[0] + r.servedChain[1], file.str());
    if (round == 0) {
      first = file.str();
      EXPECT_NE(run->err().find("Generated self-signed cert (" + certDir.string()),
                std::string::npos)
          << run->err();
    } else {
      EXPECT_EQ(file.str(), first);  // not made again
      EXPECT_EQ(run->err().find("Generated self-signed cert"), std::string::npos) << run->err();
    }
    // It verifies against the CA of its own file, for 127.0.0.1.
    call.caPem = r.servedChain[1];
    EXPECT_EQ(httpsGet(call).status, 200);
    EXPECT_EQ(firstCertificate(file.str()), r.servedChain[0]);
    run->signal(SIGTERM);
    EXPECT_EQ(run->waitExit(30s), 0) << run->err();
  }
}

// A failed lookup of the cluster's authentication configuration is a warning (kube-scheduler's
// --authentication-tolerate-lookup-failure=true), or a startup error when not tolerated; a
// flag that is not a duration is a startup error naming it, secure port or not.
TEST_F(RunKubeTest, ALookupFailureStopsTheStartOnlyWhenNotTolerated) {
  auto kubeconfig = writeKubeconfig(dir_.path(), server_->url(), tls_);
  auto bad = start(
      args(kubeconfig, {"--leader-elect=false", "--authorization-webhook-cache-authorized-ttl=5"}));
  EXPECT_EQ(bad->waitExit(30s), 1);
  EXPECT_NE(bad->err().find("schedhost run: --authorization-webhook-cache-authorized-ttl \"5\": "),
            std::string::npos)
      << bad->err();

  const int port = freePort();
  const std::vector<std::string> serving = {
      "--leader-elect=false", "--secure-port=" + std::to_string(port), "--bind-address=127.0.0.1"};
  server_->failNext("GET /api/v1/namespaces/kube-system/configmaps", 403, 1);
  std::vector<std::string> strict = serving;
  strict.push_back("--authentication-tolerate-lookup-failure=false");
  auto refused = start(args(kubeconfig, strict), "strict");
  EXPECT_EQ(refused->waitExit(30s), 1);
  EXPECT_NE(refused->err().find("schedhost run: secure serving: unable to load configmap "
                                "kube-system/extension-apiserver-authentication: 403 Forbidden"),
            std::string::npos)
      << refused->err();

  server_->failNext("GET /api/v1/namespaces/kube-system/configmaps", 403, 1);
  auto run = start(args(kubeconfig, serving), "tolerant");
  HttpsCall call;
  call.port = port;
  call.path = "/livez";
  ASSERT_TRUE(eventually([&] { return httpsGet(call).status == 200; }, kDeadline)) << run->err();
  EXPECT_NE(run->err().find("Error looking up in-cluster authentication configuration"),
            std::string::npos)
      << run->err();
  // No client CA was found: a client certificate is not even asked for, the caller is
  // anonymous.
  call.path = "/configz";
  call.certificatePem = tls_.clientCert;
  call.keyPem = tls_.clientKey;
  HttpsAnswer r = httpsGet(call);
  EXPECT_EQ(r.status, 403) << r.error << r.body;
  EXPECT_NE(r.body.find("system:anonymous"), std::string::npos) << r.body;
  run->signal(SIGTERM);
  EXPECT_EQ(run->waitExit(30s), 0) << run->err();
}

TEST_F(RunKubeTest, TheClientRateLimitHolds) {
  server_->create("nodes", nodeJson("node-0", "64"));
  createPods(0, 30);
  auto kubeconfig = writeKubeconfig(dir_.path(), server_->url(), tls_);
  auto run = start(
      args(kubeconfig, {"--leader-elect=false", "--kube-api-qps", "20", "--kube-api-burst", "5"}));
  ASSERT_TRUE(eventually([&] { return boundPods(*server_) == 30; }, kDeadline)) << run->err();
  // Binds, events and every other request each have a limiter of their own (docs/deploy.md).
  // Within each class, from the process's first request: within any stretch of t seconds no
  // more than burst + qps * t went out (a little slack for the clocks of two processes).
  std::map<std::string, std::vector<FakeApiServer::Recorded>> classes;
  for (const auto& r : server_->requests()) {
    const std::string rateClass = r.resource == "pods/binding" ? "binds"
                                  : r.resource == "events"     ? "events"
                                                               : "the rest";
    classes[rateClass].push_back(r);
  }
  ASSERT_EQ(classes["binds"].size(), 30u);
  ASSERT_GT(classes["the rest"].size(), 30u);  // status patches, lists, watches
  for (const auto& [name, requests] : classes) {
    for (std::size_t i = 0; i < requests.size(); ++i) {
      for (std::size_t j = i + 1; j < requests.size(); ++j) {
        const double seconds =
            std::chrono::duration<double>(requests[j].at - requests[i].at).count();
        const double allowed = 5 + 20 * (seconds + 0.05) + 1;
        ASSERT_LE(static_cast<double>(j - i + 1), allowed)
            << name << ": requests " << i << ".." << j << " within " << seconds << " s";
      }
    }
  }
  expectSound();
}

TEST_F(RunKubeTest, ARotatedTokenFileIsPickedUp) {
  server_->create("nodes", nodeJson("node-0", "8"));
  server_->setTokens({"first"});
  { std::ofstream(dir_.path() / "token") << "first\n"; }
  auto kubeconfig = writeKubeconfig(dir_.path(), server_->url(), tls_, {false, "", "token", false});
  auto run = start(args(kubeconfig));
  createPods(0, 3);
  ASSERT_TRUE(eventually([&] { return boundPods(*server_) == 3; }, kDeadline)) << run->err();
  // The token rotates: the old one stops working, the file gets the new one.
  { std::ofstream(dir_.path() / "token.new") << "second\n"; }
  std::filesystem::rename(dir_.path() / "token.new", dir_.path() / "token");
  server_->setTokens({"second"});
  createPods(3, 6);
  ASSERT_TRUE(eventually([&] { return boundPods(*server_) == 6; }, kDeadline)) << run->err();
  expectSound();
}

// A kubeconfig whose user is an exec credential plugin, as EKS, GKE and AKS write them: the
// plugin's token authenticates; when the API server stops taking it (401), the plugin runs
// again and its new token is used, with no restart.
TEST_F(RunKubeTest, AnExecCredentialPluginAuthenticatesAndIsRunAgainOn401) {
  server_->create("nodes", nodeJson("node-0", "8"));
  server_->setTokens({"exec-one"});
  const auto plugin = dir_.path() / "bin/get-token";
  std::filesystem::create_directories(plugin.parent_path());
  {
    std::ofstream(plugin) << "#!/bin/sh\n"
                             "d=$(dirname \"$0\")\n"
                             "echo run >> \"$d/runs\"\n"
                             "printf '%s' \"$KUBERNETES_EXEC_INFO\" > \"$d/exec-info\"\n"
                             "printf '{\"apiVersion\":\"client.authentication.k8s.io/v1\",'\n"
                             "printf '\"kind\":\"ExecCredential\",\"status\":{\"token\":\"%s\"}}' "
                             "\"$(cat \"$d/issued\")\"\n";
    std::ofstream(plugin.parent_path() / "issued") << "exec-one";
  }
  std::filesystem::permissions(plugin, std::filesystem::perms::owner_all);
  KubeconfigAuth auth;
  auth.clientCert = false;
  auth.execCommand = "bin/get-token";  // relative to the kubeconfig's directory
  auto kubeconfig = writeKubeconfig(dir_.path(), server_->url(), tls_, auth);
  auto run = start(args(kubeconfig));
  createPods(0, 3);
  ASSERT_TRUE(eventually([&] { return boundPods(*server_) == 3; }, kDeadline)) << run->err();
  std::string info;
  std::getline(std::ifstream(plugin.parent_path() / "exec-info"), info);
  EXPECT_EQ(json::parse(info),
            json::parse(R"({"kind":"ExecCredential","apiVersion":"client.authentication.k8s.io/v1",
                            "spec":{"interactive":false}})"));
  // The provider rotates the credential: the old token is refused from now on.
  { std::ofstream(plugin.parent_path() / "issued") << "exec-two"; }
  server_->setTokens({"exec-two"});
  createPods(3, 6);
  ASSERT_TRUE(eventually([&] { return boundPods(*server_) == 6; }, kDeadline)) << run->err();
  std::ifstream runs(plugin.parent_path() / "runs");
  std::size_t count = 0;
  for (std::string line; std::getline(runs, line);) ++count;
  // Once at startup, then after the first 401s: every request that met a 401 with the old
  // token asks for a new one, and the plugin runs once for all of them (watches and lists
  // running at the time included).
  EXPECT_GE(count, 2u);
  EXPECT_LE(count, 3u);
  expectSound();
}

// The startup errors: one line naming the server and the context, and exit code 1.
TEST_F(RunKubeTest, BadCredentialsWrongCaAndAnUnreachableServerFailAtStartup) {
  struct Case {
    const char* name;
    KubeconfigAuth auth;
    std::string server;
    const char* cause;
  };
  const std::string url = server_->url();
  const std::vector<Case> cases = {
      {"bad-token", {false, "wrong", "", false}, url, "401 Unauthorized"},
      {"wrong-ca", {true, "", "", true}, url, "certificate verify failed"},
      {"unreachable", {true, "", "", false}, "https://127.0.0.1:1", "Connection refused"},
  };
  for (const Case& c : cases) {
    TempDir d;
    auto kubeconfig = writeKubeconfig(d.path(), c.server, tls_, c.auth);
    auto run = start(args(kubeconfig), c.name);
    EXPECT_EQ(run->waitExit(30s), 1) << c.name;
    const std::string err = run->err();
    EXPECT_NE(err.find("schedhost run: API server " + c.server + " (context \"test\"): "),
              std::string::npos)
        << c.name << ": " << err;
    EXPECT_NE(err.find(c.cause), std::string::npos) << c.name << ": " << err;
  }
}

// kube-scheduler's own command line and configuration file, unchanged: no command, pflag's
// -v=2, the serving and feature-gate flags of an upstream manifest, a KubeSchedulerConfiguration
// in YAML; logs as klog's JSON lines; the Lease upstream's default names.
TEST_F(RunKubeTest, AnUpstreamManifestRunsAsItIs) {
  for (int i = 0; i < 2; ++i) {
    server_->create("nodes", nodeJson("node-" + std::to_string(i), "2"));
  }
  createPods(0, 3, "500m");
  server_->create("pods", podJson("default", "scored", "100m", "no-scoring-scheduler"));
  auto kubeconfig = writeKubeconfig(dir_.path(), server_->url(), tls_);
  const std::filesystem::path config = dir_.path() / "kube-scheduler.yaml";
  std::ofstream(config) << R"(apiVersion: kubescheduler.config.k8s.io/v1
kind: KubeSchedulerConfiguration
podInitialBackoffSeconds: 1
podMaxBackoffSeconds: 1
leaderElection:
  leaderElect: true
clientConnection:
  kubeconfig: )" << kubeconfig.string()
                        << R"(
profiles:
  - schedulerName: default-scheduler
  - schedulerName: no-scoring-scheduler
    plugins:
      preScore:
        disabled:
          - name: '*'
      score:
        disabled:
          - name: '*'
)";
  auto run = start({"--authentication-kubeconfig=" + kubeconfig.string(),
                    "--authorization-kubeconfig=" + kubeconfig.string(), "--bind-address=127.0.0.1",
                    "--config=" + config.string(), "--leader-elect=true", "--secure-port=0", "-v=2",
                    "--logging-format=json", "--feature-gates=SchedulerQueueingHints=true"});
  ASSERT_TRUE(eventually([&] { return boundPods(*server_) == 4; }, kDeadline)) << run->err();
  expectSound();
  // SetDefaults_KubeSchedulerConfiguration: the Lease is kube-system/kube-scheduler.
  const auto lease = server_->get("leases", "kube-system", "kube-scheduler");
  ASSERT_TRUE(lease) << run->err();
  EXPECT_NE(stringAt(*lease, {"spec", "holderIdentity"}), "");
  // clientConnection.contentType defaults to protobuf upstream: the built-in kinds are listed
  // and watched in protobuf (client-go's Accept), and the pods above were scheduled from them.
  // Binds, events and the Lease are written in protobuf too; patches stay JSON (their media
  // types are JSON ones).
  std::set<std::string> protobufKinds;
  std::set<std::string> protobufWrites;
  for (const auto& r : server_->requests()) {
    if (r.verb == "list" || r.verb == "watch") {
      EXPECT_EQ(r.accept, "application/vnd.kubernetes.protobuf, */*") << r.resource;
      protobufKinds.insert(r.resource);
    }
    if (r.verb == "create" || r.verb == "update") {
      EXPECT_EQ(r.contentType, "application/vnd.kubernetes.protobuf") << r.method << " " << r.path;
      protobufWrites.insert(r.resource);
    }
  }
  EXPECT_TRUE(protobufKinds.count("pods") == 1 && protobufKinds.count("nodes") == 1);
  EXPECT_TRUE(protobufWrites.count("pods/binding") == 1 && protobufWrites.count("leases") == 1)
      << run->err();
  run->signal(SIGTERM);
  EXPECT_EQ(run->waitExit(30s), 0) << run->err();
  // Every line on stderr is a JSON object with klog's fields.
  std::istringstream lines(run->err());
  std::string line;
  int count = 0;
  while (std::getline(lines, line)) {
    boost::system::error_code ec;
    const json::value v = json::parse(line, ec);
    ASSERT_FALSE(ec) << "not JSON: " << line;
    ASSERT_TRUE(v.is_object()) << line;
    EXPECT_TRUE(v.as_object().contains("ts") && v.as_object().at("ts").is_double()) << line;
    EXPECT_TRUE(v.as_object().contains("msg") && v.as_object().at("msg").is_string()) << line;
    ++count;
  }
  EXPECT_GT(count, 0);
}

}  // namespace
}  // namespace sh::kubetest::run_kube_test
