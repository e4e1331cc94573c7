// PodTopologySpread: Filter skew with minDomains, missing labels and node inclusion policies;
// Score with ln(n+2) topology weights and its normalisation; System default constraints
// derived from a Service; args validation; events and queueing hints. Cases after upstream
// filtering_test.go, scoring_test.go and plugin_test.go, our own tables.
#include <gtest/gtest.h>

#include <boost/json.hpp>

#include <map>
#include <memory>
#include <string>
#include <vector>

#include "host/model/cluster_objects.h"
#include "tests/plugins/score_test_util.h"

namespace schedhost::testing::pod_topology_spread_test {
namespace {

constexpr char kSpread[] = "PodTopologySpread";
constexpr char kNotMatch[] = "node(s) didn't match pod topology spread constraints";
constexpr char kMissingLabel[] =
    "node(s) didn't match pod topology spread constraints (missing required label)";
constexpr char kZone[] = "topology.kubernetes.io/zone";
constexpr char kHostname[] = "kubernetes.io/hostname";

// A node with its hostname label and, unless empty, a zone.
NodePtr zoneNode(const std::string& name, const std::string& zone,
                 const std::vector<std::pair<std::string, std::string>>& extra = {}) {
  auto n = makeNode().name(name).label(kHostname, name);
  if (!zone.empty()) {
    n.label(kZone, zone);
  }
  for (const auto& [k, v] : extra) {
    n.label(k, v);
  }
  return n.obj();
}

// A running pod labelled foo= on `node`.
PodPtr fooOn(const std::string& name, const std::string& node, const std::string& ns = "default") {
  return makePod().name(name).uid(name).inNamespace(ns).label("foo", "").node(node).obj();
}

sh::model::testing::PodWrapper incoming() {
  return makePod().name("p").uid("p").inNamespace("default").label("foo", "");
}

// A pod labelled foo= whose spec.topologySpreadConstraints is `json`.
PodPtr withConstraints(const std::string& json) {
  return incoming().set({"spec", "topologySpreadConstraints"}, boost::json::parse(json)).obj();
}

std::vector<PodPtr> foos(const std::map<std::string, int>& perNode) {
  std::vector<PodPtr> out;
  for (const auto& [node, n] : perNode) {
    for (int i = 0; i < n; ++i) {
      out.push_back(fooOn("p-" + node + std::to_string(i), node));
    }
  }
  return out;
}

struct FilterCase {
  std::string name;
  PodPtr pod;
  std::vector<NodePtr> nodes;
  std::vector<PodPtr> placed;
  std::map<std::string, std::string> want;  // node → code
};

void runFilterCases(const std::vector<FilterCase>& cases) {
  for (const FilterCase& c : cases) {
    SCOPED_TRACE(c.name);
    auto result = evaluate({{kSpread, ""}}, c.nodes, c.placed, c.pod);
    for (const auto& [node, code] : c.want) {
      auto st = filterStatus(result, node, kSpread);
      EXPECT_EQ(st.code, code) << node;
      if (code == "Unschedulable") {
        EXPECT_EQ(st.reasons, std::vector<std::string>{kNotMatch}) << node;
      } else if (code == "UnschedulableAndUnresolvable") {
        EXPECT_EQ(st.reasons, std::vector<std::string>{kMissingLabel}) << node;
      }
    }
  }
}

std::vector<NodePtr> twoZones() {
  return {zoneNode("a", "zone1"), zoneNode("b", "zone1"), zoneNode("x", "zone2"),
          zoneNode("y", "zone2")};
}

TEST(PodTopologySpreadTest, FilterSkew) {
  auto zone1 = incoming().spreadConstraint(1, kZone, "DoNotSchedule", {{"foo", ""}}).obj();
  auto zoneAndNode = incoming()
                         .spreadConstraint(1, kZone, "DoNotSchedule", {{"foo", ""}})
                         .spreadConstraint(1, kHostname, "DoNotSchedule", {{"foo", ""}})
                         .obj();
  std::vector<FilterCase> cases = {
      {"no existing pods: every node fits",
       zone1,
       twoZones(),
       {},
       {{"a", "Success"}, {"b", "Success"}, {"x", "Success"}, {"y", "Success"}}},
      {"pods of another namespace do not count",
       zone1,
       twoZones(),
       {fooOn("p1", "a", "other"), fooOn("p2", "a", "other")},
       {{"a", "Success"}, {"x", "Success"}}},
      {"terminating pods do not count",
       zone1,
       twoZones(),
       {makePod()
            .name("t")
            .uid("t")
            .inNamespace("default")
            .label("foo", "")
            .node("a")
            .terminating()
            .obj(),
        makePod()
            .name("t2")
            .uid("t2")
            .inNamespace("default")
            .label("foo", "")
            .node("a")
            .terminating()
            .obj()},
       {{"a", "Success"}, {"x", "Success"}}},
      // zone1 = 3, zone2 = 3: 3 + 1 - 3 = 1 everywhere.
      {"3/3 across zones: every node fits",
       zone1,
       twoZones(),
       foos({{"a", 2}, {"b", 1}, {"x", 1}, {"y", 2}}),
       {{"a", "Success"}, {"b", "Success"}, {"x", "Success"}, {"y", "Success"}}},
      // zone1 = 1, zone2 = 2: zone2 gives 2 + 1 - 1 = 2 > 1.
      {"1/2 across zones: only zone1 fits",
       zone1,
       twoZones(),
       foos({{"a", 1}, {"x", 1}, {"y", 1}}),
       {{"a", "Success"}, {"b", "Success"}, {"x", "Unschedulable"}, {"y", "Unschedulable"}}},
      // node b has no zone: it is not counted (zone1 = 1, zone2 = 2) and it cannot host.
      {"node without the zone label",
       zone1,
       {zoneNode("a", "zone1"), zoneNode("b", ""), zoneNode("x", "zone2"), zoneNode("y", "zone2")},
       foos({{"a", 1}, {"b", 1}, {"x", 1}, {"y", 1}}),
       {{"a", "Success"},
        {"b", "UnschedulableAndUnresolvable"},
        {"x", "Unschedulable"},
        {"y", "Unschedulable"}}},
      {"pods not matching the selector do not count",
       zone1,
       twoZones(),
       {makePod().name("q1").uid("q1").inNamespace("default").label("bar", "").node("x").obj(),
        makePod().name("q2").uid("q2").inNamespace("default").label("bar", "").node("x").obj()},
       {{"a", "Success"}, {"x", "Success"}}},
      // zone: 3/3 → 3 + 1 - 3 = 1 fits everywhere; hostname: a=2 b=1 x=0 y=3, min 0 →
      // only x (0 + 1 - 0 = 1).
      {"zone 3/3 and hostname 2/1/0/3: only x fits",
       zoneAndNode,
       twoZones(),
       foos({{"a", 2}, {"b", 1}, {"y", 3}}),
       {{"a", "Unschedulable"}, {"b", "Unschedulable"}, {"x", "Success"}, {"y", "Unschedulable"}}},
      // The incoming pod does not match its own selector: selfMatch = 0; zone2 = 2, zone1 = 1:
      // 2 + 0 - 1 = 1 fits.
      {"incoming pod not matching its selector",
       makePod()
           .name("p")
           .uid("p")
           .inNamespace("default")
           .spreadConstraint(1, kZone, "DoNotSchedule", {{"foo", ""}})
           .obj(),
       twoZones(),
       foos({{"a", 1}, {"x", 1}, {"y", 1}}),
       {{"a", "Success"}, {"x", "Success"}}},
  };
  runFilterCases(cases);
}

TEST(PodTopologySpreadTest, FilterMinDomains) {
  std::vector<NodePtr> nodes = {zoneNode("a", "zone1"), zoneNode("x", "zone2")};
  auto placed = foos({{"a", 1}, {"x", 1}});
  std::vector<FilterCase> cases = {
      // 2 domains >= minDomains 1: min = 1, 1 + 1 - 1 = 1.
      {"minDomains unset",
       incoming().spreadConstraint(1, kZone, "DoNotSchedule", {{"foo", ""}}).obj(),
       nodes,
       placed,
       {{"a", "Success"}, {"x", "Success"}}},
      {"minDomains 2 = number of domains",
       incoming().spreadConstraint(1, kZone, "DoNotSchedule", {{"foo", ""}}, 2).obj(),
       nodes,
       placed,
       {{"a", "Success"}, {"x", "Success"}}},
      // 2 domains < 3: the global minimum is 0, 1 + 1 - 0 = 2 > 1.
      {"minDomains 3 > number of domains",
       incoming().spreadConstraint(1, kZone, "DoNotSchedule", {{"foo", ""}}, 3).obj(),
       nodes,
       placed,
       {{"a", "Unschedulable"}, {"x", "Unschedulable"}}},
      {"minDomains 3 with maxSkew 2",
       incoming().spreadConstraint(2, kZone, "DoNotSchedule", {{"foo", ""}}, 3).obj(),
       nodes,
       placed,
       {{"a", "Success"}, {"x", "Success"}}},
  };
  runFilterCases(cases);
}

TEST(PodTopologySpreadTest, FilterInclusionPolicies) {
  // zone3's node has no type=t1 and a NoSchedule taint; zone1 and zone2 hold one pod each.
  std::vector<NodePtr> nodes = {zoneNode("a", "zone1", {{"type", "t1"}}),
                                zoneNode("x", "zone2", {{"type", "t1"}}),
                                makeNode()
                                    .name("z")
                                    .label(kHostname, "z")
                                    .label(kZone, "zone3")
                                    .taint("dedicated", "z", "NoSchedule")
                                    .obj()};
  auto placed = foos({{"a", 1}, {"x", 1}});
  auto constraint = [](const std::string& policies) {
    return R"([{"maxSkew": 1, "topologyKey": "topology.kubernetes.io/zone",
                "whenUnsatisfiable": "DoNotSchedule",
                "labelSelector": {"matchLabels": {"foo": ""}})" +
           policies + "}]";
  };
  auto withSelector = [](const std::string& json) {
    return incoming()
        .nodeSelector({{"type", "t1"}})
        .set({"spec", "topologySpreadConstraints"}, boost::json::parse(json))
        .obj();
  };
  std::vector<FilterCase> cases = {
      // Honor (default): zone3 fails the nodeSelector and is not a domain; min = 1.
      {"nodeAffinityPolicy Honor (default)",
       withSelector(constraint("")),
       nodes,
       placed,
       {{"a", "Success"}, {"x", "Success"}}},
      // Ignore: zone3 counts with 0 pods; 1 + 1 - 0 = 2 > 1.
      {"nodeAffinityPolicy Ignore",
       withSelector(constraint(R"(, "nodeAffinityPolicy": "Ignore")")),
       nodes,
       placed,
       {{"a", "Unschedulable"}, {"x", "Unschedulable"}, {"z", "Success"}}},
      // nodeTaintsPolicy Ignore (default): the tainted zone3 counts, min = 0.
      {"nodeTaintsPolicy Ignore (default)",
       withConstraints(constraint("")),
       nodes,
       placed,
       {{"a", "Unschedulable"}, {"x", "Unschedulable"}, {"z", "Success"}}},
      {"nodeTaintsPolicy Honor excludes the untolerated taint",
       withConstraints(constraint(R"(, "nodeTaintsPolicy": "Honor")")),
       nodes,
       placed,
       {{"a", "Success"}, {"x", "Success"}}},
      {"nodeTaintsPolicy Honor with a toleration",
       incoming()
           .toleration("dedicated", "Equal", "z", "NoSchedule")
           .set({"spec", "topologySpreadConstraints"},
                boost::json::parse(constraint(R"(, "nodeTaintsPolicy": "Honor")")))
           .obj(),
       nodes,
       placed,
       {{"a", "Unschedulable"}, {"x", "Unschedulable"}, {"z", "Success"}}},
  };
  runFilterCases(cases);
}

TEST(PodTopologySpreadTest, FilterMatchLabelKeys) {
  // Only pods with the incoming pod's rev count: zone1 has 2 rev=1 pods, zone2 one rev=2 pod.
  std::vector<NodePtr> nodes = {zoneNode("a", "zone1"), zoneNode("x", "zone2")};
  auto rev = [](const std::string& name, const std::string& node, const std::string& r) {
    return makePod()
        .name(name)
        .uid(name)
        .inNamespace("default")
        .label("foo", "")
        .label("rev", r)
        .node(node)
        .obj();
  };
  std::vector<PodPtr> placed = {rev("a1", "a", "1"), rev("a2", "a", "1"), rev("x1", "x", "2")};
  auto pod = [](const std::string& keys) {
    return makePod()
        .name("p")
        .uid("p")
        .inNamespace("default")
        .label("foo", "")
        .label("rev", "2")
        .set({"spec", "topologySpreadConstraints"},
             boost::json::parse(R"([{"maxSkew": 1, "topologyKey": "topology.kubernetes.io/zone",
                 "whenUnsatisfiable": "DoNotSchedule",
                 "labelSelector": {"matchLabels": {"foo": ""}}, "matchLabelKeys": )" +
                                keys + "}]"))
        .obj();
  };
  std::vector<FilterCase> cases = {
      // Without matchLabelKeys: zone1 = 2, zone2 = 1 → zone1 2 + 1 - 1 = 2 > 1.
      {"without matchLabelKeys",
       pod("[]"),
       nodes,
       placed,
       {{"a", "Unschedulable"}, {"x", "Success"}}},
      // rev=2 only: zone1 = 0, zone2 = 1 → zone2 1 + 1 - 0 = 2 > 1.
      {"matchLabelKeys rev",
       pod(R"(["rev"])"),
       nodes,
       placed,
       {{"a", "Success"}, {"x", "Unschedulable"}}},
  };
  runFilterCases(cases);
}

