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

namespace schedhost::testing {
namespace {

constexpr char kSpread[] = "PodTopologySpread";
constexpr char kNotMatch[] = "node(s) didn't match pod topology spread constraints";
constexpr char kMissingLabel[] =
    "node(s) didn't match pod topology spread constraints (missing required label)";
constexpr char kZone[] = "topology.kubernetes.io/zone";
constexpr char kHostname[] = "kubernetes.io/hostname";

// A node with its hostname label and, unless empty, a zone.
NodePtr ZoneNode(const std::string& name, const std::string& zone,
                 const std::vector<std::pair<std::string, std::string>>& extra = {}) {
  auto n = MakeNode().Name(name).Label(kHostname, name);
  if (!zone.empty()) {
    n.Label(kZone, zone);
  }
  for (const auto& [k, v] : extra) {
    n.Label(k, v);
  }
  return n.Obj();
}

// A running pod labelled foo= on `node`.
PodPtr FooOn(const std::string& name, const std::string& node, const std::string& ns = "default") {
  return MakePod().Name(name).UID(name).Namespace(ns).Label("foo", "").Node(node).Obj();
}

sh::model::testing::PodWrapper Incoming() {
  return MakePod().Name("p").UID("p").Namespace("default").Label("foo", "");
}

// A pod labelled foo= whose spec.topologySpreadConstraints is `json`.
PodPtr WithConstraints(const std::string& json) {
  return Incoming().Set({"spec", "topologySpreadConstraints"}, boost::json::parse(json)).Obj();
}

std::vector<PodPtr> Foos(const std::map<std::string, int>& perNode) {
  std::vector<PodPtr> out;
  for (const auto& [node, n] : perNode) {
    for (int i = 0; i < n; ++i) {
      out.push_back(FooOn("p-" + node + std::to_string(i), node));
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

void RunFilterCases(const std::vector<FilterCase>& cases) {
  for (const FilterCase& c : cases) {
    SCOPED_TRACE(c.name);
    auto result = Evaluate({{kSpread, ""}}, c.nodes, c.placed, c.pod);
    for (const auto& [node, code] : c.want) {
      auto st = FilterStatus(result, node, kSpread);
      EXPECT_EQ(st.code, code) << node;
      if (code == "Unschedulable") {
        EXPECT_EQ(st.reasons, std::vector<std::string>{kNotMatch}) << node;
      } else if (code == "UnschedulableAndUnresolvable") {
        EXPECT_EQ(st.reasons, std::vector<std::string>{kMissingLabel}) << node;
      }
    }
  }
}

std::vector<NodePtr> TwoZones() {
  return {ZoneNode("a", "zone1"), ZoneNode("b", "zone1"), ZoneNode("x", "zone2"),
          ZoneNode("y", "zone2")};
}

TEST(PodTopologySpreadTest, FilterSkew) {
  auto zone1 = Incoming().SpreadConstraint(1, kZone, "DoNotSchedule", {{"foo", ""}}).Obj();
  auto zoneAndNode = Incoming()
                         .SpreadConstraint(1, kZone, "DoNotSchedule", {{"foo", ""}})
                         .SpreadConstraint(1, kHostname, "DoNotSchedule", {{"foo", ""}})
                         .Obj();
  std::vector<FilterCase> cases = {
      {"no existing pods: every node fits",
       zone1,
       TwoZones(),
       {},
       {{"a", "Success"}, {"b", "Success"}, {"x", "Success"}, {"y", "Success"}}},
      {"pods of another namespace do not count",
       zone1,
       TwoZones(),
       {FooOn("p1", "a", "other"), FooOn("p2", "a", "other")},
       {{"a", "Success"}, {"x", "Success"}}},
      {"terminating pods do not count",
       zone1,
       TwoZones(),
       {MakePod().Name("t").UID("t").Namespace("default").Label("foo", "").Node("a")
            .Terminating().Obj(),
        MakePod().Name("t2").UID("t2").Namespace("default").Label("foo", "").Node("a")
            .Terminating().Obj()},
       {{"a", "Success"}, {"x", "Success"}}},
      // zone1 = 3, zone2 = 3: 3 + 1 - 3 = 1 everywhere.
      {"3/3 across zones: every node fits",
       zone1,
       TwoZones(),
       Foos({{"a", 2}, {"b", 1}, {"x", 1}, {"y", 2}}),
       {{"a", "Success"}, {"b", "Success"}, {"x", "Success"}, {"y", "Success"}}},
      // zone1 = 1, zone2 = 2: zone2 gives 2 + 1 - 1 = 2 > 1.
      {"1/2 across zones: only zone1 fits",
       zone1,
       TwoZones(),
       Foos({{"a", 1}, {"x", 1}, {"y", 1}}),
       {{"a", "Success"}, {"b", "Success"}, {"x", "Unschedulable"}, {"y", "Unschedulable"}}},
      // node b has no zone: it is not counted (zone1 = 1, zone2 = 2) and it cannot host.
      {"node without the zone label",
       zone1,
       {ZoneNode("a", "zone1"), ZoneNode("b", ""), ZoneNode("x", "zone2"), ZoneNode("y", "zone2")},
       Foos({{"a", 1}, {"b", 1}, {"x", 1}, {"y", 1}}),
       {{"a", "Success"},
        {"b", "UnschedulableAndUnresolvable"},
        {"x", "Unschedulable"},
        {"y", "Unschedulable"}}},
      {"pods not matching the selector do not count",
       zone1,
       TwoZones(),
       {MakePod().Name("q1").UID("q1").Namespace("default").Label("bar", "").Node("x").Obj(),
        MakePod().Name("q2").UID("q2").Namespace("default").Label("bar", "").Node("x").Obj()},
       {{"a", "Success"}, {"x", "Success"}}},
      // zone: 3/3 → 3 + 1 - 3 = 1 fits everywhere; hostname: a=2 b=1 x=0 y=3, min 0 →
      // only x (0 + 1 - 0 = 1).
      {"zone 3/3 and hostname 2/1/0/3: only x fits",
       zoneAndNode,
       TwoZones(),
       Foos({{"a", 2}, {"b", 1}, {"y", 3}}),
       {{"a", "Unschedulable"}, {"b", "Unschedulable"}, {"x", "Success"}, {"y", "Unschedulable"}}},
      // The incoming pod does not match its own selector: selfMatch = 0; zone2 = 2, zone1 = 1:
      // 2 + 0 - 1 = 1 fits.
      {"incoming pod not matching its selector",
       MakePod().Name("p").UID("p").Namespace("default")
           .SpreadConstraint(1, kZone, "DoNotSchedule", {{"foo", ""}}).Obj(),
       TwoZones(),
       Foos({{"a", 1}, {"x", 1}, {"y", 1}}),
       {{"a", "Success"}, {"x", "Success"}}},
  };
  RunFilterCases(cases);
}

TEST(PodTopologySpreadTest, FilterMinDomains) {
  std::vector<NodePtr> nodes = {ZoneNode("a", "zone1"), ZoneNode("x", "zone2")};
  auto placed = Foos({{"a", 1}, {"x", 1}});
  std::vector<FilterCase> cases = {
      // 2 domains >= minDomains 1: min = 1, 1 + 1 - 1 = 1.
      {"minDomains unset",
       Incoming().SpreadConstraint(1, kZone, "DoNotSchedule", {{"foo", ""}}).Obj(),
       nodes,
       placed,
       {{"a", "Success"}, {"x", "Success"}}},
      {"minDomains 2 = number of domains",
       Incoming().SpreadConstraint(1, kZone, "DoNotSchedule", {{"foo", ""}}, 2).Obj(),
       nodes,
       placed,
       {{"a", "Success"}, {"x", "Success"}}},
      // 2 domains < 3: the global minimum is 0, 1 + 1 - 0 = 2 > 1.
      {"minDomains 3 > number of domains",
       Incoming().SpreadConstraint(1, kZone, "DoNotSchedule", {{"foo", ""}}, 3).Obj(),
       nodes,
       placed,
       {{"a", "Unschedulable"}, {"x", "Unschedulable"}}},
      {"minDomains 3 with maxSkew 2",
       Incoming().SpreadConstraint(2, kZone, "DoNotSchedule", {{"foo", ""}}, 3).Obj(),
       nodes,
       placed,
       {{"a", "Success"}, {"x", "Success"}}},
  };
  RunFilterCases(cases);
}

TEST(PodTopologySpreadTest, FilterInclusionPolicies) {
  // zone3's node has no type=t1 and a NoSchedule taint; zone1 and zone2 hold one pod each.
  std::vector<NodePtr> nodes = {
      ZoneNode("a", "zone1", {{"type", "t1"}}), ZoneNode("x", "zone2", {{"type", "t1"}}),
      MakeNode().Name("z").Label(kHostname, "z").Label(kZone, "zone3")
          .Taint("dedicated", "z", "NoSchedule").Obj()};
  auto placed = Foos({{"a", 1}, {"x", 1}});
  auto constraint = [](const std::string& policies) {
    return R"([{"maxSkew": 1, "topologyKey": "topology.kubernetes.io/zone",
                "whenUnsatisfiable": "DoNotSchedule",
                "labelSelector": {"matchLabels": {"foo": ""}})" +
           policies + "}]";
  };
  auto withSelector = [](const std::string& json) {
    return Incoming()
        .NodeSelector({{"type", "t1"}})
        .Set({"spec", "topologySpreadConstraints"}, boost::json::parse(json))
        .Obj();
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
       WithConstraints(constraint("")),
       nodes,
       placed,
       {{"a", "Unschedulable"}, {"x", "Unschedulable"}, {"z", "Success"}}},
      {"nodeTaintsPolicy Honor excludes the untolerated taint",
       WithConstraints(constraint(R"(, "nodeTaintsPolicy": "Honor")")),
       nodes,
       placed,
       {{"a", "Success"}, {"x", "Success"}}},
      {"nodeTaintsPolicy Honor with a toleration",
       Incoming()
           .Toleration("dedicated", "Equal", "z", "NoSchedule")
           .Set({"spec", "topologySpreadConstraints"},
                boost::json::parse(constraint(R"(, "nodeTaintsPolicy": "Honor")")))
           .Obj(),
       nodes,
       placed,
       {{"a", "Unschedulable"}, {"x", "Unschedulable"}, {"z", "Success"}}},
  };
  RunFilterCases(cases);
}

TEST(PodTopologySpreadTest, FilterMatchLabelKeys) {
  // Only pods with the incoming pod's rev count: zone1 has 2 rev=1 pods, zone2 one rev=2 pod.
  std::vector<NodePtr> nodes = {ZoneNode("a", "zone1"), ZoneNode("x", "zone2")};
  auto rev = [](const std::string& name, const std::string& node, const std::string& r) {
    return MakePod().Name(name).UID(name).Namespace("default").Label("foo", "").Label("rev", r)
        .Node(node).Obj();
  };
  std::vector<PodPtr> placed = {rev("a1", "a", "1"), rev("a2", "a", "1"), rev("x1", "x", "2")};
  auto pod = [](const std::string& keys) {
    return MakePod().Name("p").UID("p").Namespace("default").Label("foo", "").Label("rev", "2")
        .Set({"spec", "topologySpreadConstraints"},
             boost::json::parse(R"([{"maxSkew": 1, "topologyKey": "topology.kubernetes.io/zone",
                 "whenUnsatisfiable": "DoNotSchedule",
                 "labelSelector": {"matchLabels": {"foo": ""}}, "matchLabelKeys": )" +
                                keys + "}]"))
        .Obj();
  };
  std::vector<FilterCase> cases = {
      // Without matchLabelKeys: zone1 = 2, zone2 = 1 → zone1 2 + 1 - 1 = 2 > 1.
      {"without matchLabelKeys", pod("[]"), nodes, placed,
       {{"a", "Unschedulable"}, {"x", "Success"}}},
      // rev=2 only: zone1 = 0, zone2 = 1 → zone2 1 + 1 - 0 = 2 > 1.
      {"matchLabelKeys rev", pod(R"(["rev"])"), nodes, placed,
       {{"a", "Success"}, {"x", "Unschedulable"}}},
  };
  RunFilterCases(cases);
}

TEST(PodTopologySpreadTest, PreFilterSkipsWithoutHardConstraints) {
  auto result = Evaluate({{kSpread, ""}}, TwoZones(), {},
                         Incoming().SpreadConstraint(1, kZone, "ScheduleAnyway", {{"foo", ""}})
                             .Obj());
  ASSERT_EQ(result.preFilter.count(kSpread), 1u);
  EXPECT_EQ(result.preFilter.at(kSpread).code, "Skip");
  result = Evaluate({{kSpread, ""}}, TwoZones(), {}, Incoming().Obj());
  EXPECT_EQ(result.preFilter.at(kSpread).code, "Skip");
}

TEST(PodTopologySpreadTest, ScoreHostname) {
  // 4 candidates: weight ln(4 + 2) = 1.7918, maxSkew 1 adds 0.
  //   a: 2·1.7918 = 3.58 → 4; b: 1.79 → 2; c: 0; d: 3·1.7918 = 5.38 → 5.
  // max 5, min 0: 100·(5 + 0 − s)/5 → a 20, b 60, c 100, d 0.
  std::vector<ScoreCase> cases = {
      {"one hostname constraint",
       "",
       {ZoneNode("a", ""), ZoneNode("b", ""), ZoneNode("c", ""), ZoneNode("d", "")},
       Foos({{"a", 2}, {"b", 1}, {"d", 3}}),
       Incoming().SpreadConstraint(1, kHostname, "ScheduleAnyway", {{"foo", ""}}).Obj(),
       {{"a", 20}, {"b", 60}, {"c", 100}, {"d", 0}}},
      // No matching pods anywhere: every raw score is 0, max 0 → 100.
      {"no matching pods",
       "",
       {ZoneNode("a", ""), ZoneNode("b", "")},
       {},
       Incoming().SpreadConstraint(1, kHostname, "ScheduleAnyway", {{"foo", ""}}).Obj(),
       {{"a", 100}, {"b", 100}}},
  };
  RunScoreCases(kSpread, cases);
}

TEST(PodTopologySpreadTest, ScoreZone) {
  // zone1 = 2, zone2 = 1; 2 zones: weight ln(4) = 1.3863.
  //   zone1: 2·1.3863 = 2.77 → 3; zone2: 1.39 → 1. max 3, min 1:
  //   zone1 100·(3 + 1 − 3)/3 = 33, zone2 100·(3 + 1 − 1)/3 = 100.
  // With maxSkew 3 each adds 2: zone1 4.77 → 5, zone2 3.39 → 3; 100·(5+3−5)/5 = 60, 100.
  // Node z lacks the zone: ignored (score 0) with the pod's own constraints.
  std::vector<NodePtr> nodes = {ZoneNode("a", "zone1"), ZoneNode("b", "zone1"),
                                ZoneNode("x", "zone2"), ZoneNode("y", "zone2"), ZoneNode("z", "")};
  auto placed = Foos({{"a", 1}, {"b", 1}, {"x", 1}, {"z", 4}});
  std::vector<ScoreCase> cases = {
      {"zone constraint, maxSkew 1", "", nodes, placed,
       Incoming().SpreadConstraint(1, kZone, "ScheduleAnyway", {{"foo", ""}}).Obj(),
       {{"a", 33}, {"b", 33}, {"x", 100}, {"y", 100}, {"z", 0}}},
      {"zone constraint, maxSkew 3", "", nodes, placed,
       Incoming().SpreadConstraint(3, kZone, "ScheduleAnyway", {{"foo", ""}}).Obj(),
       {{"a", 60}, {"b", 60}, {"x", 100}, {"y", 100}, {"z", 0}}},
  };
  RunScoreCases(kSpread, cases);
}

TEST(PodTopologySpreadTest, ScoreZoneAndHostname) {
  // 4 candidates. hostname weight ln(6) = 1.7918, zone weight ln(4) = 1.3863.
  // Counts: a 2, b 0, x 1, y 0 → zone1 2, zone2 1.
  //   a: 2·1.7918 + 2·1.3863 = 6.36 → 6
  //   b: 0 + 2.77 = 2.77 → 3
  //   x: 1.79 + 1.39 = 3.18 → 3
  //   y: 0 + 1.39 → 1
  // max 6, min 1: a 100·1/6 = 16, b 100·4/6 = 66, x 66, y 100.
  RunScoreCases(kSpread,
                {{"zone and hostname", "", TwoZones(), Foos({{"a", 2}, {"x", 1}}),
                  Incoming()
                      .SpreadConstraint(1, kZone, "ScheduleAnyway", {{"foo", ""}})
                      .SpreadConstraint(1, kHostname, "ScheduleAnyway", {{"foo", ""}})
                      .Obj(),
                  {{"a", 16}, {"b", 66}, {"x", 66}, {"y", 100}}}});
}

// Runs the plugin with a Service selecting app=web.
sh::evaluate::Result EvaluateWithService(std::vector<NodePtr> nodes, std::vector<PodPtr> placed,
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
  return sh::evaluate::run(scenario, TestOptions());
}

TEST(PodTopologySpreadTest, SystemDefaultsFromService) {
  auto web = [](const std::string& name, const std::string& node) {
    return MakePod().Name(name).UID(name).Namespace("default").Label("app", "web").Node(node)
        .Obj();
  };
  // c has no zone: with System defaults it is not ignored and gets hostname spreading only.
  std::vector<NodePtr> nodes = {ZoneNode("a", "zone1"), ZoneNode("b", "zone1"),
                                ZoneNode("x", "zone2"), ZoneNode("c", "")};
  std::vector<PodPtr> placed = {web("w1", "a"), web("w2", "a"), web("w3", "x")};
  auto pod = MakePod().Name("p").UID("p").Namespace("default").Label("app", "web").Obj();
  // hostname (maxSkew 3): 4 candidates, weight ln(6) = 1.7918, +2.
  // zone (maxSkew 5): domains zone1, zone2 and "" (c has no zone), weight ln(5) = 1.6094, +4;
  // c has no zone label so only its hostname term counts.
  //   a: 2·1.7918 + 2 + 2·1.6094 + 4 = 12.80 → 13
  //   b: 0 + 2 + 3.22 + 4 = 9.22 → 9
  //   x: 1.79 + 2 + 1.61 + 4 = 9.40 → 9
  //   c: 0 + 2 = 2
  // max 13, min 2: a 100·2/13 = 15, b 100·6/13 = 46, x 46, c 100·13/13 = 100.
  auto result = EvaluateWithService(nodes, placed, pod, true);
  EXPECT_EQ(Score(result, "a", kSpread), 15);
  EXPECT_EQ(Score(result, "b", kSpread), 46);
  EXPECT_EQ(Score(result, "x", kSpread), 46);
  EXPECT_EQ(Score(result, "c", kSpread), 100);
  EXPECT_EQ(result.preFilter.at(kSpread).code, "Skip");  // System defaults are soft only

  // No Service or controller: the derived selector is empty, no default constraint applies.
  auto none = EvaluateWithService(nodes, placed, pod, false);
  EXPECT_EQ(Score(none, "a", kSpread), Score(none, "b", kSpread));
}

TEST(PodTopologySpreadTest, ListDefaultConstraints) {
  // A hard default constraint applies to a pod selected by a Service.
  auto web = [](const std::string& name, const std::string& node) {
    return MakePod().Name(name).UID(name).Namespace("default").Label("app", "web").Node(node)
        .Obj();
  };
  auto objects = std::make_shared<sh::model::ClusterObjects>();
  std::string error;
  ASSERT_TRUE(objects->add(boost::json::parse(R"({"apiVersion": "v1", "kind": "Service",
      "metadata": {"name": "web", "namespace": "default"}, "spec": {"selector": {"app": "web"}}})"),
                           error))
      << error;
  sh::evaluate::Scenario scenario;
  scenario.name = "list defaults";
  scenario.nodes = TwoZones();
  scenario.pods = {web("w1", "a"), web("w2", "b")};
  scenario.pod = MakePod().Name("p").UID("p").Namespace("default").Label("app", "web").Obj();
  scenario.plugins = {{kSpread, R"({"defaultingType": "List", "defaultConstraints": [
      {"maxSkew": 1, "topologyKey": "topology.kubernetes.io/zone",
       "whenUnsatisfiable": "DoNotSchedule"}]})"}};
  scenario.objects = objects;
  auto result = sh::evaluate::run(scenario, TestOptions());
  // zone1 = 2, zone2 = 0: 2 + 1 - 0 = 3 > 1.
  EXPECT_EQ(FilterStatus(result, "a", kSpread).code, "Unschedulable");
  EXPECT_EQ(FilterStatus(result, "x", kSpread).code, "Success");
}

