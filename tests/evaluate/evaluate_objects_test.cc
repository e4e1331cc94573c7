// evaluate with objects of declared kinds (docs/scenario-format.md): the scenario's `objects`
// and storage arrays reach the kinds plugins declare, and what the binding would write is
// reported under bindingPlan, never made. TestObjects (tests/cycle/test_objects_plugin.c)
// passes a pod only while the Widget "gate" of its namespace is open, and patches the gate's
// status in PreBind.
#include <gtest/gtest.h>

#include <boost/json.hpp>
#include <string>

#include "host/evaluate/evaluate.h"
#include "host/evaluate/expectations.h"

namespace sh::evaluate::evaluate_objects_test {
namespace {

std::string scenario(bool open, const std::string& extra = "") {
  return R"({
  "nodes": [{"apiVersion": "v1", "kind": "Node", "metadata": {"name": "n1"},
             "status": {"allocatable": {"cpu": "4", "memory": "8Gi", "pods": "110"}}}],
  "pods": [],
  "pod": {"apiVersion": "v1", "kind": "Pod",
          "metadata": {"name": "p", "namespace": "ns", "uid": "p-uid"},
          "spec": {"containers": [{"name": "c", "image": "i"}]}},
  "objects": [{"apiVersion": "example.com/v1", "kind": "Widget",
               "metadata": {"name": "gate", "namespace": "ns", "resourceVersion": "4"},
               "spec": {"open": )" +
         std::string(open ? "true" : "false") + R"(}},
              {"apiVersion": "example.com/v1", "kind": "Gadget",
               "metadata": {"name": "ignored", "namespace": "ns"}}],
  "plugins": [{"name": "TestObjects"}])" +
         extra + "}";
}

Result evaluate(const std::string& text) {
  std::string error;
  auto s = parseScenario(boost::json::parse(text), error);
  EXPECT_TRUE(s.has_value()) << error;
  Options o;
  o.pluginDirs = {SCHEDHOST_TEST_PLUGIN_DIR, SCHEDHOST_CYCLE_PLUGIN_DIR};
  return run(*s, o);
}

TEST(EvaluateObjectsTest, AnOpenGateSelectsTheNodeAndReportsTheWrite) {
  Result r = evaluate(scenario(true));
  ASSERT_TRUE(r.selected.has_value());
  EXPECT_EQ(*r.selected, "n1");
  boost::json::value out = toJson(r);
  const auto& plan = out.at("bindingPlan").as_object();
  ASSERT_TRUE(plan.contains("preBind")) << boost::json::serialize(out);
  EXPECT_EQ(plan.at("preBind").at("TestObjects").as_array().at(0),
            R"(patch status widgets.v1.example.com ns/gate (merge): {"status":{"lastPod":"p"}})");

  // `schedhost test` checks a subset of the plan.
  auto check = checkExpectations(boost::json::parse(R"({"selected": "n1", "bindingPlan":
      {"preBind": {"TestObjects": ["patch status widgets.v1.example.com ns/gate (merge): {\"status\":{\"lastPod\":\"p\"}}"]}}})"),
                                 out);
  EXPECT_TRUE(check.passed());
  auto wrong = checkExpectations(
      boost::json::parse(R"({"bindingPlan": {"preBind": {"TestObjects": ["delete"]}}})"), out);
  ASSERT_EQ(wrong.mismatches.size(), 1u);
  EXPECT_EQ(wrong.mismatches[0].path, "bindingPlan.preBind.TestObjects");
}

TEST(EvaluateObjectsTest, AClosedGateRejectsInPreFilter) {
  Result r = evaluate(scenario(false));
  EXPECT_FALSE(r.selected.has_value());
  ASSERT_TRUE(r.preFilter.contains("TestObjects"));
  EXPECT_EQ(r.preFilter.at("TestObjects").code, "Unschedulable");
  EXPECT_EQ(r.preFilter.at("TestObjects").reasons,
            std::vector<std::string>{"widget gate is closed"});
  EXPECT_FALSE(toJson(r).as_object().contains("bindingPlan"));
}

TEST(EvaluateObjectsTest, MalformedObjectsAreNamed) {
  std::string error;
  auto noKind = boost::json::parse(R"({"pod": {"apiVersion": "v1", "kind": "Pod",
      "metadata": {"name": "p"}}, "objects": [{"apiVersion": "x/v1", "metadata": {"name": "a"}}]})");
  EXPECT_FALSE(parseScenario(noKind, error).has_value());
  EXPECT_EQ(error, "objects[0].kind: required");
  auto wrongKind = boost::json::parse(R"({"pod": {"apiVersion": "v1", "kind": "Pod",
      "metadata": {"name": "p"}}, "persistentVolumeClaims": [{"kind": "PersistentVolume",
      "metadata": {"name": "a"}}]})");
  EXPECT_FALSE(parseScenario(wrongKind, error).has_value());
  EXPECT_EQ(error,
            "persistentVolumeClaims[0]: expected apiVersion v1 and kind PersistentVolumeClaim");
  auto noName = boost::json::parse(R"({"pod": {"apiVersion": "v1", "kind": "Pod",
      "metadata": {"name": "p"}}, "storageClasses": [{"metadata": {}}]})");
  EXPECT_FALSE(parseScenario(noName, error).has_value());
  EXPECT_NE(error.find("storageClasses[0]: metadata.name"), std::string::npos) << error;
}

}  // namespace
}  // namespace sh::evaluate::evaluate_objects_test