TEST(PodTopologySpreadTest, PreFilterSkipsWithoutHardConstraints) {
  auto result =
      evaluate({{kSpread, ""}}, twoZones(), {},
               incoming().spreadConstraint(1, kZone, "ScheduleAnyway", {{"foo", ""}}).obj());
  ASSERT_EQ(result.preFilter.count(kSpread), 1u);
  EXPECT_EQ(result.preFilter.at(kSpread).code, "Skip");
  result = evaluate({{kSpread, ""}}, twoZones(), {}, incoming().obj());
  EXPECT_EQ(result.preFilter.at(kSpread).code, "Skip");
}

TEST(PodTopologySpreadTest, ScoreHostname) {
  // 4 candidates: weight ln(4 + 2) = 1.7918, maxSkew 1 adds 0.
  //   a: 2·1.7918 = 3.58 → 4; b: 1.79 → 2; c: 0; d: 3·1.7918 = 5.38 → 5.
  // max 5, min 0: 100·(5 + 0 − s)/5 → a 20, b 60, c 100, d 0.
  std::vector<ScoreCase> cases = {
      {"one hostname constraint",
       "",
       {zoneNode("a", ""), zoneNode("b", ""), zoneNode("c", ""), zoneNode("d", "")},
       foos({{"a", 2}, {"b", 1}, {"d", 3}}),
       incoming().spreadConstraint(1, kHostname, "ScheduleAnyway", {{"foo", ""}}).obj(),
       {{"a", 20}, {"b", 60}, {"c", 100}, {"d", 0}}},
      // No matching pods anywhere: every raw score is 0, max 0 → 100.
      {"no matching pods",
       "",
       {zoneNode("a", ""), zoneNode("b", "")},
       {},
       incoming().spreadConstraint(1, kHostname, "ScheduleAnyway", {{"foo", ""}}).obj(),
       {{"a", 100}, {"b", 100}}},
  };
  runScoreCases(kSpread, cases);
}

