// ClusterObjects: PodDisruptionBudgets and PriorityClasses (the selector-bearing kinds are
// covered through the plugins that read them: pod_topology_spread_test, inter_pod_affinity_test).
#include "host/model/cluster_objects.h"

#include <gtest/gtest.h>

#include <boost/json.hpp>
#include <string>
#include <vector>

#include "host/model/interner.h"
#include "tests/model/sv.h"

namespace sh::model::cluster_objects_test {
namespace {

using testing::sv;

std::string_view nameOf(sh_id id) { return interner().view(id); }

// Adds `json` and expects success.
void add(ClusterObjects& objects, std::string_view json) {
  std::string error;
  ASSERT_TRUE(objects.add(boost::json::parse(json), error)) << error;
}

// Adds `json` and returns the error (expects failure).
std::string addError(ClusterObjects& objects, std::string_view json) {
  std::string error;
  EXPECT_FALSE(objects.add(boost::json::parse(json), error)) << json;
  return error;
}

std::string pdb(std::string_view ns, std::string_view name, std::string_view rest = "") {
  return std::string(R"({"apiVersion":"policy/v1","kind":"PodDisruptionBudget",)") +
         R"("metadata":{"name":")" + std::string(name) + R"(","namespace":")" + std::string(ns) +
         "\"}" + std::string(rest) + "}";
}

std::string priorityClass(std::string_view name, std::string_view rest) {
  return std::string(R"({"apiVersion":"scheduling.k8s.io/v1","kind":"PriorityClass",)") +
         R"("metadata":{"name":")" + std::string(name) + "\"}," + std::string(rest) + "}";
}

std::vector<std::string> pdbKeys(const ClusterObjects& objects) {
  std::vector<std::string> out;
  for (const sh_pdb* p : objects.pdbs()) {
    out.push_back(std::string(sv(p->namespace_)) + "/" + std::string(sv(p->name)));
  }
  return out;
}

TEST(ClusterObjectsTest, KeepsBudgetsAndClasses) {
  EXPECT_TRUE(ClusterObjects::keeps("PodDisruptionBudget"));
  EXPECT_TRUE(ClusterObjects::keeps("PriorityClass"));
  EXPECT_TRUE(ClusterObjects::keeps("Service"));
  EXPECT_FALSE(ClusterObjects::keeps("ConfigMap"));
}

TEST(ClusterObjectsTest, PdbFields) {
  ClusterObjects objects;
  add(objects, pdb("ns", "web", R"(,
    "spec": {"minAvailable": 2, "selector": {"matchLabels": {"app": "web"},
      "matchExpressions": [{"key": "tier", "operator": "In", "values": ["a", "b"]}]}},
    "status": {"disruptionsAllowed": 1, "currentHealthy": 3,
      "disruptedPods": {"web-2": "2024-01-02T03:04:05Z", "web-0": "2024-01-02T03:04:06Z"}})"));
  ASSERT_EQ(objects.pdbs().size(), 1u);
  const sh_pdb& p = *objects.pdbs()[0];
  EXPECT_EQ(p.struct_size, sizeof(sh_pdb));
  EXPECT_EQ(sv(p.namespace_), "ns");
  EXPECT_EQ(sv(p.name), "web");
  EXPECT_EQ(p.disruptions_allowed, 1);
  ASSERT_NE(p.selector, nullptr);
  ASSERT_EQ(p.selector->match_label_count, 1u);
  EXPECT_EQ(nameOf(p.selector->match_labels[0].key), "app");
  EXPECT_EQ(nameOf(p.selector->match_labels[0].value), "web");
  ASSERT_EQ(p.selector->match_expression_count, 1u);
  EXPECT_EQ(p.selector->match_expressions[0].op, SH_OP_IN);
  EXPECT_EQ(p.selector->match_expressions[0].value_count, 2u);
  // The names of status.disruptedPods, sorted.
  ASSERT_EQ(p.disrupted_pod_count, 2u);
  EXPECT_EQ(sv(p.disrupted_pods[0]), "web-0");
  EXPECT_EQ(sv(p.disrupted_pods[1]), "web-2");
  EXPECT_EQ(objects.size(), 1u);
}

TEST(ClusterObjectsTest, PdbDefaults) {
  ClusterObjects objects;
  std::string error;
  ASSERT_TRUE(objects.add(boost::json::parse(R"({"kind":"PodDisruptionBudget",
    "metadata":{"name":"bare"}})"),
                          error))
      << error;
  ASSERT_EQ(objects.pdbs().size(), 1u);
  const sh_pdb& p = *objects.pdbs()[0];
  EXPECT_EQ(sv(p.namespace_), "default");
  EXPECT_EQ(p.selector, nullptr);  // absent: covers no pod
  EXPECT_EQ(p.disruptions_allowed, 0);
  EXPECT_EQ(p.disrupted_pod_count, 0u);
  EXPECT_EQ(p.disrupted_pods, nullptr);

  // An empty selector is kept as an empty selector, not as an absent one.
  add(objects, pdb("ns", "empty", R"(,"spec":{"selector":{}})"));
  ASSERT_EQ(objects.pdbs().size(), 2u);
  ASSERT_NE(objects.pdbs()[1]->selector, nullptr);
  EXPECT_EQ(objects.pdbs()[1]->selector->match_label_count, 0u);
  EXPECT_EQ(objects.pdbs()[1]->selector->match_expression_count, 0u);
}