TEST(PodTopologySpreadTest, ArgsValidation) {
  EXPECT_EQ(ArgsError(kSpread, ""), "");
  EXPECT_EQ(ArgsError(kSpread, R"({"defaultingType": "List"})"), "");
  EXPECT_TRUE(Contains(
      ArgsError(kSpread, R"({"defaultConstraints": [{"maxSkew": 1, "topologyKey": "k",
                             "whenUnsatisfiable": "DoNotSchedule"}]})"),
      R"(Invalid value: "System": when .defaultConstraints are not empty)"));
  EXPECT_TRUE(Contains(ArgsError(kSpread, R"({"defaultingType": "Foo"})"),
                       R"(Unsupported value: "Foo": supported values: "System", "List")"));
  std::string list = R"({"defaultingType": "List", "defaultConstraints": [)";
  EXPECT_TRUE(Contains(ArgsError(kSpread, list + R"({"maxSkew": 0, "topologyKey": "k",
                                   "whenUnsatisfiable": "DoNotSchedule"}]})"),
                       "Invalid value: 0: not in valid range"));
  EXPECT_TRUE(Contains(ArgsError(kSpread, list + R"({"maxSkew": 1,
                                   "whenUnsatisfiable": "DoNotSchedule"}]})"),
                       "Required value: can not be empty"));
  EXPECT_TRUE(Contains(ArgsError(kSpread, list + R"({"maxSkew": 1, "topologyKey": "-bad-",
                                   "whenUnsatisfiable": "DoNotSchedule"}]})"),
                       R"(Invalid value: "-bad-": name part must consist of)"));
  EXPECT_TRUE(Contains(ArgsError(kSpread, list + R"({"maxSkew": 1, "topologyKey": "k",
                                   "whenUnsatisfiable": "Later"}]})"),
                       R"(Unsupported value: "Later": supported values: "DoNotSchedule", )"
                       R"("ScheduleAnyway")"));
  EXPECT_TRUE(Contains(ArgsError(kSpread, list + R"({"maxSkew": 1, "topologyKey": "k",
                                   "whenUnsatisfiable": "DoNotSchedule",
                                   "labelSelector": {}}]})"),
                       "Forbidden: constraint must not define a selector, as they deduced for "
                       "each pod"));
  EXPECT_TRUE(Contains(ArgsError(kSpread, list + R"(
      {"maxSkew": 1, "topologyKey": "k", "whenUnsatisfiable": "DoNotSchedule"},
      {"maxSkew": 2, "topologyKey": "k", "whenUnsatisfiable": "DoNotSchedule"}]})"),
                       R"(Duplicate value: "{k, DoNotSchedule}")"));
  EXPECT_EQ(ArgsError(kSpread, list + R"(
      {"maxSkew": 1, "topologyKey": "k", "whenUnsatisfiable": "DoNotSchedule"},
      {"maxSkew": 2, "topologyKey": "k", "whenUnsatisfiable": "ScheduleAnyway"}]})"),
            "");
}