TEST(PodTopologySpreadTest, ScoreZone) {
  // zone1 = 2, zone2 = 1; 2 zones: weight ln(4) = 1.3863.
  //   zone1: 2·1.3863 = 2.77 → 3; zone2: 1.39 → 1. max 3, min 1:
  //   zone1 100·(3 + 1 − 3)/3 = 33, zone2 100·(3 + 1 − 1)/3 = 100.
  // With maxSkew 3 each adds 2: zone1 4.77 → 5, zone2 3.39 → 3; 100·(5+3−5)/5 = 60, 100.
  // Node z lacks the zone: ignored (score 0) with the pod's own constraints.
  std::vector<NodePtr> nodes = {zoneNode("a", "zone1"), zoneNode("b", "zone1"),
                                zoneNode("x", "zone2"), zoneNode("y", "zone2"), zoneNode("z", "")};
  auto placed = foos({{"a", 1}, {"b", 1}, {"x", 1}, {"z", 4}});
  std::vector<ScoreCase> cases = {
      {"zone constraint, maxSkew 1",
       "",
       nodes,
       placed,
       incoming().spreadConstraint(1, kZone, "ScheduleAnyway", {{"foo", ""}}).obj(),
       {{"a", 33}, {"b", 33}, {"x", 100}, {"y", 100}, {"z", 0}}},
      {"zone constraint, maxSkew 3",
       "",
       nodes,
       placed,
       incoming().spreadConstraint(3, kZone, "ScheduleAnyway", {{"foo", ""}}).obj(),
       {{"a", 60}, {"b", 60}, {"x", 100}, {"y", 100}, {"z", 0}}},
  };
  runScoreCases(kSpread, cases);
}

