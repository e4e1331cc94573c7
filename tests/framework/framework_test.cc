// The framework's extension-point rules, driven through scripted plugins whose answers
// come from their args (scripted_plugin.cc).
#include "host/framework/framework.h"

#include <gtest/gtest.h>

#include "host/evaluate/evaluate.h"
#include "host/model/testing/wrappers.h"

namespace sh::framework_test {
namespace {

using model::testing::makeNode;
using model::testing::makePod;

evaluate::Scenario threeNodes(std::string argsA, std::string argsB = "") {
  evaluate::Scenario s;
  for (const char* n : {"n1", "n2", "n3"}) {
    s.nodes.push_back(makeNode().name(n).capacity({{"cpu", "4"}, {"pods", "10"}}).obj());
  }
  s.pod = makePod().name("p").uid("p").obj();
  s.plugins.push_back({"ScriptedA", std::move(argsA)});
  if (!argsB.empty()) {
    s.plugins.push_back({"ScriptedB", std::move(argsB)});
  }
  return s;
}

evaluate::Result run(const evaluate::Scenario& s) {
  evaluate::Options o;
  o.pluginDirs = {SCHEDHOST_SCRIPTED_PLUGIN_DIR};
  return evaluate::run(s, o);
}

std::string runError(const evaluate::Scenario& s) {
  try {
    run(s);
  } catch (const std::exception& e) {
    return e.what();
  }
  return "";
}

TEST(FrameworkTest, PreFilterUnschedulableKeepsRunningAndBecomesTheMessage) {
  auto r = run(threeNodes(R"({"preFilter":{"code":"Unschedulable","reasons":["a says no"]}})",
                          R"({"preFilter":{"code":"Skip"}})"));
  EXPECT_EQ(r.preFilter["ScriptedA"].code, "Unschedulable");
  EXPECT_EQ(r.preFilter["ScriptedB"].code, "Skip");  // B still ran
  EXPECT_FALSE(r.selected);
  EXPECT_EQ(r.message, "0/3 nodes are available: a says no.");
}

TEST(FrameworkTest, PreFilterUnresolvableStopsAtOnce) {
  auto r =
      run(threeNodes(R"({"preFilter":{"code":"UnschedulableAndUnresolvable","reasons":["x"]}})",
                     R"({"preFilter":{"code":"Skip"}})"));
  EXPECT_EQ(r.preFilter.count("ScriptedB"), 0u);
  EXPECT_EQ(r.message, "0/3 nodes are available: x.");
}

TEST(FrameworkTest, PreFilterResultsIntersect) {
  auto r = run(threeNodes(R"({"preFilter":{"code":"Success","nodes":["n1","n2"]}})",
                          R"({"preFilter":{"code":"Success","nodes":["n2","n3"]}})"));
  EXPECT_EQ(r.preFilter["ScriptedA"].nodeNames, (std::vector<std::string>{"n1", "n2"}));
  EXPECT_EQ(r.selected, "n2");
  EXPECT_EQ(r.nodes.count("n1"), 0u);  // never filtered
}

TEST(FrameworkTest, PreFilterEmptyIntersectionNamesBothPlugins) {
  auto r = run(threeNodes(R"({"preFilter":{"code":"Success","nodes":["n1"]}})",
                          R"({"preFilter":{"code":"Success","nodes":["n3"]}})"));
  EXPECT_EQ(r.message,
            "0/3 nodes are available: node(s) didn't satisfy plugin(s) [ScriptedA ScriptedB] "
            "simultaneously.");
}

TEST(FrameworkTest, NodesOutsideThePreFilterResultCountAsAbsent) {
  auto r = run(threeNodes(
      R"({"preFilter":{"code":"Success","nodes":["n1"]},
          "filter":{"n1":{"code":"Unschedulable","reasons":["busy"]}}})"));
  EXPECT_EQ(r.message,
            "0/3 nodes are available: 1 busy, 2 node(s) didn't satisfy plugin(s) [ScriptedA].");
}

TEST(FrameworkTest, PreFilterSkipSkipsThatPluginsFilter) {
  auto r = run(threeNodes(R"({"preFilter":{"code":"Skip"},
                              "filter":{"n1":{"code":"Unschedulable","reasons":["no"]}}})"));
  EXPECT_TRUE(r.nodes["n1"].feasible);
  EXPECT_EQ(r.nodes["n1"].filter.count("ScriptedA"), 0u);
}

TEST(FrameworkTest, FirstFilterFailureEndsTheNode) {
  auto r =
      run(threeNodes(R"({"filter":{"n1":{"code":"UnschedulableAndUnresolvable","reasons":["a"]}}})",
                     R"({"filter":{"n1":{"code":"Unschedulable","reasons":["b"]},
                                        "n2":{"code":"Unschedulable","reasons":["b"]}}})"));
  EXPECT_FALSE(r.nodes["n1"].feasible);
  EXPECT_EQ(r.nodes["n1"].filter["ScriptedA"].code, "UnschedulableAndUnresolvable");
  EXPECT_EQ(r.nodes["n1"].filter.count("ScriptedB"), 0u);  // never ran on n1
  EXPECT_EQ(r.nodes["n2"].filter["ScriptedB"].reasons, (std::vector<std::string>{"b"}));
  EXPECT_EQ(r.selected, "n3");
}

TEST(FrameworkTest, ScoresAreNormalizedThenWeighted) {
  // A: n1 3, n2 5, n3 1, normalised x10 -> 30, 50, 10; B: n1 40, n2 0, n3 0.
  // totals: n1 30+40 = 70, n2 50+0 = 50, n3 10+0 = 10
  auto r = run(threeNodes(R"({"score":{"n1":3,"n2":5,"n3":1},"normalizeTimes":10})",
                          R"({"score":{"n1":40}})"));
  EXPECT_EQ(r.nodes["n1"].scores["ScriptedA"], 30);
  EXPECT_EQ(r.nodes["n1"].total, 70);
  EXPECT_EQ(r.nodes["n2"].total, 50);
  EXPECT_EQ(r.nodes["n3"].total, 10);
  EXPECT_EQ(r.selected, "n1");
}

TEST(FrameworkTest, PreScoreSkipDropsThatScore) {
  auto r = run(
      threeNodes(R"({"preScore":{"code":"Skip"},"score":{"n1":90}})", R"({"score":{"n2":20}})"));
  EXPECT_EQ(r.nodes["n1"].scores.count("ScriptedA"), 0u);
  EXPECT_EQ(r.selected, "n2");
}

TEST(FrameworkTest, ScoreOutOfRangeIsAnError) {
  EXPECT_EQ(runError(threeNodes(R"({"score":{"n1":20},"normalizeTimes":10})")),
            "plugin \"ScriptedA\" returns an invalid score 200, it should in the range of "
            "[0, 100] after normalizing");
}

TEST(FrameworkTest, RawScoreOutOfRangeWithoutNormalizeIsAnError) {
  // No NormalizeScore: the raw 1000 itself must lie in [0, 100].
  EXPECT_EQ(runError(threeNodes(R"({"score":{"n1":1000}})")),
            "plugin \"ScriptedA\" returns an invalid score 1000, it should in the range of "
            "[0, 100] after normalizing");
}

TEST(FrameworkTest, ThrowingFilterBecomesAnErrorWithItsMessage) {
  EXPECT_EQ(runError(threeNodes(R"({"throwIn":"filter"})")),
            "running \"ScriptedA\" filter plugin: boom");
}

TEST(FrameworkTest, ThrowingScoreBecomesAnError) {
  EXPECT_EQ(runError(threeNodes(R"({"throwIn":"score"})")),
            "running Score plugins: plugin \"ScriptedA\" failed with: score boom");
}

TEST(FrameworkTest, InvalidCodeIsRefused) {
  EXPECT_EQ(runError(threeNodes(R"({"filter":{"n1":{"code":"Bogus"}}})")),
            "running \"ScriptedA\" filter plugin: plugin \"ScriptedA\" returned an invalid "
            "status code 42");
}

TEST(FrameworkTest, FilterWaitSkipOrBareErrorIsAnErrorWithACause) {
  // Upstream's message for these ends in the wrapped error, which Wait and Skip have none of.
  EXPECT_EQ(runError(threeNodes(R"({"filter":{"n1":{"code":"Wait"}}})")),
            "running \"ScriptedA\" filter plugin: unexpected status code Wait");
  EXPECT_EQ(runError(threeNodes(R"({"filter":{"n1":{"code":"Skip"}}})")),
            "running \"ScriptedA\" filter plugin: unexpected status code Skip");
  EXPECT_EQ(runError(threeNodes(R"({"filter":{"n1":{"code":"Error"}}})")),
            "running \"ScriptedA\" filter plugin: returned Error without a reason");
  EXPECT_EQ(runError(threeNodes(R"({"filter":{"n1":{"code":"Error","reasons":["disk"]}}})")),
            "running \"ScriptedA\" filter plugin: disk");
}

TEST(FrameworkTest, EmptyReasonsAddNothingToTheFitError) {
  auto r = run(threeNodes(R"({"filter":{"n1":{"code":"Unschedulable","reasons":[""]},
                                        "n2":{"code":"Unschedulable","reasons":["", "no"]},
                                        "n3":{"code":"Unschedulable"}}})"));
  EXPECT_EQ(r.message, "0/3 nodes are available: 1 no.");
}

