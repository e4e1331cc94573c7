// KubeCluster in-process over loopback HTTPS against the test API server: the initial list
// as the scheduler's first changes, relists that reconcile what changed meanwhile, and the
// writes (binds and their conflicts, status patches, preemption, retries).
#include "host/connectors/kube/kube_cluster.h"

#include <chrono>
#include <memory>
#include <string>
#include <vector>

#include <gtest/gtest.h>
#include <boost/json.hpp>

#include "host/connectors/kube/event_recorder.h"
#include "host/connectors/kube/https_transport.h"
#include "tests/kube/support/fake_apiserver.h"
#include "tests/kube/support/kube_fixture.h"
#include "tests/kube/support/schedhost_process.h"
#include "tests/kube/support/test_certs.h"

namespace sh::kube::kube_cluster_test {
namespace {

namespace json = boost::json;
using connectors::ClusterChange;
using kubetest::eventually;
using kubetest::FakeApiServer;
using kubetest::nodeJson;
using kubetest::podJson;
using namespace std::chrono_literals;
using Type = ClusterChange::Type;

class KubeClusterTest : public ::testing::Test {
 protected:
  void SetUp() override {
    tls_ = kubetest::makeTlsMaterial();
    FakeApiServer::Options so;
    so.tls = tls_;
    so.watchChunkMax = 5;
    server_ = std::make_unique<FakeApiServer>(so);
    server_->start();
    HttpsTransport::Options to;
    to.config.server = server_->url();
    to.config.caPem = tls_.caCert;
    to.config.clientCertPem = tls_.clientCert;
    to.config.clientKeyPem = tls_.clientKey;
    to.qps = 0;
    std::string error;
    transport_ = HttpsTransport::create(to, error);
    ASSERT_NE(transport_, nullptr) << error;
  }

  void startCluster(std::string protobufAccept = {}) {
    KubeCluster::Options o;
    o.reflector.protobufAccept = std::move(protobufAccept);
    o.reflector.initialBackoff = 5ms;
    o.reflector.maxBackoff = 20ms;
    o.writeRetry.initial = 1ms;
    o.warn = [](const std::string&) {};
    cluster_ = std::make_unique<KubeCluster>(*transport_, o);
    cluster_->start();
    ASSERT_TRUE(cluster_->waitForSync(10s));
  }

  // Every change queued within `wait` after the first, as "added pod default/p" lines.
  std::vector<std::string> drain(std::chrono::milliseconds wait = 300ms) {
    std::vector<std::string> out;
    std::vector<ClusterChange> batch;
    const auto end = std::chrono::steady_clock::now() + wait;
    while (std::chrono::steady_clock::now() < end) {
      batch.clear();
      cluster_->nextBatch(batch, 20ms);
      for (const ClusterChange& c : batch) {
        std::string line = c.type == Type::kAdded      ? "added "
                           : c.type == Type::kModified ? "modified "
                                                       : "deleted ";
        if (c.kind == ClusterChange::Kind::kNode) {
          line += "node " + std::string((c.curNode ? c.curNode : c.oldNode)->name());
        } else {
          const auto& pod = c.curPod ? c.curPod : c.oldPod;
          line += "pod " + std::string(pod->namespaceName()) + "/" + std::string(pod->name());
        }
        out.push_back(line);
      }
    }
    return out;
  }

  std::shared_ptr<const model::Pod> waitForPod(const std::string& name) {
    std::shared_ptr<const model::Pod> pod;
    EXPECT_TRUE(eventually(
        [&] {
          pod = cluster_->pod("default", name);
          return pod != nullptr;
        },
        10s));
    return pod;
  }

  std::vector<FakeApiServer::Recorded> writes() {
    std::vector<FakeApiServer::Recorded> out;
    for (auto& r : server_->requests()) {
      if (r.verb != "list" && r.verb != "watch" && r.verb != "get" && r.verb != "") {
        out.push_back(r);
      }
    }
    return out;
  }

