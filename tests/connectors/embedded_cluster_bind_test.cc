// EmbeddedCluster::bind stores a copy of the stored pod made without parsing
// (model::bindToNode). The copy must be what the binding used to store, a parse of the stored
// manifest with the binding patch applied: the same manifest (Pod::json()) and the same view.
#include <gtest/gtest.h>

#include <atomic>
#include <string>
#include <thread>
#include <vector>

#include "host/connectors/embedded/embedded_cluster.h"
#include "host/connectors/pod_patch.h"
#include "tests/connectors/test_support.h"
#include "tests/model/pod_view_text.h"

namespace sh::connectors::embedded_cluster_bind_test {
namespace {

using model::testing::makePod;
using model::testing::podViewText;
using testing::drain;
using testing::nodeJson;
using testing::podJson;
using testing::TempDir;
using testing::text;
using testing::withKind;

// The bound pod as the embedded cluster used to make it: the stored manifest parsed, the
// binding patch applied, the result parsed into a new Pod.
std::shared_ptr<const model::Pod> bindByParsing(const model::Pod& stored, std::string_view node,
                                                std::string_view now) {
  boost::json::value manifest = boost::json::parse(stored.json());
  applyBinding(manifest.as_object(), node, now);
  std::string error;
  auto pod = model::parsePod(manifest, error);
  EXPECT_NE(pod, nullptr) << error;
  return pod;
}

// The time the binding stamped on the PodScheduled condition.
std::string stampOf(const model::Pod& bound) {
  boost::json::value manifest = boost::json::parse(bound.json());
  for (const auto& c : manifest.at("status").at("conditions").as_array()) {
    if (c.at("type") == "PodScheduled") {
      return std::string(c.at("lastTransitionTime").as_string());
    }
  }
  ADD_FAILURE() << "no PodScheduled condition in " << bound.json();
  return "";
}

// The old and the new way give the same pod.
void expectSameAsParsing(const model::Pod& stored, const model::Pod& bound, std::string_view node) {
  auto parsed = bindByParsing(stored, node, stampOf(bound));
  ASSERT_NE(parsed, nullptr);
  EXPECT_EQ(bound.json(), parsed->json());
  EXPECT_EQ(podViewText(bound.view()), podViewText(parsed->view()));
  EXPECT_EQ(bound.nodeName(), node);
  EXPECT_EQ(bound.hasPriority(), parsed->hasPriority());
  EXPECT_EQ(bound.priorityClassName(), parsed->priorityClassName());
  EXPECT_EQ(bound.hasRequiredAntiAffinity(), parsed->hasRequiredAntiAffinity());
}

boost::json::value richPod() {
  return withKind(makePod()
                      .name("rich")
                      .inNamespace("ns")
                      .uid("rich-uid")
                      .label("app", "web")
                      .priorityClassName("high")
                      .req({{"cpu", "500m"}, {"memory", "1Gi"}})
                      .sidecarReq({{"cpu", "100m"}})
                      .toleration("k", "Equal", "v", "NoSchedule")
                      .nodeSelector({{"disk", "ssd"}})
                      .nodeAffinityIn("zone", {"a", "b"})
                      .podAffinityExists("app", "zone", model::testing::AffinityKind::kPreferred)
                      .podAntiAffinityExists("app", "kubernetes.io/hostname",
                                             model::testing::AffinityKind::kRequired)
                      .spreadConstraint(1, "zone", "DoNotSchedule", {{"app", "web"}})
                      .hostPort(8080)
                      .imageVolume("example.com/data:1")
                      .ownerReference("rs", "ReplicaSet")
                      .creationTimestamp("2024-05-01T10:00:00Z")
                      .parseJson(),
                  "Pod");
}

boost::json::value podWithConditions(std::string_view name, std::string_view conditions) {
  auto w = makePod().name(name).inNamespace("ns").uid(std::string(name) + "-uid");
  w.set({"status", "conditions"}, boost::json::parse(conditions));
  return withKind(w.parseJson(), "Pod");
}

// Nodes n1, n2; pods of every shape the binding has to handle.
class BindTest : public ::testing::Test {
 protected:
  void SetUp() override {
    std::string lines;
    for (const auto& v : {nodeJson("n1"), nodeJson("n2"), podJson("ns", "plain"), richPod(),
                          podWithConditions("failed", R"([
            {"type": "DisruptionTarget", "status": "True", "reason": "PreemptionByScheduler"},
            {"type": "PodScheduled", "status": "False", "reason": "Unschedulable",
             "message": "0/2 nodes are available", "lastProbeTime": null,
             "lastTransitionTime": "2024-01-01T00:00:00Z"}])"),
                          podWithConditions("already-true", R"([
            {"type": "PodScheduled", "status": "True",
             "lastTransitionTime": "2024-01-01T00:00:00Z"}])"),
                          withKind(makePod()
                                       .name("nominated")
                                       .inNamespace("ns")
                                       .uid("nominated-uid")
                                       .nominatedNodeName("n2")
                                       .parseJson(),
                                   "Pod")}) {
      lines += text(v) + "\n";
    }
    lines += R"({"apiVersion": "scheduling.k8s.io/v1", "kind": "PriorityClass",)"
             R"( "metadata": {"name": "high"}, "value": 1000})"
             "\n";
    EmbeddedCluster::Options o;
    o.initialState = dir_.write("state.jsonl", lines);
    o.warn = [](const std::string& w) { ADD_FAILURE() << w; };
    cluster_ = std::make_unique<EmbeddedCluster>(o);
    ASSERT_TRUE(cluster_->start().ok());
    drain(*cluster_);
  }