TEST(PodTopologySpreadTest, ScoreZoneAndHostname) {
  // 4 candidates. hostname weight ln(6) = 1.7918, zone weight ln(4) = 1.3863.
  // Counts: a 2, b 0, x 1, y 0 → zone1 2, zone2 1.
  //   a: 2·1.7918 + 2·1.3863 = 6.36 → 6
  //   b: 0 + 2.77 = 2.77 → 3
  //   x: 1.79 + 1.39 = 3.18 → 3
  //   y: 0 + 1.39 → 1
  // max 6, min 1: a 100·1/6 = 16, b 100·4/6 = 66, x 66, y 100.
  runScoreCases(kSpread, {{"zone and hostname",
                           "",
                           twoZones(),
                           foos({{"a", 2}, {"x", 1}}),
                           incoming()
                               .spreadConstraint(1, kZone, "ScheduleAnyway", {{"foo", ""}})
                               .spreadConstraint(1, kHostname, "ScheduleAnyway", {{"foo", ""}})
                               .obj(),
                           {{"a", 16}, {"b", 66}, {"x", 66}, {"y", 100}}}});
}

// Runs the plugin with a Service selecting app=web.
sh::evaluate::Result evaluateWithService(std::vector<NodePtr> nodes, std::vector<PodPtr> placed,
                                         PodPtr pod, bool withService) {
  auto objects = std::make_shared<sh::model::ClusterObjects>();
  if (withService) {
    std::string error;
    bool ok = objects->add(boost::json::parse(R"({"apiVersion": "v1", "kind": "Service",
        "metadata": {"name": "web", "namespace": "default"},
        "spec": {"selector": {"app": "web"}}})"),
                           error);
    EXPECT_TRUE(ok) << error;
  }
  sh::evaluate::Scenario scenario;
  scenario.name = "system defaults";
  scenario.nodes = std::move(nodes);
  scenario.pods = std::move(placed);
  scenario.pod = std::move(pod);
  scenario.plugins = {{kSpread, ""}};
  scenario.objects = objects;
  return sh::evaluate::run(scenario, testOptions());
}