TEST(PodTopologySpreadTest, EventsToRegister) {
  LoadedPlugin plugin(kSpread);
  using R = std::tuple<int32_t, uint32_t, int32_t>;
  EXPECT_EQ(Registrations(plugin),
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
  auto pod = Incoming().SpreadConstraint(1, kZone, "DoNotSchedule", {{"foo", ""}}).Obj();
  auto matching = FooOn("m", "a");
  auto other = MakePod().Name("o").UID("o").Namespace("default").Label("bar", "").Node("a").Obj();
  auto otherNs = FooOn("n", "a", "other");
  auto unscheduled = MakePod().Name("u").UID("u").Namespace("default").Label("foo", "").Obj();
  auto relabelled =
      MakePod().Name("m").UID("m").Namespace("default").Label("bar", "").Node("a").Obj();
  EXPECT_EQ(plugin.Hint(0, pod->view(), PodEvent(SH_ACTION_ADD, nullptr, matching)), SH_QUEUE);
  EXPECT_EQ(plugin.Hint(0, pod->view(), PodEvent(SH_ACTION_ADD, nullptr, other)), SH_QUEUE_SKIP);
  EXPECT_EQ(plugin.Hint(0, pod->view(), PodEvent(SH_ACTION_ADD, nullptr, otherNs)),
            SH_QUEUE_SKIP);
  EXPECT_EQ(plugin.Hint(0, pod->view(), PodEvent(SH_ACTION_ADD, nullptr, unscheduled)),
            SH_QUEUE_SKIP);
  EXPECT_EQ(plugin.Hint(0, pod->view(), PodEvent(SH_ACTION_DELETE, matching, nullptr)), SH_QUEUE);
  EXPECT_EQ(plugin.Hint(0, pod->view(), PodEvent(SH_ACTION_DELETE, other, nullptr)),
            SH_QUEUE_SKIP);
  EXPECT_EQ(plugin.Hint(0, pod->view(), PodEvent(SH_ACTION_UPDATE_POD_LABEL, matching,
                                                 relabelled)),
            SH_QUEUE);
  EXPECT_EQ(plugin.Hint(0, pod->view(), PodEvent(SH_ACTION_UPDATE_POD_LABEL, matching, matching)),
            SH_QUEUE_SKIP);
  // The pod itself got a toleration: Queue only with nodeTaintsPolicy Honor.
  const std::string honorJson = R"([{"maxSkew": 1, "topologyKey": "topology.kubernetes.io/zone",
      "whenUnsatisfiable": "DoNotSchedule", "nodeTaintsPolicy": "Honor",
      "labelSelector": {"matchLabels": {"foo": ""}}}])";
  auto honor = WithConstraints(honorJson);
  auto tolerating = Incoming()
                        .Toleration("k", "Exists", "", "NoSchedule")
                        .Set({"spec", "topologySpreadConstraints"}, boost::json::parse(honorJson))
                        .Obj();
  EXPECT_EQ(plugin.Hint(0, honor->view(),
                        PodEvent(SH_ACTION_UPDATE_POD_TOLERATION, honor, tolerating)),
            SH_QUEUE);
  EXPECT_EQ(plugin.Hint(0, pod->view(), PodEvent(SH_ACTION_UPDATE_POD_TOLERATION, pod,
                                                 Incoming().Toleration("k", "Exists", "",
                                                                       "NoSchedule")
                                                     .SpreadConstraint(1, kZone, "DoNotSchedule",
                                                                       {{"foo", ""}})
                                                     .Obj())),
            SH_QUEUE_SKIP);
}

