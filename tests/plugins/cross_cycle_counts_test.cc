// PodTopologySpread and InterPodAffinity keep per-node counts from one cycle to the next and
// recount only the nodes whose generation changed. An instance that has scheduled through a
// changing cluster must answer exactly as a new one: the same PreFilter status, the same Filter
// answer on every node and the same scores, after every change the scheduler's cache can see
// (pods added, removed and relabelled, nodes relabelled, added and removed).
#include <gtest/gtest.h>

#include <boost/json.hpp>

#include <map>
#include <memory>
#include <random>
#include <string>
#include <vector>

#include "host/cache/cache.h"
#include "host/model/cluster_objects.h"
#include "tests/plugins/prefilter_extensions_util.h"

namespace schedhost::testing::cross_cycle_counts_test {
namespace {

constexpr char kSpread[] = "PodTopologySpread";
constexpr char kIPA[] = "InterPodAffinity";
constexpr char kZone[] = "topology.kubernetes.io/zone";
constexpr char kHostname[] = "kubernetes.io/hostname";

boost::json::value parseJson(const std::string& text) { return boost::json::parse(text); }

// A selector of pods labelled app=`app`.
std::string appSelector(const std::string& app) {
  return R"({"matchLabels": {"app": ")" + app + R"("}})";
}

std::string withSpread(int maxSkew, const std::string& key, const std::string& when,
                       const std::string& app, const std::string& extra = "") {
  return R"({"maxSkew": )" + std::to_string(maxSkew) + R"(, "topologyKey": ")" + key +
         R"(", "whenUnsatisfiable": ")" + when + R"(", "labelSelector": )" + appSelector(app) +
         extra + "}";
}

std::string affinityTerm(const std::string& app, const std::string& key,
                         const std::string& extra = "") {
  return R"({"labelSelector": )" + appSelector(app) + R"(, "topologyKey": ")" + key + R"(")" +
         extra + "}";
}