TEST(PodTopologySpreadTest, SystemDefaultsFromService) {
  auto web = [](const std::string& name, const std::string& node) {
    return makePod()
        .name(name)
        .uid(name)
        .inNamespace("default")
        .label("app", "web")
        .node(node)
        .obj();
  };
  // c has no zone: with System defaults it is not ignored and gets hostname spreading only.
  std::vector<NodePtr> nodes = {zoneNode("a", "zone1"), zoneNode("b", "zone1"),
                                zoneNode("x", "zone2"), zoneNode("c", "")};
  std::vector<PodPtr> placed = {web("w1", "a"), web("w2", "a"), web("w3", "x")};
  auto pod = makePod().name("p").uid("p").inNamespace("default").label("app", "web").obj();
  // hostname (maxSkew 3): 4 candidates, weight ln(6) = 1.7918, +2.
  // zone (maxSkew 5): domains zone1, zone2 and "" (c has no zone), weight ln(5) = 1.6094, +4;
  // c has no zone label so only its hostname term counts.
  //   a: 2·1.7918 + 2 + 2·1.6094 + 4 = 12.80 → 13
  //   b: 0 + 2 + 3.22 + 4 = 9.22 → 9
  //   x: 1.79 + 2 + 1.61 + 4 = 9.40 → 9
  //   c: 0 + 2 = 2
  // max 13, min 2: a 100·2/13 = 15, b 100·6/13 = 46, x 46, c 100·13/13 = 100.
  auto result = evaluateWithService(nodes, placed, pod, true);
  EXPECT_EQ(scoreOf(result, "a", kSpread), 15);
  EXPECT_EQ(scoreOf(result, "b", kSpread), 46);
  EXPECT_EQ(scoreOf(result, "x", kSpread), 46);
  EXPECT_EQ(scoreOf(result, "c", kSpread), 100);
  EXPECT_EQ(result.preFilter.at(kSpread).code, "Skip");  // System defaults are soft only

  // No Service or controller: the derived selector is empty, no default constraint applies.
  auto none = evaluateWithService(nodes, placed, pod, false);
  EXPECT_EQ(scoreOf(none, "a", kSpread), scoreOf(none, "b", kSpread));
}