TEST(ClusterObjectsTest, PdbsAreOrderedByNamespaceThenName) {
  ClusterObjects objects;
  add(objects, pdb("b", "a"));
  add(objects, pdb("a", "z"));
  add(objects, pdb("a", "b"));
  add(objects, pdb("c", "a"));
  EXPECT_EQ(pdbKeys(objects), (std::vector<std::string>{"a/b", "a/z", "b/a", "c/a"}));
}

TEST(ClusterObjectsTest, SameBudgetAgainReplacesIt) {
  ClusterObjects objects;
  add(objects, pdb("ns", "web", R"(,"status":{"disruptionsAllowed":1})"));
  const sh_pdb* first = objects.pdbs()[0];
  add(objects, pdb("ns", "web", R"(,"status":{"disruptionsAllowed":0})"));
  ASSERT_EQ(objects.pdbs().size(), 1u);
  EXPECT_EQ(objects.pdbs()[0]->disruptions_allowed, 0);
  EXPECT_EQ(first->disruptions_allowed, 1) << "an earlier view stays valid";
}

TEST(ClusterObjectsTest, MalformedPdbNamesThePathAndChangesNothing) {
  ClusterObjects objects;
  add(objects, pdb("ns", "ok"));
  EXPECT_EQ(addError(objects, pdb("ns", "bad", R"(,"status":{"disruptionsAllowed":"1"})")),
            "status.disruptionsAllowed: expected integer, got string");
  EXPECT_EQ(addError(objects, pdb("ns", "bad", R"(,"spec":{"selector":{"matchExpressions":[
              {"key":"a","operator":"Gt","values":["1"]}]}})")),
            "spec.selector.matchExpressions[0].operator: unsupported value \"Gt\"; supported "
            "values: \"In\", \"NotIn\", \"Exists\", \"DoesNotExist\"");
  EXPECT_EQ(addError(objects, pdb("ns", "bad", R"(,"status":{"disruptedPods":["p"]})")),
            "status.disruptedPods: expected object, got array");
  EXPECT_EQ(addError(objects, pdb("ns", "bad", R"(,"status":{"disruptedPods":{"p":"soon"}})")),
            "status.disruptedPods.p: invalid RFC 3339 time \"soon\"");
  EXPECT_EQ(addError(objects, pdb("ns", "bad", R"(,"spec":[])")),
            "spec: expected object, got array");
  EXPECT_EQ(addError(objects, R"({"kind":"PodDisruptionBudget","metadata":{}})"),
            "metadata.name: required");
  EXPECT_EQ(pdbKeys(objects), (std::vector<std::string>{"ns/ok"}));
  EXPECT_EQ(objects.size(), 1u);
}