TEST(FrameworkTest, ArgsErrorsNameThePath) {
  std::string e = runError(threeNodes(R"({"badArg":1})"));
  EXPECT_NE(e.find("plugins[0].args.badArg: must not be set"), std::string::npos) << e;
}

TEST(FrameworkTest, CreateThatThrowsIsReported) {
  std::string e = runError(threeNodes(R"({"throwIn":"create"})"));
  EXPECT_NE(e.find("create failed: scripted create failure"), std::string::npos) << e;
}

TEST(FrameworkTest, UnknownPluginIsReported) {
  auto s = threeNodes("{}");
  s.plugins.push_back({"NoSuchPlugin", ""});
  EXPECT_NE(runError(s).find("plugin \"NoSuchPlugin\" does not exist"), std::string::npos);
}

TEST(FrameworkTest, PostFilterNominationAndMessage) {
  auto r = run(threeNodes(R"({"filter":{"n1":{"code":"Unschedulable","reasons":["no"]},
                                        "n2":{"code":"Unschedulable","reasons":["no"]},
                                        "n3":{"code":"Unschedulable","reasons":["no"]}},
                              "postFilter":{"code":"Unschedulable","reasons":["nothing to do"],
                                            "nominate":"n2"}})"));
  EXPECT_EQ(r.nominatedNodeName, "n2");
  EXPECT_EQ(r.message, "0/3 nodes are available: 3 no. nothing to do");
}

}  // namespace
}  // namespace sh::framework_test
