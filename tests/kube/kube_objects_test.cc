// KubeCluster and the kinds plugins declare, in-process over loopback HTTPS against the test API
// server with PodGroups (scheduling.x-k8s.io/v1alpha1) served as a custom resource: their
// changes as kObject changes of the kind's id, the plugins' writes as the API receives them, a
// CustomResourceDefinition that is missing and then installed, selectors, objects that do not
// parse, and the bounded stop.
#include <algorithm>
#include <chrono>
#include <future>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include <gtest/gtest.h>
#include <boost/json.hpp>

#include "host/cli/kube_metrics.h"
#include "host/connectors/kube/https_transport.h"
#include "host/connectors/kube/kube_cluster.h"
#include "host/connectors/object_store.h"
#include "host/metrics/registry.h"
#include "tests/kube/support/fake_apiserver.h"
#include "tests/kube/support/kube_fixture.h"
#include "tests/kube/support/schedhost_process.h"
#include "tests/kube/support/test_certs.h"

namespace sh::kube::kube_objects_test {
namespace {

namespace json = boost::json;
using connectors::ClusterChange;
using connectors::ObjectKind;
using connectors::ObjectStore;
using connectors::ObjectWrite;
using kubetest::eventually;
using kubetest::FakeApiServer;
using namespace std::chrono_literals;
using Type = ClusterChange::Type;

const std::string kPlugin = "Coscheduling";

FakeApiServer::CustomResource podGroupResource() {
  FakeApiServer::CustomResource r;
  r.group = "scheduling.x-k8s.io";
  r.version = "v1alpha1";
  r.resource = "podgroups";
  r.kind = "PodGroup";
  return r;
}

ObjectKind podGroupKind(std::string labelSelector = {}) {
  ObjectKind k;
  k.group = "scheduling.x-k8s.io";
  k.version = "v1alpha1";
  k.resource = "podgroups";
  k.kind = "PodGroup";
  k.labelSelector = std::move(labelSelector);
  return k;
}

// A kind the test server never serves, declared first so that PodGroups get id 1, not 0.
ObjectKind elasticQuotaKind() {
  ObjectKind k = podGroupKind();
  k.resource = "elasticquotas";
  k.kind = "ElasticQuota";
  return k;
}

json::object podGroup(const std::string& name, int minMember, json::object labels = {}) {
  return json::object{
      {"apiVersion", "scheduling.x-k8s.io/v1alpha1"},
      {"kind", "PodGroup"},
      {"metadata", {{"name", name}, {"namespace", "default"}, {"labels", std::move(labels)}}},
      {"spec", {{"minMember", minMember}, {"scheduleTimeoutSeconds", 10}}}};
}

ObjectWrite objectWrite(uint32_t verb, sh_patch_type patch, std::string name, std::string body) {
  ObjectWrite w;
  w.verb = verb;
  w.patchType = patch;
  w.ns = "default";
  w.name = std::move(name);
  w.body = std::move(body);
  return w;
}

class KubeObjectsTest : public ::testing::Test {
 protected:
  void SetUp() override {
    tls_ = kubetest::makeTlsMaterial();
    FakeApiServer::Options so;
    so.tls = tls_;
    so.watchChunkMax = 7;
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

  // The cluster, watching the kinds of store_, started and synced.
  void startCluster(std::chrono::milliseconds notServedRetry = 30s) {
    KubeCluster::Options o;
    o.reflector.initialBackoff = 5ms;
    o.reflector.maxBackoff = 20ms;
    o.reflector.notServedRetry = notServedRetry;
    o.writeRetry.initial = 1ms;
    o.warn = [this](const std::string& w) {
      std::lock_guard<std::mutex> lock(mu_);
      warnings_.push_back(w);
    };
    o.reflector.warn = o.warn;
    cluster_ = std::make_unique<KubeCluster>(*transport_, o);
    cluster_->watchKinds(store_);
    cluster_->start();
    ASSERT_TRUE(cluster_->waitForSync(10s)) << cluster_->syncProblems();
  }

  // Every change queued within `wait`, as lines: "added node n1", "relist 1: default/pg-1",
  // "modified 1 default/pg-1". Object changes are applied to store_ as the scheduler does.
  std::vector<std::string> drain(std::chrono::milliseconds wait = 400ms) {
    std::vector<std::string> out;
    std::vector<ClusterChange> batch;
    const auto end = std::chrono::steady_clock::now() + wait;
    while (std::chrono::steady_clock::now() < end) {
      batch.clear();
      cluster_->nextBatch(batch, 20ms);
      for (const ClusterChange& c : batch) {
        out.push_back(describe(c));
        if (c.kind != ClusterChange::Kind::kObject) {
          continue;
        }
        std::vector<connectors::ObjectEvent> events;
        if (c.relist != nullptr) {
          store_.replace(c.objectKind, *c.relist, events);
        } else {
          store_.apply(c.objectKind, c.type == Type::kDeleted, c.object, events);
        }
      }
    }
    return out;
  }

  // Drains until a line equal to `line` came (up to 10 s); every line seen.
  std::vector<std::string> drainUntil(const std::string& line) {
    std::vector<std::string> seen;
    const auto end = std::chrono::steady_clock::now() + 10s;
    while (std::chrono::steady_clock::now() < end &&
           std::find(seen.begin(), seen.end(), line) == seen.end()) {
      for (std::string& l : drain(50ms)) {
        seen.push_back(std::move(l));
      }
    }
    return seen;
  }

  static std::string describe(const ClusterChange& c) {
    const char* type = c.type == Type::kAdded      ? "added "
                       : c.type == Type::kModified ? "modified "
                                                   : "deleted ";
    if (c.kind == ClusterChange::Kind::kNode) {
      return type + std::string("node ") + std::string((c.curNode ? c.curNode : c.oldNode)->name());
    }
    if (c.kind == ClusterChange::Kind::kPod) {
      const auto& pod = c.curPod ? c.curPod : c.oldPod;
      return type + std::string("pod ") + std::string(pod->namespaceName()) + "/" +
             std::string(pod->name());
    }
    if (c.relist != nullptr) {
      std::string keys;
      for (const auto& o : *c.relist) {
        keys += (keys.empty() ? "" : ",") + o->key();
      }
      return "relist " + std::to_string(c.objectKind) + ": " + keys;
    }
    return type + std::to_string(c.objectKind) + " " + c.object->key();
  }

  // The keys the store holds for kind `id`.
  std::vector<std::string> storedKeys(std::size_t id) {
    std::vector<std::string> keys;
    if (auto v = store_.version(id)) {
      for (const auto& o : v->objects()) {
        keys.push_back(o->key());
      }
    }
    return keys;
  }

  std::vector<std::string> warningsWith(const std::string& text) {
    std::lock_guard<std::mutex> lock(mu_);
    std::vector<std::string> out;
    for (const auto& w : warnings_) {
      if (w.find(text) != std::string::npos) {
        out.push_back(w);
      }
    }
    return out;
  }

  // The requests to PodGroups other than lists and watches.
  std::vector<FakeApiServer::Recorded> podGroupWrites() {
    std::vector<FakeApiServer::Recorded> out;
    for (auto& r : server_->requests()) {
      if (r.apiGroup == "scheduling.x-k8s.io" && r.verb != "list" && r.verb != "watch") {
        out.push_back(r);
      }
    }
    return out;
  }

  kubetest::TlsMaterial tls_;
  std::unique_ptr<FakeApiServer> server_;
  std::unique_ptr<HttpsTransport> transport_;
  // The cluster's threads warn until it is gone; it reads the store until then.
  std::mutex mu_;
  std::vector<std::string> warnings_;
  ObjectStore store_;
  std::unique_ptr<KubeCluster> cluster_;
};

TEST_F(KubeObjectsTest, ADeclaredKindsChangesArriveAsObjectChangesOfItsId) {
  server_->addCustomResource(podGroupResource());
  server_->create("nodes", kubetest::nodeJson("n1", "4"));
  server_->create("pods", kubetest::podJson("default", "p", "100m"));
  server_->create("podgroups", podGroup("pg-1", 2));
  ASSERT_EQ(store_.addKind(elasticQuotaKind(), SH_VERB_ALL, kPlugin), 0u);
  const std::size_t id = store_.addKind(podGroupKind(), SH_VERB_ALL, kPlugin);
  ASSERT_EQ(id, 1u);
  startCluster();
  EXPECT_TRUE(drain(100ms).empty());  // a standby queues nothing
  cluster_->activate();
  // The objects come before the pods, which may wait for them.
  EXPECT_EQ(drain(), (std::vector<std::string>{"added node n1", "relist 1: default/pg-1",
                                               "added pod default/p"}));
  EXPECT_EQ(storedKeys(id), (std::vector<std::string>{"default/pg-1"}));

  server_->create("podgroups", podGroup("pg-2", 3));
  auto pg1 = *server_->get("podgroups", "default", "pg-1");
  pg1["status"] = json::object{{"phase", "Scheduling"}};
  server_->updateStatus("podgroups", pg1);
  server_->remove("podgroups", "default", "pg-2");
  EXPECT_EQ(drainUntil("deleted 1 default/pg-2"),
            (std::vector<std::string>{"added 1 default/pg-2", "modified 1 default/pg-1",
                                      "deleted 1 default/pg-2"}));
  EXPECT_EQ(storedKeys(id), (std::vector<std::string>{"default/pg-1"}));
  const connectors::KindVersionPtr version = store_.version(id);
  const auto* stored = version->find("default", "pg-1");
  ASSERT_NE(stored, nullptr);
  EXPECT_EQ(stored->json().at("status").at("phase"), "Scheduling");
  EXPECT_EQ(std::string_view(stored->view().kind.ptr, stored->view().kind.len), "PodGroup");
}

TEST_F(KubeObjectsTest, AnExpiredWatchRelistsTheWholeKind) {
  server_->addCustomResource(podGroupResource());
  server_->create("podgroups", podGroup("keep", 2));
  server_->create("podgroups", podGroup("gone", 2));
  const std::size_t id = store_.addKind(podGroupKind(), SH_VERB_ALL, kPlugin);
  startCluster();
  cluster_->activate();
  EXPECT_EQ(drain(), (std::vector<std::string>{"relist 0: default/gone,default/keep"}));
  // History is compacted: the watch gets 410 and the kind is listed again.
  server_->compact();
  server_->remove("podgroups", "default", "gone");
  server_->create("podgroups", podGroup("new", 2));
  const auto lines = drainUntil("relist 0: default/keep,default/new");
  EXPECT_EQ(lines.back(), "relist 0: default/keep,default/new");
  EXPECT_EQ(storedKeys(id), (std::vector<std::string>{"default/keep", "default/new"}));
  EXPECT_GE(cluster_->reflectorStats().expired, 1u);
}

TEST_F(KubeObjectsTest, PluginsWritesReachTheApiAsTheDynamicClientSendsThem) {
  server_->addCustomResource(podGroupResource());
  server_->create("podgroups", podGroup("pg-1", 2));
  const std::size_t id = store_.addKind(podGroupKind(), SH_VERB_ALL, kPlugin);
  startCluster();
  cluster_->activate();
  drain(100ms);
  const ObjectKind kind = store_.kinds()[id].spec;
  server_->clearRequests();

  EXPECT_TRUE(cluster_
                  ->writeObject(kind, objectWrite(SH_VERB_UPDATE_STATUS, SH_PATCH_MERGE, "pg-1",
                                                  R"({"status":{"phase":"Scheduled"}})"))
                  .ok());
  EXPECT_TRUE(cluster_
                  ->writeObject(kind, objectWrite(SH_VERB_CREATE, SH_PATCH_NONE, "",
                                                  json::serialize(podGroup("pg-2", 4))))
                  .ok());
  EXPECT_TRUE(cluster_
                  ->writeObject(
                      kind, objectWrite(SH_VERB_PATCH, SH_PATCH_JSON, "pg-2",
                                        R"([{"op":"replace","path":"/spec/minMember","value":5}])"))
                  .ok());
  EXPECT_TRUE(
      cluster_->writeObject(kind, objectWrite(SH_VERB_DELETE, SH_PATCH_NONE, "pg-2", "")).ok());
  const auto w = podGroupWrites();
  ASSERT_EQ(w.size(), 4u);
  const std::string base = "/apis/scheduling.x-k8s.io/v1alpha1/namespaces/default/podgroups";
  EXPECT_EQ(w[0].method, "PATCH");
  EXPECT_EQ(w[0].path, base + "/pg-1/status");
  EXPECT_EQ(w[0].contentType, "application/merge-patch+json");
  EXPECT_EQ(w[0].status, 200);
  EXPECT_EQ(w[1].method, "POST");
  EXPECT_EQ(w[1].path, base);
  EXPECT_EQ(w[1].contentType, "application/json");
  EXPECT_EQ(w[1].status, 201);
  EXPECT_EQ(w[2].method, "PATCH");
  EXPECT_EQ(w[2].path, base + "/pg-2");
  EXPECT_EQ(w[2].contentType, "application/json-patch+json");
  EXPECT_EQ(w[2].status, 200);
  EXPECT_EQ(w[3].method, "DELETE");
  EXPECT_EQ(w[3].path, base + "/pg-2");
  EXPECT_EQ(w[3].status, 200);
  EXPECT_EQ(cluster_->stats().objectWrites, 4u);
  // Each comes back through the watch.
  const auto lines = drainUntil("deleted 0 default/pg-2");
  EXPECT_EQ(lines, (std::vector<std::string>{"modified 0 default/pg-1", "added 0 default/pg-2",
                                             "modified 0 default/pg-2", "deleted 0 default/pg-2"}));
  EXPECT_EQ(store_.version(id)->find("default", "pg-1")->json().at("status").at("phase"),
            "Scheduled");

  // A failure carries the API's own message.
  Status missing = cluster_->writeObject(
      kind, objectWrite(SH_VERB_UPDATE_STATUS, SH_PATCH_MERGE, "pg-9", R"({"status":{}})"));
  ASSERT_FALSE(missing.ok());
  EXPECT_EQ(missing.message(), "podgroups.scheduling.x-k8s.io \"pg-9\" not found");
  Status strategic = cluster_->writeObject(
      kind, objectWrite(SH_VERB_PATCH, SH_PATCH_STRATEGIC_MERGE, "pg-1", R"({"spec":{}})"));
  ASSERT_FALSE(strategic.ok());
  EXPECT_NE(strategic.message().find("the body of the request was in an unknown format"),
            std::string::npos)
      << strategic.message();
  EXPECT_EQ(cluster_->stats().writeFailures, 2u);
}

TEST_F(KubeObjectsTest, WritesAreRetriedOn5xxLikeBinds) {
  server_->addCustomResource(podGroupResource());
  server_->create("podgroups", podGroup("pg-1", 2));
  const std::size_t id = store_.addKind(podGroupKind(), SH_VERB_ALL, kPlugin);
  startCluster();
  server_->failNext("PATCH /apis/scheduling.x-k8s.io/", 503, 2);
  server_->clearRequests();
  EXPECT_TRUE(cluster_
                  ->writeObject(store_.kinds()[id].spec,
                                objectWrite(SH_VERB_PATCH, SH_PATCH_MERGE, "pg-1",
                                            R"({"metadata":{"labels":{"a":"b"}}})"))
                  .ok());
  EXPECT_EQ(podGroupWrites().size(), 3u);
}

TEST_F(KubeObjectsTest, AWriteInFlightEndsWithTheBoundedStop) {
  server_->addCustomResource(podGroupResource());
  server_->create("podgroups", podGroup("pg-1", 2));
  const std::size_t id = store_.addKind(podGroupKind(), SH_VERB_ALL, kPlugin);
  startCluster();
  server_->stall("PATCH /apis/scheduling.x-k8s.io/");
  const ObjectKind kind = store_.kinds()[id].spec;
  auto write = std::async(std::launch::async, [&] {
    return cluster_->writeObject(
        kind, objectWrite(SH_VERB_PATCH, SH_PATCH_MERGE, "pg-1", R"({"spec":{"minMember":3}})"));
  });
  // The server never answers it.
  EXPECT_EQ(write.wait_for(200ms), std::future_status::timeout);
  cluster_->cancelBinds();
  ASSERT_EQ(write.wait_for(5s), std::future_status::ready);
  EXPECT_FALSE(write.get().ok());
  // Later writes fail at once.
  EXPECT_FALSE(
      cluster_->writeObject(kind, objectWrite(SH_VERB_DELETE, SH_PATCH_NONE, "pg-1", "")).ok());
  EXPECT_TRUE(server_->get("podgroups", "default", "pg-1").has_value());
}

TEST_F(KubeObjectsTest, AMissingCrdIsReportedOnceAndTheKindIsServedOnceInstalled) {
  const std::size_t id = store_.addKind(podGroupKind(), SH_VERB_ALL, kPlugin);
  store_.addKind(podGroupKind(), SH_VERB_PATCH, "GangPermit");
  // A kind not served counts as synced: startup does not wait for it.
  startCluster(/*notServedRetry=*/20ms);
  cluster_->activate();
  ASSERT_TRUE(store_.notServed(id).has_value());
  EXPECT_NE(store_.notServed(id)->find("404 Not Found"), std::string::npos)
      << *store_.notServed(id);
  // Listed again and again, reported once.
  ASSERT_TRUE(eventually([&] { return cluster_->reflectorStats().notServed >= 3; }, 10s));
  const auto reported = warningsWith("does not serve");
  ASSERT_EQ(reported.size(), 1u);
  EXPECT_EQ(reported[0],
            "kubernetes: the API server does not serve PodGroup "
            "(podgroups.v1alpha1.scheduling.x-k8s.io), declared by plugins Coscheduling, "
            "GangPermit (list podgroups: 404 Not Found: the server could not find the requested "
            "resource); they see no objects of it until it is served (is its "
            "CustomResourceDefinition installed?)");
  EXPECT_EQ(cluster_->stats().kindsNotServed, 1u);
  EXPECT_TRUE(drain(100ms).empty());
  // The CRD is installed: the next list finds it.
  server_->addCustomResource(podGroupResource());
  server_->create("podgroups", podGroup("pg-1", 2));
  const auto lines = drainUntil("relist 0: default/pg-1");
  EXPECT_EQ(lines.back(), "relist 0: default/pg-1");
  EXPECT_EQ(storedKeys(id), (std::vector<std::string>{"default/pg-1"}));
  server_->create("podgroups", podGroup("pg-2", 2));
  EXPECT_EQ(drainUntil("added 0 default/pg-2").back(), "added 0 default/pg-2");
  EXPECT_EQ(warningsWith("does not serve").size(), 1u);
}

TEST_F(KubeObjectsTest, AKindsSelectorIsTheWatchsLabelSelector) {
  server_->addCustomResource(podGroupResource());
  server_->create("podgroups", podGroup("a", 2, {{"team", "a"}}));
  server_->create("podgroups", podGroup("b", 2, {{"team", "b"}}));
  const std::size_t id = store_.addKind(podGroupKind("team=a"), SH_VERB_ALL, kPlugin);
  startCluster();
  cluster_->activate();
  EXPECT_EQ(drain(), (std::vector<std::string>{"relist 0: default/a"}));
  bool asked = false;
  for (const auto& r : server_->requests()) {
    if (r.resource == "podgroups") {
      EXPECT_NE(r.query.find("labelSelector=team%3Da"), std::string::npos) << r.query;
      asked = true;
    }
  }
  EXPECT_TRUE(asked);
  server_->create("podgroups", podGroup("c", 2, {{"team", "b"}}));
  server_->create("podgroups", podGroup("d", 2, {{"team", "a"}}));
  EXPECT_EQ(drainUntil("added 0 default/d"), (std::vector<std::string>{"added 0 default/d"}));
  EXPECT_EQ(cluster_->objects(id).size(), 2u);
}

TEST_F(KubeObjectsTest, AnObjectThatDoesNotParseIsWarnedNamingItAndCounted) {
  server_->addCustomResource(podGroupResource());
  auto bad = podGroup("bad", 2);
  bad["metadata"].as_object()["creationTimestamp"] = "yesterday";
  server_->create("podgroups", bad);
  server_->create("podgroups", podGroup("good", 2));
  store_.addKind(podGroupKind(), SH_VERB_ALL, kPlugin);
  startCluster();
  cluster_->activate();
  EXPECT_EQ(drain(), (std::vector<std::string>{"relist 0: default/good"}));
  const auto w = warningsWith("default/bad");
  ASSERT_EQ(w.size(), 1u);
  EXPECT_EQ(w[0].rfind("kubernetes: ignored PodGroup default/bad "
                       "(podgroups.v1alpha1.scheduling.x-k8s.io): ",
                       0),
            0u)
      << w[0];
  EXPECT_EQ(cluster_->stats().rejected, 1u);
}

TEST_F(KubeObjectsTest, TheConnectorsCountsAreMetricsWhileItLives) {
  server_->addCustomResource(podGroupResource());
  auto bad = podGroup("bad", 2);
  bad["metadata"].as_object()["creationTimestamp"] = "yesterday";
  server_->create("podgroups", bad);
  server_->create("podgroups", podGroup("good", 2));
  store_.addKind(elasticQuotaKind(), SH_VERB_ALL, kPlugin);  // never served
  const std::size_t id = store_.addKind(podGroupKind(), SH_VERB_ALL, kPlugin);
  startCluster();
  cluster_->activate();
  EXPECT_EQ(drain(), (std::vector<std::string>{"relist 1: default/good"}));
  const ObjectKind kind = store_.kinds()[id].spec;
  EXPECT_TRUE(cluster_
                  ->writeObject(kind, objectWrite(SH_VERB_UPDATE_STATUS, SH_PATCH_MERGE, "good",
                                                  R"({"status":{"phase":"Scheduled"}})"))
                  .ok());
  EXPECT_FALSE(
      cluster_->writeObject(kind, objectWrite(SH_VERB_DELETE, SH_PATCH_NONE, "nope", "")).ok());

  metrics::Registry registry;
  std::string text;
  {
    cli::KubeMetrics m(registry, *cluster_);
    text = registry.render();
  }
  // One object that did not parse (bad), one write of each result, one kind not served, no
  // binds yet.
  for (const char* line : {"schedhost_kube_objects_rejected_total 1\n",
                           "schedhost_kube_object_writes_total{result=\"error\"} 1\n",
                           "schedhost_kube_object_writes_total{result=\"success\"} 1\n",
                           "schedhost_kube_declared_kinds_not_served 1\n",
                           "# TYPE schedhost_kube_declared_kinds_not_served gauge\n",
                           "# TYPE schedhost_kube_objects_rejected_total counter\n",
                           "schedhost_kube_binds_total{result=\"success\"} 0\n"}) {
    EXPECT_NE(text.find(line), std::string::npos) << line << "\n" << text;
  }
  // Gone with the metrics object: a scrape after the cluster is torn down reads nothing of it.
  EXPECT_EQ(registry.render().find("schedhost_kube_"), std::string::npos);
}

TEST_F(KubeObjectsTest, KindsDeclaredLaterAreWatchedWithoutHoldingBackSync) {
  server_->addCustomResource(podGroupResource());
  server_->create("podgroups", podGroup("pg-1", 2, {{"team", "a"}}));
  startCluster();
  cluster_->activate();
  // A reload declares two kinds; the server never answers the first one's list.
  server_->stall(
      "GET /apis/scheduling.x-k8s.io/v1alpha1/podgroups?limit=500&resourceVersion=0"
      "&labelSelector=team%3Dstuck");
  EXPECT_EQ(store_.addKind(podGroupKind("team=stuck"), SH_VERB_ALL, kPlugin), 0u);
  EXPECT_EQ(store_.addKind(podGroupKind("team=a"), SH_VERB_ALL, kPlugin), 1u);
  EXPECT_EQ(drainUntil("relist 1: default/pg-1").back(), "relist 1: default/pg-1");
  EXPECT_TRUE(cluster_->synced());  // kinds declared after watchKinds() do not count
  for (const auto& r : server_->requests()) {
    EXPECT_EQ(r.query.find("team%3Dstuck"), std::string::npos);  // never answered
  }
  server_->stop();  // ends the stalled list
}

}  // namespace
}  // namespace sh::kube::kube_objects_test