  std::shared_ptr<const model::Pod> pod(std::string_view name) { return cluster_->pod("ns", name); }

  // Binds `name` and checks the stored result against a bind by parsing.
  void bindAndCompare(std::string_view name, std::string_view node) {
    auto stored = pod(name);
    ASSERT_NE(stored, nullptr) << name;
    ASSERT_TRUE(cluster_->bind(*stored, node).ok()) << name;
    auto bound = pod(name);
    ASSERT_NE(bound, stored);
    expectSameAsParsing(*stored, *bound, node);
  }

  TempDir dir_;
  std::unique_ptr<EmbeddedCluster> cluster_;
};

TEST_F(BindTest, BoundPodIsWhatParsingTheBoundManifestGives) {
  bindAndCompare("plain", "n1");
  bindAndCompare("rich", "n2");
  bindAndCompare("failed", "n1");
  bindAndCompare("already-true", "n1");
  bindAndCompare("nominated", "n2");
  // The stored condition keeps its time when it was already True.
  EXPECT_EQ(stampOf(*pod("already-true")), "2024-01-01T00:00:00Z");
  auto failed = boost::json::parse(pod("failed")->json());
  const auto& conditions = failed.at("status").at("conditions").as_array();
  ASSERT_EQ(conditions.size(), 2u);
  EXPECT_EQ(conditions[1].at("status"), "True");
  EXPECT_FALSE(conditions[1].as_object().contains("reason"));
  EXPECT_FALSE(conditions[1].as_object().contains("message"));
}

TEST_F(BindTest, BindAfterARecordedFailure) {
  auto original = pod("plain");
  cluster_->recordFailure({original, "Unschedulable", "0/2 nodes are available", "n1"});
  ASSERT_NE(pod("plain"), original);
  bindAndCompare("plain", "n1");
  auto bound = pod("plain");
  EXPECT_EQ(std::string_view(bound->view().nominated_node_name.ptr,
                             bound->view().nominated_node_name.len),
            "n1");
  ASSERT_EQ(bound->view().condition_count, 1u);
  EXPECT_EQ(std::string_view(bound->view().conditions[0].reason.ptr,
                             bound->view().conditions[0].reason.len),
            "");
}

TEST_F(BindTest, StatusPatchOfABoundPodKeepsTheBinding) {
  ASSERT_TRUE(cluster_->bind(*pod("rich"), "n1").ok());
  auto bound = pod("rich");
  // Preemption patches DisruptionTarget onto the bound pod's manifest, then deletes it.
  ASSERT_TRUE(cluster_->preemptPod(*bound, "default-scheduler: preempting").ok());
  std::optional<ClusterChange> deleted;
  while (auto c = cluster_->next(std::chrono::milliseconds(0))) {
    deleted = std::move(c);
  }
  ASSERT_TRUE(deleted.has_value());
  ASSERT_EQ(deleted->type, ClusterChange::Type::kDeleted);
  auto manifest = boost::json::parse(deleted->oldPod->json());
  EXPECT_EQ(manifest.at("spec").at("nodeName"), "n1");
  const auto& conditions = manifest.at("status").at("conditions").as_array();
  ASSERT_EQ(conditions.size(), 2u);
  EXPECT_EQ(conditions[0].at("type"), "PodScheduled");
  EXPECT_EQ(conditions[0].at("status"), "True");
  EXPECT_EQ(conditions[1].at("type"), "DisruptionTarget");
  EXPECT_EQ(deleted->oldPod->view().condition_count, 2u);
}

TEST_F(BindTest, ManifestsReadWhileOtherPodsAreBound) {
  // Binds from two threads while a third reads every stored pod's manifest; each bound
  // manifest is built once, whichever thread asks first (run under ThreadSanitizer too).
  std::string lines = text(nodeJson("n1")) + "\n";
  constexpr int kPods = 200;
  for (int i = 0; i < kPods; ++i) {
    lines += text(podJson("bulk", "p" + std::to_string(i))) + "\n";
  }
  EmbeddedCluster::Options o;
  o.initialState = dir_.write("bulk.jsonl", lines);
  EmbeddedCluster cluster(o);
  ASSERT_TRUE(cluster.start().ok());
  std::atomic<bool> done{false};
  std::thread reader([&] {
    while (!done.load()) {
      for (int i = 0; i < kPods; i += 7) {
        if (auto p = cluster.pod("bulk", "p" + std::to_string(i))) {
          EXPECT_FALSE(p->json().empty());
        }
      }
    }
  });
  std::vector<std::thread> binders;
  for (int t = 0; t < 2; ++t) {
    binders.emplace_back([&, t] {
      for (int i = t; i < kPods; i += 2) {
        auto p = cluster.pod("bulk", "p" + std::to_string(i));
        EXPECT_TRUE(cluster.bind(*p, "n1").ok());
      }
    });
  }
  for (std::thread& b : binders) {
    b.join();
  }
  done = true;
  reader.join();
  EXPECT_EQ(cluster.boundCount(), static_cast<std::size_t>(kPods));
  EXPECT_EQ(cluster.podsOnNode("n1").size(), static_cast<std::size_t>(kPods));
  auto p0 = cluster.pod("bulk", "p0");
  EXPECT_EQ(boost::json::parse(p0->json()).at("spec").at("nodeName"), "n1");
}

}  // namespace
}  // namespace sh::connectors::embedded_cluster_bind_test