TEST(PodTopologySpreadTest, ListDefaultConstraints) {
  // A hard default constraint applies to a pod selected by a Service.
  auto web = [](const std::string& name, const std::string& node) {
    return makePod()
        .name(name)
        .uid(name)
        .inNamespace("default")
        .label("app", "web")
        .node(node)
        .obj();
  };
  auto objects = std::make_shared<sh::model::ClusterObjects>();
  std::string error;
  ASSERT_TRUE(objects->add(boost::json::parse(R"({"apiVersion": "v1", "kind": "Service",
      "metadata": {"name": "web", "namespace": "default"}, "spec": {"selector": {"app": "web"}}})"),
                           error))
      << error;
  sh::evaluate::Scenario scenario;
  scenario.name = "list defaults";
  scenario.nodes = twoZones();
  scenario.pods = {web("w1", "a"), web("w2", "b")};
  scenario.pod = makePod().name("p").uid("p").inNamespace("default").label("app", "web").obj();
  scenario.plugins = {{kSpread, R"({"defaultingType": "List", "defaultConstraints": [
      {"maxSkew": 1, "topologyKey": "topology.kubernetes.io/zone",
       "whenUnsatisfiable": "DoNotSchedule"}]})"}};
  scenario.objects = objects;
  auto result = sh::evaluate::run(scenario, testOptions());
  // zone1 = 2, zone2 = 0: 2 + 1 - 0 = 3 > 1.
  EXPECT_EQ(filterStatus(result, "a", kSpread).code, "Unschedulable");
  EXPECT_EQ(filterStatus(result, "x", kSpread).code, "Success");
}

