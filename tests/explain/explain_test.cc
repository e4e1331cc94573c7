// host/explain: an evaluation grouped as a person reads it, the what-if list, the JSON a
// scheduler serves and its reading back, and the kept attempt of a running scheduler. The
// scenarios are tests/explain/scenarios/*.json, run with the default plugins.
#include <gtest/gtest.h>

#include <boost/json.hpp>
#include <fstream>
#include <sstream>
#include <string>

#include "host/evaluate/evaluate.h"
#include "host/explain/explanation.h"
#include "host/explain/html_page.h"
#include "host/explain/summary.h"
#include "host/explain/what_if.h"

namespace sh::explain::explain_test {
namespace {

evaluate::Scenario load(const std::string& name) {
  std::ifstream in(std::string(SCHEDHOST_EXPLAIN_SCENARIOS) + "/" + name);
  std::stringstream text;
  text << in.rdbuf();
  std::string error;
  auto s = evaluate::parseScenario(boost::json::parse(text.str()), error);
  EXPECT_TRUE(s.has_value()) << name << ": " << error;
  return *s;
}

evaluate::Options options() {
  evaluate::Options o;
  o.pluginDirs = {SCHEDHOST_TEST_PLUGIN_DIR};
  return o;
}

const NodeGroup* groupOf(const Explanation& e, const std::string& plugin) {
  for (const NodeGroup& g : e.rejected) {
    if (g.verdict.plugin == plugin) {
      return &g;
    }
  }
  return nullptr;
}

// pending-web.json: the pod asks for 3 cpu in zone a, tolerating nothing.
//   n1, n2: 4 cpu, zone a, tainted dedicated=gpu:NoSchedule  -> TaintToleration
//   n3: 2 cpu: less than the 3 asked even empty              -> NodeResourcesFit, for good
//   n4: 4 cpu with batch-1 on it asking 2.5 (4 - 2.5 = 1.5 < 3) -> NodeResourcesFit
//   n5: 4 cpu, zone b                                         -> NodeAffinity
TEST(ExplainTest, NodesAreGroupedByTheFirstPluginThatRejectedThem) {
  evaluate::Scenario s = load("pending-web.json");
  Explanation e = fromEvaluation(evaluate::run(s, options()), "scenario pending-web.json");
  EXPECT_EQ(e.pod, "default/web");
  EXPECT_EQ(e.result, "unschedulable");
  EXPECT_EQ(e.numAllNodes, 5u);
  EXPECT_EQ(e.feasibleCount, 0u);
  EXPECT_EQ(e.filterPlugins,
            (std::vector<std::string>{"TaintToleration", "NodeAffinity", "NodeResourcesFit"}));
  // Four groups, 2 + 1 + 1 + 1 = 5 nodes, the largest first: n3 and n4 both lack cpu, but
  // upstream's NodeResourcesFit says UnschedulableAndUnresolvable when the request exceeds
  // the node's allocatable (n3: 3 > 2), where no preemption could help, and Unschedulable
  // when it exceeds only what is free (n4).
  ASSERT_EQ(e.rejected.size(), 4u);
  EXPECT_EQ(e.rejected[0].count, 2u);
  EXPECT_EQ(e.rejected[0].count + e.rejected[1].count + e.rejected[2].count + e.rejected[3].count,
            5u);

  const NodeGroup* taints = groupOf(e, "TaintToleration");
  ASSERT_NE(taints, nullptr);
  EXPECT_EQ(taints, &e.rejected[0]);
  EXPECT_EQ(taints->nodes, (std::vector<std::string>{"n1", "n2"}));
  EXPECT_EQ(taints->verdict.code, "UnschedulableAndUnresolvable");
  EXPECT_EQ(taints->verdict.reasons, std::vector<std::string>{"node(s) had untolerated taint(s)"});

  EXPECT_EQ(e.rejected[2].verdict.plugin, "NodeResourcesFit");
  EXPECT_EQ(e.rejected[2].verdict.code, "Unschedulable");
  EXPECT_EQ(e.rejected[2].nodes, std::vector<std::string>{"n4"});
  EXPECT_EQ(e.rejected[3].verdict.plugin, "NodeResourcesFit");
  EXPECT_EQ(e.rejected[3].verdict.code, "UnschedulableAndUnresolvable");
  EXPECT_EQ(e.rejected[3].nodes, std::vector<std::string>{"n3"});
  EXPECT_EQ(e.rejected[3].verdict.reasons, std::vector<std::string>{"Insufficient cpu"});

  const NodeGroup* affinity = groupOf(e, "NodeAffinity");
  ASSERT_NE(affinity, nullptr);
  EXPECT_EQ(affinity->nodes, std::vector<std::string>{"n5"});
  EXPECT_EQ(affinity->verdict.reasons,
            std::vector<std::string>{"node(s) didn't match Pod's node affinity/selector"});

  // Each node's detail lists the plugins in the order they ran: n3 passed TaintToleration and
  // NodeAffinity before NodeResourcesFit rejected it.
  ASSERT_EQ(e.details.size(), 5u);
  const NodeDetail& n3 = e.details[2];
  EXPECT_EQ(n3.name, "n3");
  ASSERT_FALSE(n3.filter.empty());
  EXPECT_EQ(n3.filter.back().plugin, "NodeResourcesFit");
}

TEST(ExplainTest, WhatIfCountsTheNodesEachChangeOpens) {
  evaluate::Scenario s = load("pending-web.json");
  const evaluate::Options o = options();
  evaluate::Result r = evaluate::run(s, o);
  std::vector<WhatIf> w = whatIfs(s, r, o);
  ASSERT_EQ(w.size(), 4u);
  // Tolerating the taint opens n1 and n2: 4 cpu >= 3, zone a.
  EXPECT_EQ(w[0].change,
            "tolerate the taint dedicated=gpu:NoSchedule (or remove it from the nodes)");
  EXPECT_EQ(w[0].nodes, 2u);
  EXPECT_EQ(w[0].examples, (std::vector<std::string>{"n1", "n2"}));
  // Without the nodeSelector, n5 (zone b, 4 cpu free) opens; n1-n4 still fail as before.
  EXPECT_EQ(w[1].change, "drop the nodeSelector entry zone=a");
  EXPECT_EQ(w[1].nodes, 1u);
  EXPECT_EQ(w[1].examples, std::vector<std::string>{"n5"});
  // Of the nodes short of cpu, n3 has the most free: 2000m (n4: 4000m - 2500m = 1500m; the
  // tainted n1 and n2 have more, but are not short of cpu). Asking 2000m opens n3 alone.
  EXPECT_EQ(w[2].change, "lower the cpu request from 3000m to 2000m (what n3 has free)");
  EXPECT_EQ(w[2].nodes, 1u);
  EXPECT_EQ(w[2].examples, std::vector<std::string>{"n3"});
  // An empty node like n4 (the biggest of the cpu-short group: 4 cpu, zone a, no taint) fits;
  // copies of n1 (tainted) and n5 (zone b) would not.
  EXPECT_EQ(w[3].change, "add a node like n4 (its labels, taints and allocatable; no pods)");
  EXPECT_EQ(w[3].nodes, 1u);
  EXPECT_EQ(w[3].examples, std::vector<std::string>{"n4-copy"});
}

// preemption.json: p1 holds "low" (priority 0, 2 cpu of 2), p2 "high-1" (priority 1000).
// The pod (priority 500, 2 cpu) fits only by evicting "low".
TEST(ExplainTest, WhatIfReportsWhatPreemptionWouldEvict) {
  evaluate::Scenario s = load("preemption.json");
  const evaluate::Options o = options();
  evaluate::Result r = evaluate::run(s, o);
  Explanation e = fromEvaluation(r, "scenario preemption.json");
  EXPECT_EQ(e.nominatedNode, std::optional<std::string>("p1"));
  EXPECT_EQ(e.victims, std::vector<std::string>{"default/low"});
  std::vector<WhatIf> w = whatIfs(s, r, o);
  ASSERT_FALSE(w.empty());
  EXPECT_EQ(w[0].change, "evict default/low (lower priority; what preemption does)");
  EXPECT_EQ(w[0].nodes, 1u);
  EXPECT_EQ(w[0].examples, std::vector<std::string>{"p1"});
}

TEST(ExplainTest, APodThatFitsHasItsBestNodesAndNoWhatIf) {
  evaluate::Scenario s = load("fits.json");
  const evaluate::Options o = options();
  evaluate::Result r = evaluate::run(s, o);
  Explanation e = fromEvaluation(r, "scenario fits.json");
  EXPECT_EQ(e.result, "scheduled");
  // m4 is tainted; m1, m2 and m3 fit (1 cpu asked: m1 has 4 - 3 = 1 free).
  EXPECT_EQ(e.feasibleCount, 3u);
  ASSERT_EQ(e.feasible.size(), 3u);
  // m3 (8 cpu, empty) is the emptiest: LeastAllocated scores it highest, and it is selected.
  EXPECT_EQ(e.feasible[0].name, "m3");
  EXPECT_EQ(e.selected, std::optional<std::string>("m3"));
  for (std::size_t i = 1; i < e.feasible.size(); ++i) {
    EXPECT_GE(e.feasible[i - 1].total, e.feasible[i].total);
  }
  int64_t sum = 0;
  for (const auto& [plugin, score] : e.feasible[0].scores) {
    sum += score;
  }
  // The scenario's plugins all weigh 1: the total is the plain sum of the scores.
  EXPECT_EQ(e.feasible[0].total, sum);
  EXPECT_TRUE(whatIfs(s, r, o).empty());
}

TEST(ExplainTest, TheJsonReadsBackAsTheSameExplanation) {
  evaluate::Scenario s = load("pending-web.json");
  const evaluate::Options o = options();
  evaluate::Result r = evaluate::run(s, o);
  Explanation e = fromEvaluation(r, "scenario pending-web.json");
  e.whatIfs = whatIfs(s, r, o);
  e.previousGroups = std::map<std::string, std::size_t>{{"NodeResourcesFit: Insufficient cpu", 1}};
  const boost::json::value json = toJson(e);
  std::string error;
  std::optional<Explanation> back = fromJson(json, error);
  ASSERT_TRUE(back.has_value()) << error;
  EXPECT_EQ(boost::json::serialize(toJson(*back)), boost::json::serialize(json));
  EXPECT_EQ(summary(*back), summary(e));

  EXPECT_FALSE(fromJson(boost::json::parse(R"({"nodes": []})"), error).has_value());
  EXPECT_EQ(error, "not an explanation: no \"pod\" string");
}

// A running scheduler's record: groups and counts only, and what changed since the attempt
// before.
TEST(ExplainTest, AKeptAttemptSaysWhatChanged) {
  cycle::AttemptRecord r;
  r.pod = "default/web";
  r.profile = "default-scheduler";
  r.generation = 2;
  r.attempts = 3;
  r.unixNanos = 1'796'515'200'000'000'000;  // 2026-12-06T00:00:00Z
  r.result = "unschedulable";
  r.message = "0/3 nodes are available: 3 Insufficient cpu.";
  r.numAllNodes = 3;
  r.groups = {{"NodeResourcesFit", "Unschedulable", {"Insufficient cpu"}, 3, {"a", "b", "c"}}};
  r.filterPlugins = {"NodeResourcesFit"};
  r.previousGroups =
      std::map<std::string, std::size_t>{{"NodeResourcesFit: Insufficient cpu", 1},
                                         {"TaintToleration: node(s) had untolerated taint(s)", 2}};
  Explanation e = fromAttempt(r);
  EXPECT_EQ(e.source, "attempt 3, 2026-12-06T00:00:00Z");
  const std::string text = summary(e);
  // cpu: 1 -> 3 nodes; taints: 2 -> 0 (the taint is gone, the cpu is short everywhere).
  EXPECT_NE(text.find("NodeResourcesFit: Insufficient cpu                 1 -> 3"),
            std::string::npos)
      << text;
  EXPECT_NE(text.find("TaintToleration: node(s) had untolerated taint(s)  2 -> 0"),
            std::string::npos)
      << text;
}

TEST(ExplainTest, ThePageCarriesTheDataWithoutEndingItsScript) {
  Explanation e;
  e.pod = "default/x";
  e.result = "unschedulable";
  e.message = "</script><script>alert(1)</script>";
  const std::string page = htmlPage(e);
  // The data's "<" is written \u003c: the only "</script>" are the page's own two.
  std::size_t count = 0;
  for (std::size_t at = page.find("</script>"); at != std::string::npos;
       at = page.find("</script>", at + 1)) {
    ++count;
  }
  EXPECT_EQ(count, 2u);
  EXPECT_NE(page.find("\\u003c/script>\\u003cscript>alert(1)"), std::string::npos);
  // Nothing is fetched: no URL in any src or href.
  EXPECT_EQ(page.find("src="), std::string::npos);
  EXPECT_EQ(page.find("href="), std::string::npos);
  EXPECT_EQ(page.find("http"), std::string::npos);
}

}  // namespace
}  // namespace sh::explain::explain_test