  kubetest::TlsMaterial tls_;
  std::unique_ptr<FakeApiServer> server_;
  std::unique_ptr<HttpsTransport> transport_;
  std::unique_ptr<KubeCluster> cluster_;
};

TEST_F(KubeClusterTest, ActivateQueuesTheStoreNodesFirstThenChangesAsTheyCome) {
  server_->create("pods", podJson("default", "b", "100m"));
  server_->create("pods", podJson("default", "a", "100m"));
  server_->create("nodes", nodeJson("n2", "4"));
  server_->create("nodes", nodeJson("n1", "4"));
  startCluster();
  EXPECT_TRUE(drain(100ms).empty());  // a standby queues nothing
  cluster_->activate();
  EXPECT_EQ(drain(), (std::vector<std::string>{"added node n1", "added node n2",
                                               "added pod default/a", "added pod default/b"}));
  server_->create("pods", podJson("default", "c", "100m"));
  server_->remove("pods", "default", "a");
  EXPECT_EQ(drain(), (std::vector<std::string>{"added pod default/c", "deleted pod default/a"}));
}

// clientConnection.contentType application/vnd.kubernetes.protobuf, as kube-scheduler's
// default: lists and watches of Pods and Nodes come in protobuf (watch frames cut into pieces
// of 1..5 bytes by the server), and give the same changes and the same objects as JSON.
TEST_F(KubeClusterTest, ListsAndWatchesInProtobufGiveWhatJsonGives) {
  server_->create("pods", podJson("default", "a", "100m"));
  server_->create("nodes", nodeJson("n1", "4"));
  startCluster("application/vnd.kubernetes.protobuf, */*");
  cluster_->activate();
  EXPECT_EQ(drain(), (std::vector<std::string>{"added node n1", "added pod default/a"}));
  server_->create("pods", podJson("default", "c", "250m"));
  server_->remove("pods", "default", "a");
  EXPECT_EQ(drain(), (std::vector<std::string>{"added pod default/c", "deleted pod default/a"}));
  const auto pod = waitForPod("c");
  ASSERT_NE(pod, nullptr);
  // The object as the server stores it, field for field (its JSON, as a JSON watch gives it).
  const json::object stored = *server_->get("pods", "default", "c");
  EXPECT_EQ(pod->manifest(), json::value(stored)) << json::serialize(pod->manifest());
  // A compaction ends the watch with an in-stream ERROR (a protobuf Status, 410): the
  // reflector lists again and goes on.
  server_->compact();
  server_->create("pods", podJson("default", "d", "100m"));
  EXPECT_NE(waitForPod("d"), nullptr);
  std::size_t protobufReads = 0;
  for (const auto& r : server_->requests()) {
    if ((r.verb == "list" || r.verb == "watch") &&
        (r.resource == "pods" || r.resource == "nodes")) {
      EXPECT_EQ(r.accept, "application/vnd.kubernetes.protobuf, */*") << r.resource << r.query;
      ++protobufReads;
    }
  }
  EXPECT_GE(protobufReads, 5U);  // pods and nodes listed and watched, pods relisted
}

TEST_F(KubeClusterTest, ARelistDeliversWhatChangedMeanwhileAndNothingElse) {
  server_->create("nodes", nodeJson("n1", "4"));
  for (const char* name : {"keep", "change", "gone"}) {
    server_->create("pods", podJson("default", name, "100m"));
  }
  startCluster();
  cluster_->activate();
  EXPECT_EQ(drain().size(), 4u);
  // History is compacted: the watch gets 410 and the reflector lists again. Meanwhile one pod
  // changed, one went, one came, and one was recreated under its name (a new UID).
  server_->compact();
  auto change = *server_->get("pods", "default", "change");
  change["metadata"].as_object()["labels"] = json::object{{"x", "y"}};
  server_->update("pods", change);
  server_->remove("pods", "default", "gone");
  server_->create("pods", podJson("default", "new", "100m"));
  auto lines = drain(1s);
  std::sort(lines.begin(), lines.end());
  EXPECT_EQ(lines, (std::vector<std::string>{"added pod default/new", "deleted pod default/gone",
                                             "modified pod default/change"}));
  EXPECT_GE(cluster_->reflectorStats().expired, 1u);
}

TEST_F(KubeClusterTest, ABindThatFindsThePodBoundElsewhereIsAnErrorAndSilencesTheFailure) {
  server_->create("nodes", nodeJson("n1", "4"));
  server_->create("nodes", nodeJson("n2", "4"));
  server_->create("pods", podJson("default", "p", "100m"));
  startCluster();
  auto pod = waitForPod("p");
  // Someone else binds it first (another scheduler, or a bind whose answer we lost).
  auto bound = *server_->get("pods", "default", "p");
  bound["spec"].as_object()["nodeName"] = "n2";
  server_->update("pods", bound);
  Status s = cluster_->bind(*pod, "n1");
  ASSERT_FALSE(s.ok());
  EXPECT_NE(s.message().find("binding pod default/p to node \"n1\": 409 Conflict"),
            std::string::npos)
      << s.message();
  EXPECT_EQ(cluster_->stats().bindConflicts, 1u);
  // The failure path writes nothing for it: the watch shows it bound.
  server_->clearRequests();
  connectors::SchedulingFailure f;
  f.pod = pod;
  f.reason = "SchedulerError";
  f.message = "binding rejected";
  cluster_->recordFailure(f);
  cluster_->flushWrites(2s);
  EXPECT_TRUE(writes().empty());
}

TEST_F(KubeClusterTest, A409ForTheNodeWeAskedIsOurEarlierBindLanding) {
  server_->create("nodes", nodeJson("n1", "4"));
  server_->create("pods", podJson("default", "p", "100m"));
  startCluster();
  auto pod = waitForPod("p");
  ASSERT_TRUE(cluster_->bind(*pod, "n1").ok());
  // The same bind again (its answer was lost and it was retried): the server says 409, and
  // the pod is bound where we wanted it.
  EXPECT_TRUE(cluster_->bind(*pod, "n1").ok());
  EXPECT_EQ(server_->bindCount(std::string(pod->uid())), 1u);
}

TEST_F(KubeClusterTest, WritesThatGet429Or5xxAreRetriedAndLandOnce) {
  server_->create("nodes", nodeJson("n1", "4"));
  server_->create("pods", podJson("default", "p", "100m"));
  startCluster();
  auto pod = waitForPod("p");
  server_->failNext("POST /api/v1/namespaces/default/pods/p/binding", 429, 1, 0);
  server_->failNext("POST /api/v1/namespaces/default/pods/p/binding", 503, 1);
  server_->clearRequests();
  ASSERT_TRUE(cluster_->bind(*pod, "n1").ok());
  std::size_t attempts = 0;
  for (const auto& r : writes()) {
    attempts += r.resource == "pods/binding" ? 1 : 0;
  }
  EXPECT_EQ(attempts, 3u);
  EXPECT_EQ(server_->bindCount(std::string(pod->uid())), 1u);
  // A 4xx other than 429 is not retried.
  server_->create("pods", podJson("default", "q", "100m"));
  auto q = waitForPod("q");
  server_->failNext("POST /api/v1/namespaces/default/pods/q/binding", 403, 1);
  server_->clearRequests();
  EXPECT_FALSE(cluster_->bind(*q, "n1").ok());
  EXPECT_EQ(writes().size(), 1u);
}

TEST_F(KubeClusterTest, AFailureIsPatchedOnceAndOnlyWhenItSaysSomethingNew) {
  server_->create("pods", podJson("default", "p", "8"));
  startCluster();
  auto pod = waitForPod("p");
  connectors::SchedulingFailure f;
  f.pod = pod;
  f.reason = "Unschedulable";
  f.message = "0/0 nodes are available.";
  cluster_->recordFailure(f);
  cluster_->flushWrites(2s);
  ASSERT_EQ(writes().size(), 1u);
  EXPECT_EQ(writes()[0].contentType, "application/strategic-merge-patch+json");
  EXPECT_EQ(writes()[0].resource, "pods/status");
  // Once the watch shows the condition, the same failure again writes nothing.
  ASSERT_TRUE(eventually(
      [&] {
        auto p = cluster_->pod("default", "p");
        return p != nullptr && p->json().find("0/0 nodes are available.") != std::string::npos;
      },
      10s));
  f.pod = cluster_->pod("default", "p");
  cluster_->recordFailure(f);
  cluster_->flushWrites(2s);
  EXPECT_EQ(writes().size(), 1u);
  EXPECT_EQ(cluster_->stats().statusSkipped, 1u);
}

TEST_F(KubeClusterTest, PreemptionMarksTheVictimThenDeletesItByUid) {
  server_->create("nodes", nodeJson("n1", "4"));
  auto victimJson = podJson("default", "victim", "100m");
  victimJson["spec"].as_object()["nodeName"] = "n1";
  server_->create("pods", victimJson);
  startCluster();
  auto victim = waitForPod("victim");
  server_->clearRequests();
  ASSERT_TRUE(cluster_
                  ->preemptPod(*victim,
                               "default-scheduler: preempting to accommodate a "
                               "higher priority pod")
                  .ok());
  const auto w = writes();
  ASSERT_EQ(w.size(), 2u);
  EXPECT_EQ(w[0].resource, "pods/status");
  EXPECT_NE(w[0].body.find("\"DisruptionTarget\""), std::string::npos);
  EXPECT_EQ(w[1].verb, "delete");
  EXPECT_NE(w[1].body.find(std::string(victim->uid())), std::string::npos);
  EXPECT_FALSE(server_->get("pods", "default", "victim").has_value());
}

}  // namespace
}  // namespace sh::kube::kube_cluster_test
