// Reading scenario documents (docs/scenario-format.md): the optional object
// arrays, and pods that pass through priority admission before they are parsed.
#include <gtest/gtest.h>

#include <boost/json.hpp>
#include <optional>
#include <string>

#include "host/evaluate/evaluate.h"

namespace sh::scenario_test {
namespace {

constexpr const char* kPriorityClasses = R"([
  {"apiVersion": "scheduling.k8s.io/v1", "kind": "PriorityClass",
   "metadata": {"name": "high"}, "value": 1000, "preemptionPolicy": "Never"},
  {"apiVersion": "scheduling.k8s.io/v1", "kind": "PriorityClass",
   "metadata": {"name": "everyday"}, "value": 7, "globalDefault": true}])";

constexpr const char* kBudgets = R"([
  {"apiVersion": "policy/v1", "kind": "PodDisruptionBudget",
   "metadata": {"name": "web", "namespace": "ns"},
   "spec": {"selector": {"matchLabels": {"app": "web"}}},
   "status": {"disruptionsAllowed": 1}},
  {"apiVersion": "policy/v1", "kind": "PodDisruptionBudget",
   "metadata": {"name": "db", "namespace": "ns"}}])";

boost::json::value pod(std::string_view name, std::string_view cls = "") {
  boost::json::object spec;
  if (!cls.empty()) {
    spec["priorityClassName"] = cls;
  }
  return boost::json::object{{"apiVersion", "v1"},
                             {"kind", "Pod"},
                             {"metadata", boost::json::object{{"name", name}, {"namespace", "ns"}}},
                             {"spec", std::move(spec)}};
}

// A scenario whose placed pods are `pods` and whose pending pod is `pending`, with the
// classes and budgets above listed AFTER the pods (member order does not matter).
boost::json::value scenario(boost::json::array pods, boost::json::value pending) {
  return boost::json::object{{"name", "priorities"},
                             {"nodes", boost::json::array()},
                             {"pods", std::move(pods)},
                             {"pod", std::move(pending)},
                             {"podDisruptionBudgets", boost::json::parse(kBudgets)},
                             {"priorityClasses", boost::json::parse(kPriorityClasses)}};
}

std::string parseError(const boost::json::value& doc) {
  std::string error;
  EXPECT_FALSE(evaluate::parseScenario(doc, error).has_value());
  return error;
}

TEST(ScenarioTest, PodsAreAdmittedAgainstThePriorityClasses) {
  std::string error;
  std::optional<evaluate::Scenario> s = evaluate::parseScenario(
      scenario({pod("a", "high"), pod("b"), pod("c", "system-cluster-critical")},
               pod("pending", "high")),
      error);
  ASSERT_TRUE(s.has_value()) << error;
  ASSERT_EQ(s->pods.size(), 3u);
  EXPECT_EQ(s->pods[0]->view().priority, 1000);
  EXPECT_EQ(s->pods[0]->view().preemption_policy, SH_PREEMPT_NEVER);
  EXPECT_EQ(s->pods[1]->view().priority, 7);  // the global default
  EXPECT_EQ(s->pods[1]->priorityClassName(), "everyday");
  EXPECT_EQ(s->pods[2]->view().priority, 2000000000);
  ASSERT_NE(s->pod, nullptr);
  EXPECT_EQ(s->pod->view().priority, 1000);
  EXPECT_TRUE(s->pod->hasPriority());
}

TEST(ScenarioTest, BudgetsAndClassesAreKeptInTheObjects) {
  std::string error;
  std::optional<evaluate::Scenario> s =
      evaluate::parseScenario(scenario({}, pod("pending")), error);
  ASSERT_TRUE(s.has_value()) << error;
  ASSERT_NE(s->objects, nullptr);
  ASSERT_EQ(s->objects->pdbs().size(), 2u);
  // Ordered by namespace, then name.
  EXPECT_EQ(std::string_view(s->objects->pdbs()[0]->name.ptr, s->objects->pdbs()[0]->name.len),
            "db");
  EXPECT_EQ(s->objects->pdbs()[0]->selector, nullptr);
  EXPECT_EQ(s->objects->pdbs()[1]->disruptions_allowed, 1);
  ASSERT_NE(s->objects->priorityClass("high"), nullptr);
  EXPECT_EQ(s->objects->priorityClass("high")->value, 1000);
}

TEST(ScenarioTest, WithoutClassesPodsGetPriorityZero) {
  boost::json::value doc = scenario({pod("a")}, pod("pending"));
  doc.as_object().erase("priorityClasses");
  doc.as_object().erase("podDisruptionBudgets");
  std::string error;
  std::optional<evaluate::Scenario> s = evaluate::parseScenario(doc, error);
  ASSERT_TRUE(s.has_value()) << error;
  EXPECT_EQ(s->pods[0]->view().priority, 0);
  EXPECT_EQ(s->pod->view().priority, 0);
  EXPECT_EQ(s->objects, nullptr);  // nothing besides pods and nodes
}

TEST(ScenarioTest, UnknownClassNamesThePod) {
  EXPECT_EQ(parseError(scenario({pod("a", "high"), pod("b", "x")}, pod("pending"))),
            "pods[1]: spec.priorityClassName: no PriorityClass with name x was found");
  EXPECT_EQ(parseError(scenario({}, pod("pending", "gold"))),
            "pod: spec.priorityClassName: no PriorityClass with name gold was found");
}

TEST(ScenarioTest, MalformedObjectsNameTheirIndex) {
  boost::json::value doc = scenario({}, pod("pending"));
  doc.as_object()["podDisruptionBudgets"].as_array().push_back(boost::json::parse(
      R"({"kind": "PodDisruptionBudget", "metadata": {"name": "x"},
          "status": {"disruptionsAllowed": "1"}})"));
  EXPECT_EQ(parseError(doc),
            "podDisruptionBudgets[2]: status.disruptionsAllowed: expected integer, got string");

  doc = scenario({}, pod("pending"));
  doc.as_object()["priorityClasses"].as_array()[1].as_object().erase("value");
  EXPECT_EQ(parseError(doc), "priorityClasses[1]: value: required");

  doc = scenario({}, pod("pending"));
  doc.as_object()["priorityClasses"] = boost::json::object();
  EXPECT_EQ(parseError(doc), "priorityClasses: expected array");
}

TEST(ScenarioTest, ParseErrorsOfAdmittedPodsKeepTheirPath) {
  boost::json::value bad = pod("b", "high");
  bad.as_object()["spec"].as_object()["preemptionPolicy"] = "Sometimes";
  EXPECT_EQ(parseError(scenario({pod("a"), bad}, pod("pending"))),
            "pods[1].spec.preemptionPolicy: unsupported value \"Sometimes\"; supported values: "
            "\"PreemptLowerPriority\", \"Never\"");
}

// `expect` belongs to `schedhost test`, and `comment` to the reader: evaluate reads past both.
TEST(ScenarioTest, ExpectAndCommentAreIgnored) {
  boost::json::value doc = scenario({}, pod("pending"));
  doc.as_object()["expect"] = boost::json::parse(R"({"selected": null, "nodes": {"x": {}}})");
  doc.as_object()["comment"] = "arithmetic lives here";
  std::string error;
  std::optional<evaluate::Scenario> s = evaluate::parseScenario(doc, error);
  ASSERT_TRUE(s.has_value()) << error;
  EXPECT_EQ(s->name, "priorities");
  EXPECT_TRUE(s->nodes.empty());
}

}  // namespace
}  // namespace sh::scenario_test