TEST(PodTopologySpreadTest, ArgsValidation) {
  EXPECT_EQ(argsError(kSpread, ""), "");
  EXPECT_EQ(argsError(kSpread, R"({"defaultingType": "List"})"), "");
  EXPECT_TRUE(
      contains(argsError(kSpread, R"({"defaultConstraints": [{"maxSkew": 1, "topologyKey": "k",
                             "whenUnsatisfiable": "DoNotSchedule"}]})"),
               R"(Invalid value: "System": when .defaultConstraints are not empty)"));
  EXPECT_TRUE(contains(argsError(kSpread, R"({"defaultingType": "Foo"})"),
                       R"(Unsupported value: "Foo": supported values: "System", "List")"));
  std::string list = R"({"defaultingType": "List", "defaultConstraints": [)";
  EXPECT_TRUE(contains(argsError(kSpread, list + R"({"maxSkew": 0, "topologyKey": "k",
                                   "whenUnsatisfiable": "DoNotSchedule"}]})"),
                       "Invalid value: 0: not in valid range"));
  EXPECT_TRUE(contains(argsError(kSpread, list + R"({"maxSkew": 1,
                                   "whenUnsatisfiable": "DoNotSchedule"}]})"),
                       "Required value: can not be empty"));
  EXPECT_TRUE(contains(argsError(kSpread, list + R"({"maxSkew": 1, "topologyKey": "-bad-",
                                   "whenUnsatisfiable": "DoNotSchedule"}]})"),
                       R"(Invalid value: "-bad-": name part must consist of)"));
  EXPECT_TRUE(contains(argsError(kSpread, list + R"({"maxSkew": 1, "topologyKey": "k",
                                   "whenUnsatisfiable": "Later"}]})"),
                       R"(Unsupported value: "Later": supported values: "DoNotSchedule", )"
                       R"("ScheduleAnyway")"));
  EXPECT_TRUE(contains(argsError(kSpread, list + R"({"maxSkew": 1, "topologyKey": "k",
                                   "whenUnsatisfiable": "DoNotSchedule",
                                   "labelSelector": {}}]})"),
                       "Forbidden: constraint must not define a selector, as they deduced for "
                       "each pod"));
  EXPECT_TRUE(contains(argsError(kSpread, list + R"(
      {"maxSkew": 1, "topologyKey": "k", "whenUnsatisfiable": "DoNotSchedule"},
      {"maxSkew": 2, "topologyKey": "k", "whenUnsatisfiable": "DoNotSchedule"}]})"),
                       R"(Duplicate value: "{k, DoNotSchedule}")"));
  EXPECT_EQ(argsError(kSpread, list + R"(
      {"maxSkew": 1, "topologyKey": "k", "whenUnsatisfiable": "DoNotSchedule"},
      {"maxSkew": 2, "topologyKey": "k", "whenUnsatisfiable": "ScheduleAnyway"}]})"),
            "");
}

TEST(PodTopologySpreadTest, EventsToRegister) {
  LoadedPlugin plugin(kSpread);
  using R = std::tuple<int32_t, uint32_t, int32_t>;
  EXPECT_EQ(registrations(plugin),
            (std::vector<R>{R{SH_RESOURCE_POD,
                              SH_ACTION_ADD | SH_ACTION_UPDATE_POD_LABEL |
                                  SH_ACTION_UPDATE_POD_TOLERATION | SH_ACTION_DELETE,
                              1},
                            R{SH_RESOURCE_NODE,
                              SH_ACTION_ADD | SH_ACTION_DELETE | SH_ACTION_UPDATE_NODE_LABEL |
                                  SH_ACTION_UPDATE_NODE_TAINT,
                              1}}));
}

