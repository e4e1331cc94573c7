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

namespace schedhost::testing {
namespace {

constexpr char kSpread[] = "PodTopologySpread";
constexpr char kIPA[] = "InterPodAffinity";
constexpr char kZone[] = "topology.kubernetes.io/zone";
constexpr char kHostname[] = "kubernetes.io/hostname";

boost::json::value Json(const std::string& text) { return boost::json::parse(text); }

// A selector of pods labelled app=`app`.
std::string App(const std::string& app) { return R"({"matchLabels": {"app": ")" + app + R"("}})"; }

std::string Spread(int maxSkew, const std::string& key, const std::string& when,
                   const std::string& app, const std::string& extra = "") {
  return R"({"maxSkew": )" + std::to_string(maxSkew) + R"(, "topologyKey": ")" + key +
         R"(", "whenUnsatisfiable": ")" + when + R"(", "labelSelector": )" + App(app) + extra + "}";
}

std::string Term(const std::string& app, const std::string& key, const std::string& extra = "") {
  return R"({"labelSelector": )" + App(app) + R"(, "topologyKey": ")" + key + R"(")" + extra + "}";
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
      EXPECT_TRUE(objects_->add(Json(o), error)) << error;
    }
    for (int i = 0; i < 12; ++i) {
      AddNode();
    }
    for (int i = 0; i < 40; ++i) {
      AddPod();
    }
    Publish();
  }

  sh::cache::Snapshot& snapshot() { return snapshot_; }

  // A node replaced by a new one holding a few pods (new names: domains come and go).
  void ReplaceNode() {
    RemoveNode();
    std::string node = AddNode();
    for (int i = 0; i < 3; ++i) {
      std::string name = "p" + std::to_string(nextPod_++);
      PodPtr pod = MakeClusterPod(name, node);
      EXPECT_TRUE(cache_.addPod(pod).ok());
      pods_[name] = Placed{pod, node};
    }
    Publish();
  }

  // One random change, then the snapshot brought up to date; returns what changed.
  std::string Step() {
    std::string what;
    switch (Pick(10)) {
      case 0:
      case 1:
      case 2:
        what = "add pod " + AddPod();
        break;
      case 3:
      case 4:
        what = "remove pod " + RemovePod();
        break;
      case 5:
      case 6:
        what = "relabel pod " + RelabelPod();
        break;
      case 7:
        what = "relabel node " + RelabelNode();
        break;
      case 8:
        what = "add node " + AddNode();
        break;
      default:
        what = "remove node " + RemoveNode();
        break;
    }
    Publish();
    return what;
  }

 private:
  std::size_t Pick(std::size_t n) {
    return std::uniform_int_distribution<std::size_t>(0, n - 1)(rng_);
  }

  NodePtr MakeClusterNode(const std::string& name, int variant) {
    auto n =
        MakeNode().Name(name).Label(kHostname, name).Label("region", variant % 2 ? "r1" : "r0");
    if (variant % 7 != 5) {
      n.Label(kZone, "z" + std::to_string(variant % 3));
    }
    if (variant % 2 == 0) {
      n.Label("disk", "ssd");
    }
    if (variant % 5 == 3) {
      n.Taint("dedicated", "infra", "NoSchedule");
    }
    return n.Obj();
  }

  std::string AddNode() {
    std::string name = "n" + std::to_string(nextNode_++);
    NodePtr node = MakeClusterNode(name, static_cast<int>(Pick(21)));
    EXPECT_TRUE(cache_.addNode(node).ok());
    nodes_[name] = node;
    return name;
  }

  std::string RemoveNode() {
    if (nodes_.size() <= 4) {
      return AddNode();
    }
    auto it = std::next(nodes_.begin(), static_cast<long>(Pick(nodes_.size())));
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

  std::string RelabelNode() {
    auto it = std::next(nodes_.begin(), static_cast<long>(Pick(nodes_.size())));
    NodePtr updated = MakeClusterNode(it->first, static_cast<int>(Pick(21)));
    EXPECT_TRUE(cache_.updateNode(it->second, updated).ok());
    it->second = updated;
    return it->first;
  }

  // A pod with random labels, namespace and (anti-)affinity on `node`.
  PodPtr MakeClusterPod(const std::string& name, const std::string& node) {
    static const char* kApps[] = {"web", "db", "cache"};
    auto p = MakePod()
                 .Name(name)
                 .UID(name)
                 .Namespace(Pick(4) == 0 ? "team-a" : "default")
                 .Label("app", kApps[Pick(3)])
                 .Node(node);
    if (Pick(3) == 0) {
      p.Label("tier", Pick(2) ? "front" : "back");
    }
    switch (Pick(8)) {
      case 0:
        p.Set({"spec", "affinity"},
              Json(R"({"podAntiAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": [)" +
                   Term("db", kHostname) + "]}}"));
        break;
      case 1:
        p.Set({"spec", "affinity"},
              Json(R"({"podAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": [)" +
                   Term("web", kZone) + "]}}"));
        break;
      case 2:
        p.Set({"spec", "affinity"},
              Json(R"({"podAffinity": {"preferredDuringSchedulingIgnoredDuringExecution": [
                         {"weight": 3, "podAffinityTerm": )" +
                   Term("cache", "region") + R"(}]},
                     "podAntiAffinity": {"preferredDuringSchedulingIgnoredDuringExecution": [
                         {"weight": 2, "podAffinityTerm": )" +
                   Term("web", kHostname, R"(, "namespaceSelector": {})") + "}]}}"));
        break;
      case 3:
        p.Terminating();
        break;
      default:
        break;
    }
    return p.Obj();
  }

  std::string AddPod() {
    if (nodes_.empty()) {
      AddNode();
    }
    std::string name = "p" + std::to_string(nextPod_++);
    std::string node = std::next(nodes_.begin(), static_cast<long>(Pick(nodes_.size())))->first;
    PodPtr pod = MakeClusterPod(name, node);
    EXPECT_TRUE(cache_.addPod(pod).ok());
    pods_[name] = Placed{pod, node};
    return name + " on " + node;
  }

  std::string RemovePod() {
    if (pods_.empty()) {
      return AddPod();
    }
    auto it = std::next(pods_.begin(), static_cast<long>(Pick(pods_.size())));
    std::string name = it->first;
    EXPECT_TRUE(cache_.removePod(*it->second.pod).ok());
    pods_.erase(it);
    return name;
  }

  std::string RelabelPod() {
    if (pods_.empty()) {
      return AddPod();
    }
    auto it = std::next(pods_.begin(), static_cast<long>(Pick(pods_.size())));
    PodPtr updated = MakeClusterPod(it->first, it->second.node);
    EXPECT_TRUE(cache_.updatePod(it->second.pod, updated).ok());
    it->second.pod = updated;
    return it->first;
  }

  void Publish() {
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
std::vector<PodPtr> IncomingPods() {
  auto pod = [](const std::string& name, const std::string& app,
                const std::string& ns = "default") {
    return MakePod().Name(name).UID(name).Namespace(ns).Label("app", app);
  };
  auto spread = [&](const std::string& name, const std::string& app,
                    const std::vector<std::string>& constraints) {
    std::string list = "[";
    for (std::size_t i = 0; i < constraints.size(); ++i) {
      list += (i > 0 ? ", " : "") + constraints[i];
    }
    return pod(name, app).Set({"spec", "topologySpreadConstraints"}, Json(list + "]"));
  };
  auto affinity = [&](const std::string& name, const std::string& app, const std::string& json,
                      const std::string& ns = "default") {
    return pod(name, app, ns).Set({"spec", "affinity"}, Json(json)).Obj();
  };
  return {
      spread("zone", "web", {Spread(1, kZone, "DoNotSchedule", "web")}).Obj(),
      spread(
          "host-and-soft-zone", "db",
          {Spread(1, kHostname, "DoNotSchedule", "db"), Spread(1, kZone, "ScheduleAnyway", "db")})
          .Obj(),
      spread("ssd-min-domains", "web",
             {Spread(1, kZone, "DoNotSchedule", "web", R"(, "minDomains": 4)")})
          .NodeSelector({{"disk", "ssd"}})
          .Obj(),
      spread("honor-taints", "cache",
             {Spread(1, kZone, "DoNotSchedule", "cache", R"(, "nodeTaintsPolicy": "Honor")")})
          .Obj(),
      spread("soft-region-and-host", "web",
             {Spread(2, "region", "ScheduleAnyway", "web"),
              Spread(1, kHostname, "ScheduleAnyway", "web")})
          .Obj(),
      spread("soft-ssd", "db", {Spread(1, kZone, "ScheduleAnyway", "db")})
          .NodeSelector({{"disk", "ssd"}})
          .Obj(),
      pod("system-defaults", "web").Obj(),
      affinity("anti-host", "db",
               R"({"podAntiAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": [)" +
                   Term("db", kHostname) + "]}}"),
      affinity("affinity-zone", "cache",
               R"({"podAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": [)" +
                   Term("web", kZone) + "]}}"),
      affinity("preferred", "web",
               R"({"podAffinity": {"preferredDuringSchedulingIgnoredDuringExecution": [
                      {"weight": 5, "podAffinityTerm": )" +
                   Term("web", kZone) + R"(}]},
                   "podAntiAffinity": {"preferredDuringSchedulingIgnoredDuringExecution": [
                      {"weight": 4, "podAffinityTerm": )" +
                   Term("db", kHostname) + "}]}}"),
      affinity(
          "namespace-selector", "db",
          R"({"podAntiAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": [)" +
              Term("db", "region", R"(, "namespaceSelector": {"matchLabels": {"team": "a"}})") +
              "]}}",
          "team-a"),
      pod("no-terms", "web", "team-a").Obj(),
  };
}

void ExpectSameAnswers(PreFilterHarness& longLived, const std::string& plugin,
                       sh::cache::Snapshot& snapshot, const PodPtr& pod) {
  SCOPED_TRACE(plugin + " for " + std::string(pod->view().name.ptr, pod->view().name.len));
  PreFilterHarness fresh(plugin);
  fresh.UseSnapshot(&snapshot);
  sh::Status warm = longLived.PreFilter(pod);
  sh::Status cold = fresh.PreFilter(pod);
  ASSERT_EQ(Outcome(warm), Outcome(cold));
  if (!warm.ok()) {
    return;
  }
  EXPECT_EQ(longLived.FilterAll(pod), fresh.FilterAll(pod));
  EXPECT_EQ(longLived.ScoreAll(pod), fresh.ScoreAll(pod));
}

TEST(CrossCycleCountsTest, LongLivedInstanceAnswersAsANewOne) {
  for (unsigned seed : {1u, 2u, 3u}) {
    Cluster cluster(seed);
    PreFilterHarness spread(kSpread);
    PreFilterHarness affinity(kIPA);
    spread.UseSnapshot(&cluster.snapshot());
    affinity.UseSnapshot(&cluster.snapshot());
    const std::vector<PodPtr> incoming = IncomingPods();
    for (int step = 0; step < 60; ++step) {
      std::string what = step == 0 ? "initial cluster" : cluster.Step();
      SCOPED_TRACE("seed " + std::to_string(seed) + ", step " + std::to_string(step) + ": " + what);
      for (const PodPtr& pod : incoming) {
        ExpectSameAnswers(spread, kSpread, cluster.snapshot(), pod);
        ExpectSameAnswers(affinity, kIPA, cluster.snapshot(), pod);
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
  spread.UseSnapshot(&cluster.snapshot());
  affinity.UseSnapshot(&cluster.snapshot());
  const std::vector<PodPtr> incoming = IncomingPods();
  for (int round = 0; round < 300; ++round) {
    cluster.ReplaceNode();
    SCOPED_TRACE("round " + std::to_string(round));
    for (const PodPtr& pod : incoming) {
      ExpectSameAnswers(spread, kSpread, cluster.snapshot(), pod);
      ExpectSameAnswers(affinity, kIPA, cluster.snapshot(), pod);
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
  spread.UseSnapshot(&cluster.snapshot());
  for (int round = 0; round < 3; ++round) {
    cluster.Step();
    for (int i = 0; i < 24; ++i) {
      std::string app = i % 3 == 0 ? "web" : "app-" + std::to_string(i);
      PodPtr pod = MakePod()
                       .Name("q" + std::to_string(i))
                       .UID("q" + std::to_string(i))
                       .Namespace("default")
                       .Label("app", app)
                       .Set({"spec", "topologySpreadConstraints"},
                            Json("[" + Spread(1 + i % 2, kZone, "DoNotSchedule", app) + "]"))
                       .Obj();
      ExpectSameAnswers(spread, kSpread, cluster.snapshot(), pod);
    }
  }
}

}  // namespace
}  // namespace schedhost::testing