TEST(PodTopologySpreadTest, NodeQueueingHints) {
  LoadedPlugin plugin(kSpread);
  auto pod = Incoming().SpreadConstraint(1, kZone, "DoNotSchedule", {{"foo", ""}}).Obj();
  auto zoned = ZoneNode("a", "zone1");
  auto moved = ZoneNode("a", "zone2");
  auto bare = ZoneNode("a", "");
  auto tainted = MakeNode().Name("a").Label(kHostname, "a").Label(kZone, "zone1")
                     .Taint("k", "v", "NoSchedule").Obj();
  auto relabelled = ZoneNode("a", "zone1", {{"other", "x"}});
  EXPECT_EQ(plugin.Hint(1, pod->view(), NodeEvent(SH_ACTION_ADD, nullptr, zoned)), SH_QUEUE);
  EXPECT_EQ(plugin.Hint(1, pod->view(), NodeEvent(SH_ACTION_ADD, nullptr, bare)), SH_QUEUE_SKIP);
  EXPECT_EQ(plugin.Hint(1, pod->view(), NodeEvent(SH_ACTION_DELETE, zoned, nullptr)), SH_QUEUE);
  EXPECT_EQ(plugin.Hint(1, pod->view(), NodeEvent(SH_ACTION_DELETE, bare, nullptr)),
            SH_QUEUE_SKIP);
  EXPECT_EQ(plugin.Hint(1, pod->view(), NodeEvent(SH_ACTION_UPDATE_NODE_LABEL, zoned, moved)),
            SH_QUEUE);
  EXPECT_EQ(plugin.Hint(1, pod->view(), NodeEvent(SH_ACTION_UPDATE_NODE_LABEL, bare, zoned)),
            SH_QUEUE);
  EXPECT_EQ(plugin.Hint(1, pod->view(),
                        NodeEvent(SH_ACTION_UPDATE_NODE_LABEL, zoned, relabelled)),
            SH_QUEUE_SKIP);
  EXPECT_EQ(plugin.Hint(1, pod->view(), NodeEvent(SH_ACTION_UPDATE_NODE_TAINT, zoned, tainted)),
            SH_QUEUE);
  EXPECT_EQ(plugin.Hint(1, pod->view(), NodeEvent(SH_ACTION_UPDATE_NODE_TAINT, bare, bare)),
            SH_QUEUE_SKIP);
}

}  // namespace
}  // namespace schedhost::testing