TEST(ClusterObjectsTest, PriorityClassFields) {
  ClusterObjects objects;
  add(objects, priorityClass("high", R"("value": 1000, "description": "for the front end")"));
  add(objects, priorityClass("batch", R"("value": -5, "preemptionPolicy": "Never")"));
  add(objects, priorityClass("explicit", R"("value": 7, "globalDefault": false,
                                             "preemptionPolicy": "PreemptLowerPriority")"));
  const PriorityClassInfo* high = objects.priorityClass("high");
  ASSERT_NE(high, nullptr);
  EXPECT_EQ(high->name, "high");
  EXPECT_EQ(high->value, 1000);
  EXPECT_FALSE(high->globalDefault);
  EXPECT_EQ(high->preemptionPolicy, SH_PREEMPT_LOWER_PRIORITY);  // the default
  ASSERT_NE(objects.priorityClass("batch"), nullptr);
  EXPECT_EQ(objects.priorityClass("batch")->value, -5);
  EXPECT_EQ(objects.priorityClass("batch")->preemptionPolicy, SH_PREEMPT_NEVER);
  EXPECT_EQ(objects.priorityClass("explicit")->preemptionPolicy, SH_PREEMPT_LOWER_PRIORITY);
  EXPECT_EQ(objects.priorityClass("missing"), nullptr);
  // System classes are admission's business, not stored objects.
  EXPECT_EQ(objects.priorityClass("system-node-critical"), nullptr);
  EXPECT_EQ(objects.globalDefaultPriorityClass(), nullptr);
  EXPECT_EQ(objects.size(), 3u);
}

TEST(ClusterObjectsTest, GlobalDefaultWithTheLowestValueWins) {
  ClusterObjects objects;
  add(objects, priorityClass("low", R"("value": 10, "globalDefault": true)"));
  ASSERT_NE(objects.globalDefaultPriorityClass(), nullptr);
  EXPECT_EQ(objects.globalDefaultPriorityClass()->name, "low");
  // A second default (upstream admission refuses it, but a race can let it in): upstream's
  // getDefaultPriorityClass keeps the lowest value.
  add(objects, priorityClass("higher", R"("value": 20, "globalDefault": true)"));
  EXPECT_EQ(objects.globalDefaultPriorityClass()->name, "low");
  add(objects, priorityClass("lowest", R"("value": -1, "globalDefault": true)"));
  EXPECT_EQ(objects.globalDefaultPriorityClass()->name, "lowest");
  // Equal values: the first by name.
  add(objects, priorityClass("a-tie", R"("value": -1, "globalDefault": true)"));
  EXPECT_EQ(objects.globalDefaultPriorityClass()->name, "a-tie");
  // Replacing a class can take the default away from it.
  add(objects, priorityClass("a-tie", R"("value": -1)"));
  add(objects, priorityClass("lowest", R"("value": -1)"));
  EXPECT_EQ(objects.globalDefaultPriorityClass()->name, "low");
}

TEST(ClusterObjectsTest, MalformedPriorityClassNamesThePathAndChangesNothing) {
  ClusterObjects objects;
  add(objects, priorityClass("ok", R"("value": 1, "globalDefault": true)"));
  EXPECT_EQ(addError(objects, priorityClass("bad", R"("globalDefault": true)")), "value: required");
  EXPECT_EQ(addError(objects, priorityClass("bad", R"("value": null)")), "value: required");
  EXPECT_EQ(addError(objects, priorityClass("bad", R"("value": "1")")),
            "value: expected integer, got string");
  EXPECT_EQ(addError(objects, priorityClass("bad", R"("value": 3000000000)")),
            "value: value 3000000000 out of range [-2147483648, 2147483647]");
  EXPECT_EQ(addError(objects, priorityClass("bad", R"("value": 1, "globalDefault": "yes")")),
            "globalDefault: expected boolean, got string");
  EXPECT_EQ(addError(objects, priorityClass("bad", R"("value": 1, "preemptionPolicy": "Always")")),
            "preemptionPolicy: unsupported value \"Always\"; supported values: "
            "\"PreemptLowerPriority\", \"Never\"");
  // A bad replacement leaves the stored class as it was.
  EXPECT_EQ(addError(objects, priorityClass("ok", R"("value": 2, "preemptionPolicy": 1)")),
            "preemptionPolicy: expected string, got number");
  EXPECT_EQ(objects.priorityClass("bad"), nullptr);
  ASSERT_NE(objects.priorityClass("ok"), nullptr);
  EXPECT_EQ(objects.priorityClass("ok")->value, 1);
  EXPECT_EQ(objects.globalDefaultPriorityClass(), objects.priorityClass("ok"));
  EXPECT_EQ(objects.size(), 1u);
}

TEST(ClusterObjectsTest, UnknownKind) {
  ClusterObjects objects;
  EXPECT_EQ(addError(objects, R"({"kind":"ConfigMap","metadata":{"name":"c"}})"),
            "kind: unsupported value \"ConfigMap\"");
}

}  // namespace
}  // namespace sh::model::cluster_objects_test