TEST(PodTopologySpreadTest, PodQueueingHints) {
  LoadedPlugin plugin(kSpread);
  auto pod = incoming().spreadConstraint(1, kZone, "DoNotSchedule", {{"foo", ""}}).obj();
  auto matching = fooOn("m", "a");
  auto other = makePod().name("o").uid("o").inNamespace("default").label("bar", "").node("a").obj();
  auto otherNs = fooOn("n", "a", "other");
  auto unscheduled = makePod().name("u").uid("u").inNamespace("default").label("foo", "").obj();
  auto relabelled =
      makePod().name("m").uid("m").inNamespace("default").label("bar", "").node("a").obj();
  EXPECT_EQ(plugin.hint(0, pod->view(), podEvent(SH_ACTION_ADD, nullptr, matching)), SH_QUEUE);
  EXPECT_EQ(plugin.hint(0, pod->view(), podEvent(SH_ACTION_ADD, nullptr, other)), SH_QUEUE_SKIP);
  EXPECT_EQ(plugin.hint(0, pod->view(), podEvent(SH_ACTION_ADD, nullptr, otherNs)), SH_QUEUE_SKIP);
  EXPECT_EQ(plugin.hint(0, pod->view(), podEvent(SH_ACTION_ADD, nullptr, unscheduled)),
            SH_QUEUE_SKIP);
  EXPECT_EQ(plugin.hint(0, pod->view(), podEvent(SH_ACTION_DELETE, matching, nullptr)), SH_QUEUE);
  EXPECT_EQ(plugin.hint(0, pod->view(), podEvent(SH_ACTION_DELETE, other, nullptr)), SH_QUEUE_SKIP);
  EXPECT_EQ(plugin.hint(0, pod->view(), podEvent(SH_ACTION_UPDATE_POD_LABEL, matching, relabelled)),
            SH_QUEUE);
  EXPECT_EQ(plugin.hint(0, pod->view(), podEvent(SH_ACTION_UPDATE_POD_LABEL, matching, matching)),
            SH_QUEUE_SKIP);
  // The pod itself got a toleration: Queue only with nodeTaintsPolicy Honor.
  const std::string honorJson = R"([{"maxSkew": 1, "topologyKey": "topology.kubernetes.io/zone",
      "whenUnsatisfiable": "DoNotSchedule", "nodeTaintsPolicy": "Honor",
      "labelSelector": {"matchLabels": {"foo": ""}}}])";
  auto honor = withConstraints(honorJson);
  auto tolerating = incoming()
                        .toleration("k", "Exists", "", "NoSchedule")
                        .set({"spec", "topologySpreadConstraints"}, boost::json::parse(honorJson))
                        .obj();
  EXPECT_EQ(
      plugin.hint(0, honor->view(), podEvent(SH_ACTION_UPDATE_POD_TOLERATION, honor, tolerating)),
      SH_QUEUE);
  EXPECT_EQ(plugin.hint(0, pod->view(),
                        podEvent(SH_ACTION_UPDATE_POD_TOLERATION, pod,
                                 incoming()
                                     .toleration("k", "Exists", "", "NoSchedule")
                                     .spreadConstraint(1, kZone, "DoNotSchedule", {{"foo", ""}})
                                     .obj())),
            SH_QUEUE_SKIP);
}

TEST(PodTopologySpreadTest, NodeQueueingHints) {
  LoadedPlugin plugin(kSpread);
  auto pod = incoming().spreadConstraint(1, kZone, "DoNotSchedule", {{"foo", ""}}).obj();
  auto zoned = zoneNode("a", "zone1");
  auto moved = zoneNode("a", "zone2");
  auto bare = zoneNode("a", "");
  auto tainted = makeNode()
                     .name("a")
                     .label(kHostname, "a")
                     .label(kZone, "zone1")
                     .taint("k", "v", "NoSchedule")
                     .obj();
  auto relabelled = zoneNode("a", "zone1", {{"other", "x"}});
  EXPECT_EQ(plugin.hint(1, pod->view(), nodeEvent(SH_ACTION_ADD, nullptr, zoned)), SH_QUEUE);
  EXPECT_EQ(plugin.hint(1, pod->view(), nodeEvent(SH_ACTION_ADD, nullptr, bare)), SH_QUEUE_SKIP);
  EXPECT_EQ(plugin.hint(1, pod->view(), nodeEvent(SH_ACTION_DELETE, zoned, nullptr)), SH_QUEUE);
  EXPECT_EQ(plugin.hint(1, pod->view(), nodeEvent(SH_ACTION_DELETE, bare, nullptr)), SH_QUEUE_SKIP);
  EXPECT_EQ(plugin.hint(1, pod->view(), nodeEvent(SH_ACTION_UPDATE_NODE_LABEL, zoned, moved)),
            SH_QUEUE);
  EXPECT_EQ(plugin.hint(1, pod->view(), nodeEvent(SH_ACTION_UPDATE_NODE_LABEL, bare, zoned)),
            SH_QUEUE);
  EXPECT_EQ(plugin.hint(1, pod->view(), nodeEvent(SH_ACTION_UPDATE_NODE_LABEL, zoned, relabelled)),
            SH_QUEUE_SKIP);
  EXPECT_EQ(plugin.hint(1, pod->view(), nodeEvent(SH_ACTION_UPDATE_NODE_TAINT, zoned, tainted)),
            SH_QUEUE);
  EXPECT_EQ(plugin.hint(1, pod->view(), nodeEvent(SH_ACTION_UPDATE_NODE_TAINT, bare, bare)),
            SH_QUEUE_SKIP);
}

}  // namespace
}  // namespace schedhost::testing::pod_topology_spread_test
