// EmbeddedCluster: the objects besides pods and nodes — PriorityClasses, which pods are
// admitted against as they are added, and PodDisruptionBudgets, which reach the scheduler
// through clusterObjects().
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "host/connectors/embedded/embedded_cluster.h"
#include "tests/connectors/test_support.h"

namespace sh::connectors::embedded_cluster_objects_test {
namespace {

using testing::drain;
using ::testing::ElementsAre;
using testing::event;
using testing::nodeJson;
using testing::options;
using testing::podJson;
using testing::TempDir;
using testing::text;
using testing::Warnings;

boost::json::value priorityClass(std::string_view name, int value, std::string_view extra = "") {
  return boost::json::parse(R"({"apiVersion":"scheduling.k8s.io/v1","kind":"PriorityClass",)"
                            R"("metadata":{"name":")" +
                            std::string(name) + R"("},"value":)" + std::to_string(value) +
                            std::string(extra) + "}");
}

boost::json::value pdb(std::string_view ns, std::string_view name, int allowed) {
  return boost::json::parse(
      R"({"apiVersion":"policy/v1","kind":"PodDisruptionBudget","metadata":{"name":")" +
      std::string(name) + R"(","namespace":")" + std::string(ns) +
      R"("},"spec":{"selector":{"matchLabels":{"app":"web"}}},)" +
      R"("status":{"disruptionsAllowed":)" + std::to_string(allowed) +
      R"(,"disruptedPods":{"web-1":"2024-01-02T03:04:05Z"}}})");
}

boost::json::value podWithClass(std::string_view name, std::string_view cls,
                                std::string_view node = "") {
  boost::json::value p = podJson("ns", name, node);
  p.as_object()["spec"].as_object()["priorityClassName"] = cls;
  return p;
}

TEST(EmbeddedClusterObjectsTest, InitialStatePodsAreAdmittedAgainstEveryClassOfTheFile) {
  TempDir dir;
  // The class comes after the pods that name it: classes are stored before pods.
  boost::json::value preset = podWithClass("preset", "high");
  preset.as_object()["spec"].as_object()["priority"] = 3;  // admitted before: kept as it is
  // clang-format off
  std::string path = dir.write(
      "state.jsonl",
      text(podWithClass("hi", "high")) + "\n" +                                   // 1
          text(podJson("ns", "plain")) + "\n" +                                   // 2
          text(podWithClass("lost", "gold")) + "\n" +                             // 3
          text(podWithClass("crit", "system-node-critical")) + "\n" +             // 4
          text(preset) + "\n" +                                                   // 5
          text(priorityClass("high", 1000, R"(,"preemptionPolicy":"Never")")) + "\n" +  // 6
          text(priorityClass("everyday", 7, R"(,"globalDefault":true)")) + "\n"); // 7
  // clang-format on
  Warnings w;
  auto o = options(w);
  o.initialState = path;
  EmbeddedCluster cluster(o);
  ASSERT_TRUE(cluster.start().ok());

  EXPECT_THAT(w.all(), ElementsAre(path + ":3: pod ns/lost: spec.priorityClassName: no "
                                          "PriorityClass with name gold was found"));
  EXPECT_EQ(cluster.rejectedLines(), 1u);
  EXPECT_EQ(drain(cluster).size(), 4u);
  EXPECT_EQ(cluster.pod("ns", "lost"), nullptr);

  auto hi = cluster.pod("ns", "hi");
  ASSERT_NE(hi, nullptr);
  EXPECT_TRUE(hi->hasPriority());
  EXPECT_EQ(hi->view().priority, 1000);
  EXPECT_EQ(hi->view().preemption_policy, SH_PREEMPT_NEVER);
  // The stored manifest is the admitted one, so a bind keeps the priority.
  auto manifest = boost::json::parse(hi->json());
  EXPECT_EQ(manifest.at("spec").at("priority").as_int64(), 1000);
  EXPECT_EQ(manifest.at("spec").at("preemptionPolicy").as_string(), "Never");

  auto plain = cluster.pod("ns", "plain");
  ASSERT_NE(plain, nullptr);
  EXPECT_EQ(plain->view().priority, 7);  // the global default
  EXPECT_EQ(plain->priorityClassName(), "everyday");
  EXPECT_EQ(plain->view().preemption_policy, SH_PREEMPT_LOWER_PRIORITY);

  ASSERT_NE(cluster.pod("ns", "crit"), nullptr);
  EXPECT_EQ(cluster.pod("ns", "crit")->view().priority, 2000001000);
  ASSERT_NE(cluster.pod("ns", "preset"), nullptr);
  EXPECT_EQ(cluster.pod("ns", "preset")->view().priority, 3);
}