// The cluster, changed step by step through the scheduler's cache.
class Cluster {
 public:
  explicit Cluster(unsigned seed) : rng_(seed) {
    objects_ = std::make_shared<sh::model::ClusterObjects>();
    std::string error;
    for (const char* o :
         {R"({"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": "default"}})",
          R"({"apiVersion": "v1", "kind": "Namespace",
              "metadata": {"name": "team-a", "labels": {"team": "a"}}})",
          R"({"apiVersion": "v1", "kind": "Service",
              "metadata": {"name": "web", "namespace": "default"},
              "spec": {"selector": {"app": "web"}}})"}) {
      EXPECT_TRUE(objects_->add(parseJson(o), error)) << error;
    }
    for (int i = 0; i < 12; ++i) {
      addNode();
    }
    for (int i = 0; i < 40; ++i) {
      addPod();
    }
    publish();
  }

  sh::cache::Snapshot& snapshot() { return snapshot_; }

  // A node replaced by a new one holding a few pods (new names: domains come and go).
  void replaceNode() {
    removeNode();
    std::string node = addNode();
    for (int i = 0; i < 3; ++i) {
      std::string name = "p" + std::to_string(nextPod_++);
      PodPtr pod = makeClusterPod(name, node);
      EXPECT_TRUE(cache_.addPod(pod).ok());
      pods_[name] = Placed{pod, node};
    }
    publish();
  }

  // One random change, then the snapshot brought up to date; returns what changed.
  std::string step() {
    std::string what;
    switch (pick(10)) {
      case 0:
      case 1:
      case 2:
        what = "add pod " + addPod();
        break;
      case 3:
      case 4:
        what = "remove pod " + removePod();
        break;
      case 5:
      case 6:
        what = "relabel pod " + relabelPod();
        break;
      case 7:
        what = "relabel node " + relabelNode();
        break;
      case 8:
        what = "add node " + addNode();
        break;
      default:
        what = "remove node " + removeNode();
        break;
    }
    publish();
    return what;
  }

 private:
  std::size_t pick(std::size_t n) {
    return std::uniform_int_distribution<std::size_t>(0, n - 1)(rng_);
  }

  NodePtr makeClusterNode(const std::string& name, int variant) {
    auto n =
        makeNode().name(name).label(kHostname, name).label("region", variant % 2 ? "r1" : "r0");
    if (variant % 7 != 5) {
      n.label(kZone, "z" + std::to_string(variant % 3));
    }
    if (variant % 2 == 0) {
      n.label("disk", "ssd");
    }
    if (variant % 5 == 3) {
      n.taint("dedicated", "infra", "NoSchedule");
    }
    return n.obj();
  }

  std::string addNode() {
    std::string name = "n" + std::to_string(nextNode_++);
    NodePtr node = makeClusterNode(name, static_cast<int>(pick(21)));
    EXPECT_TRUE(cache_.addNode(node).ok());
    nodes_[name] = node;
    return name;
  }

  std::string removeNode() {
    if (nodes_.size() <= 4) {
      return addNode();
    }
    auto it = std::next(nodes_.begin(), static_cast<long>(pick(nodes_.size())));
    std::string name = it->first;
    EXPECT_TRUE(cache_.removeNode(*it->second).ok());
    nodes_.erase(it);
    // Its pods go with it, as the node controller's garbage collection would have them.
    for (auto p = pods_.begin(); p != pods_.end();) {
      if (p->second.node == name) {
        EXPECT_TRUE(cache_.removePod(*p->second.pod).ok());
        p = pods_.erase(p);
      } else {
        ++p;
      }
    }
    return name;
  }

  std::string relabelNode() {
    auto it = std::next(nodes_.begin(), static_cast<long>(pick(nodes_.size())));
    NodePtr updated = makeClusterNode(it->first, static_cast<int>(pick(21)));
    EXPECT_TRUE(cache_.updateNode(it->second, updated).ok());
    it->second = updated;
    return it->first;
  }

  // A pod with random labels, namespace and (anti-)affinity on `node`.
  PodPtr makeClusterPod(const std::string& name, const std::string& node) {
    static const char* kApps[] = {"web", "db", "cache"};
    auto p = makePod()
                 .name(name)
                 .uid(name)
                 .inNamespace(pick(4) == 0 ? "team-a" : "default")
                 .label("app", kApps[pick(3)])
                 .node(node);
    if (pick(3) == 0) {
      p.label("tier", pick(2) ? "front" : "back");
    }
    switch (pick(8)) {
      case 0:
        p.set({"spec", "affinity"},
              parseJson(
                  R"({"podAntiAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": [)" +
                  affinityTerm("db", kHostname) + "]}}"));
        break;
      case 1:
        p.set({"spec", "affinity"},
              parseJson(R"({"podAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": [)" +
                        affinityTerm("web", kZone) + "]}}"));
        break;
      case 2:
        p.set({"spec", "affinity"},
              parseJson(R"({"podAffinity": {"preferredDuringSchedulingIgnoredDuringExecution": [
                         {"weight": 3, "podAffinityTerm": )" +
                        affinityTerm("cache", "region") + R"(}]},
                     "podAntiAffinity": {"preferredDuringSchedulingIgnoredDuringExecution": [
                         {"weight": 2, "podAffinityTerm": )" +
                        affinityTerm("web", kHostname, R"(, "namespaceSelector": {})") + "}]}}"));
        break;
      case 3:
        p.terminating();
        break;
      default:
        break;
    }
    return p.obj();
  }

  std::string addPod() {
    if (nodes_.empty()) {
      addNode();
    }
    std::string name = "p" + std::to_string(nextPod_++);
    std::string node = std::next(nodes_.begin(), static_cast<long>(pick(nodes_.size())))->first;
    PodPtr pod = makeClusterPod(name, node);
    EXPECT_TRUE(cache_.addPod(pod).ok());
    pods_[name] = Placed{pod, node};
    return name + " on " + node;
  }

  std::string removePod() {
    if (pods_.empty()) {
      return addPod();
    }
    auto it = std::next(pods_.begin(), static_cast<long>(pick(pods_.size())));
    std::string name = it->first;
    EXPECT_TRUE(cache_.removePod(*it->second.pod).ok());
    pods_.erase(it);
    return name;
  }

  std::string relabelPod() {
    if (pods_.empty()) {
      return addPod();
    }
    auto it = std::next(pods_.begin(), static_cast<long>(pick(pods_.size())));
    PodPtr updated = makeClusterPod(it->first, it->second.node);
    EXPECT_TRUE(cache_.updatePod(it->second.pod, updated).ok());
    it->second.pod = updated;
    return it->first;
  }

  void publish() {
    EXPECT_TRUE(cache_.updateSnapshot(snapshot_).ok());
    snapshot_.objects = objects_;
  }

  struct Placed {
    PodPtr pod;
    std::string node;
  };

  std::mt19937 rng_;
  sh::cache::Cache cache_;
  sh::cache::Snapshot snapshot_;
  std::shared_ptr<sh::model::ClusterObjects> objects_;
  std::map<std::string, NodePtr> nodes_;
  std::map<std::string, Placed> pods_;
  int nextNode_ = 0;
  int nextPod_ = 0;
};

// The pods to schedule at every step: every counting path of both plugins.
std::vector<PodPtr> incomingPods() {
  auto pod = [](const std::string& name, const std::string& app,
                const std::string& ns = "default") {
    return makePod().name(name).uid(name).inNamespace(ns).label("app", app);
  };
  auto spread = [&](const std::string& name, const std::string& app,
                    const std::vector<std::string>& constraints) {
    std::string list = "[";
    for (std::size_t i = 0; i < constraints.size(); ++i) {
      list += (i > 0 ? ", " : "") + constraints[i];
    }
    return pod(name, app).set({"spec", "topologySpreadConstraints"}, parseJson(list + "]"));
  };
  auto affinity = [&](const std::string& name, const std::string& app, const std::string& json,
                      const std::string& ns = "default") {
    return pod(name, app, ns).set({"spec", "affinity"}, parseJson(json)).obj();
  };
  return {
      spread("zone", "web", {withSpread(1, kZone, "DoNotSchedule", "web")}).obj(),
      spread("host-and-soft-zone", "db",
             {withSpread(1, kHostname, "DoNotSchedule", "db"),
              withSpread(1, kZone, "ScheduleAnyway", "db")})
          .obj(),
      spread("ssd-min-domains", "web",
             {withSpread(1, kZone, "DoNotSchedule", "web", R"(, "minDomains": 4)")})
          .nodeSelector({{"disk", "ssd"}})
          .obj(),
      spread("honor-taints", "cache",
             {withSpread(1, kZone, "DoNotSchedule", "cache", R"(, "nodeTaintsPolicy": "Honor")")})
          .obj(),
      spread("soft-region-and-host", "web",
             {withSpread(2, "region", "ScheduleAnyway", "web"),
              withSpread(1, kHostname, "ScheduleAnyway", "web")})
          .obj(),
      spread("soft-ssd", "db", {withSpread(1, kZone, "ScheduleAnyway", "db")})
          .nodeSelector({{"disk", "ssd"}})
          .obj(),
      pod("system-defaults", "web").obj(),
      affinity("anti-host", "db",
               R"({"podAntiAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": [)" +
                   affinityTerm("db", kHostname) + "]}}"),
      affinity("affinity-zone", "cache",
               R"({"podAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": [)" +
                   affinityTerm("web", kZone) + "]}}"),
      affinity("preferred", "web",
               R"({"podAffinity": {"preferredDuringSchedulingIgnoredDuringExecution": [
                      {"weight": 5, "podAffinityTerm": )" +
                   affinityTerm("web", kZone) + R"(}]},
                   "podAntiAffinity": {"preferredDuringSchedulingIgnoredDuringExecution": [
                      {"weight": 4, "podAffinityTerm": )" +
                   affinityTerm("db", kHostname) + "}]}}"),
      affinity("namespace-selector", "db",
               R"({"podAntiAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": [)" +
                   affinityTerm("db", "region",
                                R"(, "namespaceSelector": {"matchLabels": {"team": "a"}})") +
                   "]}}",
               "team-a"),
      pod("no-terms", "web", "team-a").obj(),
  };
}

void expectSameAnswers(PreFilterHarness& longLived, const std::string& plugin,
                       sh::cache::Snapshot& snapshot, const PodPtr& pod) {
  SCOPED_TRACE(plugin + " for " + std::string(pod->view().name.ptr, pod->view().name.len));
  PreFilterHarness fresh(plugin);
  fresh.useSnapshot(&snapshot);
  sh::Status warm = longLived.preFilter(pod);
  sh::Status cold = fresh.preFilter(pod);
  ASSERT_EQ(outcome(warm), outcome(cold));
  if (!warm.ok()) {
    return;
  }
  EXPECT_EQ(longLived.filterAll(pod), fresh.filterAll(pod));
  EXPECT_EQ(longLived.scoreAll(pod), fresh.scoreAll(pod));
}

TEST(CrossCycleCountsTest, LongLivedInstanceAnswersAsANewOne) {
  for (unsigned seed : {1u, 2u, 3u}) {
    Cluster cluster(seed);
    PreFilterHarness spread(kSpread);
    PreFilterHarness affinity(kIPA);
    spread.useSnapshot(&cluster.snapshot());
    affinity.useSnapshot(&cluster.snapshot());
    const std::vector<PodPtr> incoming = incomingPods();
    for (int step = 0; step < 60; ++step) {
      std::string what = step == 0 ? "initial cluster" : cluster.step();
      SCOPED_TRACE("seed " + std::to_string(seed) + ", step " + std::to_string(step) + ": " + what);
      for (const PodPtr& pod : incoming) {
        expectSameAnswers(spread, kSpread, cluster.snapshot(), pod);
        expectSameAnswers(affinity, kIPA, cluster.snapshot(), pod);
      }
      if (::testing::Test::HasFailure()) {
        return;
      }
    }
  }
}

// Nodes replaced by new ones, by the hundred: domains that lost their last node are dropped
// from the kept counts from time to time, and the answers stay the same.
TEST(CrossCycleCountsTest, NodeChurn) {
  Cluster cluster(11);
  PreFilterHarness spread(kSpread);
  PreFilterHarness affinity(kIPA);
  spread.useSnapshot(&cluster.snapshot());
  affinity.useSnapshot(&cluster.snapshot());
  const std::vector<PodPtr> incoming = incomingPods();
  for (int round = 0; round < 300; ++round) {
    cluster.replaceNode();
    SCOPED_TRACE("round " + std::to_string(round));
    for (const PodPtr& pod : incoming) {
      expectSameAnswers(spread, kSpread, cluster.snapshot(), pod);
      expectSameAnswers(affinity, kIPA, cluster.snapshot(), pod);
    }
    if (::testing::Test::HasFailure()) {
      return;
    }
  }
}

// More queries than an instance keeps counters for: the least recently used ones are dropped
// and counted again when they come back.
TEST(CrossCycleCountsTest, EvictedQueriesAreCountedAgain) {
  Cluster cluster(7);
  PreFilterHarness spread(kSpread);
  spread.useSnapshot(&cluster.snapshot());
  for (int round = 0; round < 3; ++round) {
    cluster.step();
    for (int i = 0; i < 24; ++i) {
      std::string app = i % 3 == 0 ? "web" : "app-" + std::to_string(i);
      PodPtr pod =
          makePod()
              .name("q" + std::to_string(i))
              .uid("q" + std::to_string(i))
              .inNamespace("default")
              .label("app", app)
              .set({"spec", "topologySpreadConstraints"},
                   parseJson("[" + withSpread(1 + i % 2, kZone, "DoNotSchedule", app) + "]"))
              .obj();
      expectSameAnswers(spread, kSpread, cluster.snapshot(), pod);
    }
  }
}

}  // namespace
}  // namespace schedhost::testing::cross_cycle_counts_test