TEST(EmbeddedClusterObjectsTest, StreamedPodsSeeTheClassesStoredSoFar) {
  TempDir dir;
  // clang-format off
  std::string stream =
      event("ADDED", nodeJson("n1")) +                                           // 1
      event("ADDED", podWithClass("early", "high")) +                            // 2
      event("ADDED", priorityClass("high", 1000)) +                              // 3
      event("ADDED", podWithClass("late", "high", "n1")) +                       // 4
      event("ADDED", podJson("ns", "zero")) +                                    // 5
      event("MODIFIED", priorityClass("high", 2000)) +                           // 6
      // An update without spec.priority keeps the stored pod's, as upstream admission does.
      event("MODIFIED", podWithClass("late", "high", "n1")) +                    // 7
      event("DELETED", priorityClass("high", 2000)) +                            // 8
      event("ADDED", podWithClass("after", "high"));                             // 9
  // clang-format on
  std::string path = dir.write("changes.jsonl", stream);
  Warnings w;
  auto o = options(w);
  o.changes = path;
  EmbeddedCluster cluster(o);
  ASSERT_TRUE(cluster.start().ok());
  auto changes = drain(cluster);
  EXPECT_EQ(changes.size(), 4u);  // n1, late, zero, late again

  const std::string unknown = ": spec.priorityClassName: no PriorityClass with name high was found";
  EXPECT_THAT(w.all(), ElementsAre(path + ":2: pod ns/early" + unknown,
                                   path + ":9: pod ns/after" + unknown));
  EXPECT_EQ(cluster.rejectedLines(), 2u);
  auto late = cluster.pod("ns", "late");
  ASSERT_NE(late, nullptr);
  EXPECT_EQ(late->view().priority, 1000);
  ASSERT_EQ(changes.size(), 4u);
  EXPECT_EQ(changes[3].oldPod->view().priority, 1000);
  EXPECT_EQ(changes[3].curPod->view().priority, 1000);
  ASSERT_NE(cluster.pod("ns", "zero"), nullptr);
  EXPECT_EQ(cluster.pod("ns", "zero")->view().priority, 0);
  EXPECT_TRUE(cluster.pod("ns", "zero")->hasPriority());
}

TEST(EmbeddedClusterObjectsTest, BudgetsAndClassesReachClusterObjects) {
  TempDir dir;
  std::string path =
      dir.write("state.jsonl", text(pdb("ns", "web", 1)) + "\n" + text(pdb("a", "db", 0)) + "\n" +
                                   text(priorityClass("high", 1000)) + "\n");
  std::string changes = dir.write("changes.jsonl", event("ADDED", pdb("ns", "api", 2)));
  Warnings w;
  auto o = options(w);
  o.initialState = path;
  o.changes = changes;
  EmbeddedCluster cluster(o);
  ASSERT_TRUE(cluster.start().ok());
  drain(cluster);
  EXPECT_TRUE(w.all().empty());

  auto objects = cluster.clusterObjects();
  ASSERT_NE(objects, nullptr);
  std::vector<std::string> keys;
  for (const sh_pdb* p : objects->pdbs()) {
    keys.push_back(std::string(p->namespace_.ptr, p->namespace_.len) + "/" +
                   std::string(p->name.ptr, p->name.len));
  }
  EXPECT_THAT(keys, ElementsAre("a/db", "ns/api", "ns/web"));
  const sh_pdb& web = *objects->pdbs()[2];
  EXPECT_EQ(web.disruptions_allowed, 1);
  ASSERT_NE(web.selector, nullptr);
  EXPECT_EQ(web.selector->match_label_count, 1u);
  ASSERT_EQ(web.disrupted_pod_count, 1u);
  EXPECT_EQ(std::string(web.disrupted_pods[0].ptr, web.disrupted_pods[0].len), "web-1");
  ASSERT_NE(objects->priorityClass("high"), nullptr);
  EXPECT_EQ(objects->priorityClass("high")->value, 1000);
  EXPECT_EQ(cluster.objectsOfKind("PodDisruptionBudget").size(), 3u);
  // Unchanged objects give the same ClusterObjects.
  EXPECT_EQ(cluster.clusterObjects(), objects);
}

TEST(EmbeddedClusterObjectsTest, MalformedBudgetOrClassIsRejectedWithItsLine) {
  TempDir dir;
  auto badPdb = pdb("ns", "web", 1);
  badPdb.as_object()["status"].as_object()["disruptionsAllowed"] = "many";
  // clang-format off
  std::string stream =
      event("ADDED", priorityClass("high", 1000, R"(,"preemptionPolicy":"Sometimes")")) +  // 1
      event("ADDED", badPdb) +                                                             // 2
      event("ADDED", boost::json::parse(                                                   // 3
          R"({"kind":"PriorityClass","metadata":{"name":"novalue"}})")) +
      event("ADDED", pdb("ns", "ok", 1));                                                  // 4
  // clang-format on
  std::string path = dir.write("changes.jsonl", stream);
  Warnings w;
  auto o = options(w);
  o.changes = path;
  EmbeddedCluster cluster(o);
  ASSERT_TRUE(cluster.start().ok());
  drain(cluster);
  EXPECT_THAT(w.all(),
              ElementsAre(path + ":1: PriorityClass high: preemptionPolicy: unsupported value "
                                 "\"Sometimes\"; supported values: \"PreemptLowerPriority\", "
                                 "\"Never\"",
                          path + ":2: PodDisruptionBudget ns/web: status.disruptionsAllowed: "
                                 "expected integer, got string",
                          path + ":3: PriorityClass novalue: value: required"));
  EXPECT_EQ(cluster.rejectedLines(), 3u);
  EXPECT_TRUE(cluster.objectsOfKind("PriorityClass").empty());
  ASSERT_EQ(cluster.objectsOfKind("PodDisruptionBudget").size(), 1u);
  auto objects = cluster.clusterObjects();
  ASSERT_NE(objects, nullptr);
  EXPECT_EQ(objects->pdbs().size(), 1u);
}

}  // namespace
}  // namespace sh::connectors::embedded_cluster_objects_test
